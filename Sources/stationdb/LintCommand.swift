import ArgumentParser
import FoundationEssentials
import Ingest
import StationCore

struct LintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "List the values of raw/ a maintainer should look at; changes nothing.",
        discussion: """
        Reads raw/ as `stationdb ingest` does (writing nothing) and the hand
        weights, and lists, each with file:line:field and why:
        \(LintRule.help)
        Every value is published as the sources hold it: lint only says where to
        look.

        A finding looked at and found right (a border station whose neighbours
        are all in the next prefecture) goes into RAW/reviewed.csv, with what
        lint said and why it stands:
          rule,subject,expect,note
          pref,s_id 674,"station 674 気仙沼 has pref 4, ...",in Miyagi; ...
        `subject` is `s_id N` for a station, else the file in RAW and the
        field; `expect` is the finding's message as lint gives it (--format csv
        prints each open finding so, the note left to write). Lint lists a
        reviewed finding apart ("reviewed: ...") and counts it no more, until
        it reads otherwise: a station's finding is then reopened (counted, and
        naming the row), and a row that finds nothing as it expects is a
        finding of its own (rule `reviewed`).

        The list goes to stdout (text, --format json for CI, or --format csv),
        a one-line count to stderr; --out also writes the JSON report, which `stationdb build
        --lint` reads to put the count into latest.json and the summary. (make
        has `stationdb ingest --lint FILE` write it, from the same reading.)

        Examples:
          stationdb lint --raw raw
          stationdb lint --raw raw --format json > lint.json
          stationdb lint --raw raw --quiet --out build/lint.json

        What a publish refuses, lint refuses too, with the same message at the
        same file:line (a hand weight listed twice or on no station, a bad fix,
        a source that cannot be read).

        Exit status: 0 (warnings or not), 2 bad input that make would refuse,
        3 I/O failure.
        """)

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
