import ArgumentParser
import FoundationEssentials
import Ingest
import StationCore

struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "List the values of raw/ a maintainer should look at; changes nothing.",
        discussion: Help.text(PackageResources.lint_txt).replacing("{lint rules}", with: LintRule.help))

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json, csv }

    @OptionGroup var source: RawOptions

    @Option(help: "Hand weights CSV (default: RAW/weights.csv when present).")
    var hand: String?

    @Option(help: "text, json, or csv: each open finding as a row of RAW/reviewed.csv, its note left to write.")
    var format: Format = .text

    @Option(help: "Also write the JSON report to this file (for `stationdb build --lint`).")
    var out: String?

    @Flag(help: "Print only the one-line count (stderr), not the list.")
    var quiet = false

    func run() async throws {
        let report = try await Lint.run(source.ingest, handWeights: hand ?? joinPath(source.raw, "weights.csv"))
        let json = try report.json()
        if let out { try AtomicFile.write(json, to: out) }
        if !quiet {
            switch format {
            case .text:
                StandardStream.output.write(report.findings.map { "warning: \($0)\n" }.joined() + report.reviewed.map { "reviewed: \($0)\n" }.joined())
            case .json: StandardStream.output.write(String(decoding: json, as: UTF8.self))
            case .csv:
                StandardStream.output.write(CSVWriter.line(LintReviews.columns.required)
                    + report.findings.filter { $0.rule != LintRule.reviewed.rawValue }.map { LintReviews.row(for: $0, rawLabel: source.ingest.rawLabel) }.joined())
            }
        }
        note("lint: \(report.summary) in \(source.ingest.rawLabel)" + (quiet && report.count > 0 ? "; `make lint` lists them" : ""))
    }
}
