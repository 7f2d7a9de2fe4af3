import ArgumentParser
import Publishing
import StationCore

struct PullCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Bring a local station database up to the version published at BASE_URL, as the apps do.",
        discussion: Help.text(PackageResources.pull_txt))

    @Argument(help: "The URL of a published dist/ folder (holding latest.json).", transform: webURL)
    var baseURL: WebURL

    @Option(help: "The local station database (created if missing).")
    var db: String

    @OptionGroup var network: TransferOptionGroup

    func run() throws {
        let client = BundleClient(baseURL: baseURL.description, databasePath: db, http: network.makeClient())
        do {
            let report = try client.pull()
            switch report.kind {
            case .upToDate:
                note("pull: \(db) is up to date (version \(report.localVersion), published \(report.publishedVersion))")
            case .patched:
                note("pull: patched \(db) from version \(report.localVersion) to \(report.publishedVersion)\(copied(report))")
            case .replaced:
                let from = report.localVersion == 0 ? "no database" : "version \(report.localVersion)"
                note("pull: replaced \(db) (\(from)) with the full version \(report.publishedVersion)\(copied(report))")
            }
        } catch let error as StationError {
            note("\(error)")
            note("pull: \(db) left as it was")
            throw ExitCode(error.exitStatus.rawValue)
        }
    }

    private func copied(_ report: PullReport) -> String {
        report.recordsCopied > 0 ? "; \(report.recordsCopied) records copied to renumbered stations" : ""
    }
}
