import ArgumentParser
import Publishing
import StationCore

extension RunReport.Format: ExpressibleByArgument {}

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what the next publish would change, and what the apps would show, without publishing.",
        discussion: Help.text(PackageResources.plan_txt))

    @OptionGroup var options: PipelineOptions<Plans>

    @Option(help: ArgumentHelp("Compare with the dist published at URL (holding latest.json), as the apps read it.", valueName: "URL"), transform: webURL)
    var against: WebURL?

    @Option(help: "text, markdown or json.")
    var format: RunReport.Format = .text

    @Flag(help: "The same as --format json.")
    var json = false

    @Option(help: "Write the report here instead of stdout.")
    var out: String?

    @Option(help: "Rows listed per kind of change in text and markdown.")
    var limit = 50

    @Flag(help: "In text, show each named identity's evidence: its pair's terms and its best rival's, as `stationdb explain` does (json has them always).")
    var explain = false

    @OptionGroup(title: "Downloads of --against")
    var network: TransferOptionGroup

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        var settings = options.settings
        settings.transfer = network.options
        let pipeline = Pipeline(settings)
        let plan = try await pipeline.plan(against: against.map { BaselineSource.url($0.description) } ?? .dist)
        let text = try plan.report.render(json ? .json : format, limit: limit, preview: plan.preview, explain: explain)
        if let out {
            try AtomicFile.write(text, to: out)
            note("plan: \(plan.report.headline); the report is in \(out)")
        } else {
            StandardStream.output.write(text)
        }
        throw ExitCode(plan.report.exitStatus.rawValue)
    }
}
