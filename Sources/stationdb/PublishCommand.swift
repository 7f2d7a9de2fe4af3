import ArgumentParser
import Publishing
import StationCore

struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "The nightly job (what `make` runs): ingest, priority and build, each only when what it reads changed.",
        discussion: Help.text(PackageResources.publish_txt))

    @OptionGroup var options: PipelineOptions<Publishes>

    @Flag(help: "Print what the run did as JSON on stdout: published or not, version, row counts, changes per kind, the guards' verdict, lint warnings.")
    var json = false

    func run() async throws {
        let report = try await Pipeline(options.settings).publish()
        if json { StandardStream.output.write(String(decoding: try report.json(), as: UTF8.self)) }
        if report.exitStatus != .success { throw ExitCode(report.exitStatus.rawValue) }
    }
}
