import ArgumentParser
import Publishing
import StationIO
import StationModel

extension RunReport.Format: ExpressibleByArgument {}

struct PlanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Show what the next publish would change, and what the apps would show, without publishing.",
        discussion: """
        Runs the stages exactly as `publish` does (ingest, priority, each only
        when what it reads changed), prepares the version that would be
        published in BUILD/staging.bin.candidate/, and compares it with a baseline: the
        version the local dist's latest.json names, or with --against URL the
        dist the apps download from, read as they read it (latest.json and the
        gzip of the database, checked for size and sha256 as `stationdb pull`
        checks them). The guards run as on publish. Nothing is published:
        DIST, RAW and RAW/registry.csv are left byte for byte as they were.

        The report names every change by station, line or operator: moved
        (with metres, every move over 1 km listed again under "look at these"),
        renamed, weight changed, added, disabled, re-enabled, lines and
        operators. Formats: text (default), markdown (ready to paste into a
        pull request) or json (everything; --json is the same).

        It also writes BUILD/preview.html: a map of what the apps would show,
        the candidate against the baseline (open it in a browser; see
        `stationdb preview --help`).

        A `stationdb publish` (or `make`) right after a plan publishes exactly
        the planned version, the same bytes, without redoing the stages.

        Examples:
          stationdb plan                                  # make plan
          stationdb plan --format markdown --out plan.md  # make plan FORMAT=markdown
          stationdb plan --against https://stations.example.org --format markdown
          stationdb plan --against https://stations.example.org --timeout 30

        Exit status: 0 nothing would change, 1 a new version would be
        published, 2 bad input (with --against, a URL that serves no dist), 3
        I/O or a damaged dist (a download included), 4 a guard would refuse to
        publish.
        """)

    @OptionGroup var options: PipelineOptions<Plans>

    @Option(help: ArgumentHelp("Compare with the dist published at URL (holding latest.json), as the apps read it.", valueName: "URL"))
    var against: String?

    @Option(help: "text, markdown or json.")
    var format: RunReport.Format = .text

    @Flag(help: "The same as --format json.")
    var json = false

    @Option(help: "Write the report here instead of stdout.")
    var out: String?

    @Option(help: "Rows listed per kind of change in text and markdown.")
    var limit = 50

    @OptionGroup(title: "Downloads of --against")
    var network: TransferOptionGroup

    func validate() throws {
        if let against {
            let lower = against.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw ValidationError("--against must be an http:// or https:// URL of a published dist, got \"\(against)\"")
            }
        }
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
    }

    func run() async throws {
        var settings = options.settings
        settings.transfer = network.options
        let pipeline = Pipeline(settings)
        let plan = try await pipeline.plan(against: against.map(BaselineSource.url) ?? .dist)
        let text = try plan.report.render(json ? .json : format, limit: limit, preview: plan.preview)
        if let out {
            try AtomicFile.write(text, to: out)
            note("plan: \(plan.report.headline); the report is in \(out)")
        } else {
            StandardStream.output.write(text)
        }
        throw ReportedFailure(status: plan.report.exitStatus)
    }
}
