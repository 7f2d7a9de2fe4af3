import ArgumentParser
import Ingest
import StationIO
import StationModel
import SourceFetch
import Transfer

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download the sources of RAW/sources.json that have a url, if they changed.",
        discussion: Help.text(PackageResources.fetch_txt))

    @Option(help: "The raw folder holding sources.json and the sources.")
    var raw: String = "raw"

    @Option(help: ArgumentHelp("Read every station_database source from this base URL instead of its url: a mirror laid out as the upstream's repository (the Makefile's UPSTREAM).", valueName: "URL"))
    var upstream: String?

    @Flag(help: ArgumentHelp("Take an upstream release older than raw/'s, or whose files are (the Makefile's ALLOW_OLDER_RELEASE=1)."))
    var allowOlderRelease = false

    @OptionGroup var network: TransferOptionGroup

    func run() throws {
        let config = try SourcesConfig.load(rawFolder: raw)
        let remote = try RemoteSource.plan(config, rawFolder: raw, upstream: upstream)
        if remote.isEmpty {
            note("fetch: no source in \(raw)/sources.json has a url; nothing to fetch")
            return
        }
        let fetcher = SourceFetcher(http: network.makeClient())
        var worst: ExitStatus = .success
        for source in remote {
            do {
                let reports = try fetcher.fetch(source.files) { try source.check(folder: $0, allowOlder: allowOlderRelease) }
                for report in reports {
                    switch report.outcome {
                    case .unchanged:
                        note("fetch: \(report.file.path): unchanged")
                    case .downloaded(let bytes, let sha256):
                        note("fetch: \(report.file.path): \(bytes) bytes, sha256 \(sha256)")
                    }
                }
            } catch let error as TransferError {
                note("error: \(error)")
                if case .partlyReplaced = error {} else {
                    note("fetch: \(source.declaration.path) (\(source.declaration.kind.rawValue)) left as it was")
                }
                if error.exitStatus.rawValue > worst.rawValue { worst = error.exitStatus }
            } catch let error as InputError {
                note("\(error)")
                note("fetch: \(source.declaration.path) (\(source.declaration.kind.rawValue)) left as it was")
                if ExitStatus.badInput.rawValue > worst.rawValue { worst = .badInput }
            }
        }
        if worst != .success { throw ReportedFailure(status: worst) }
    }
}
