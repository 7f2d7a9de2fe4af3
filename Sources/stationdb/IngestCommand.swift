import ArgumentParser
import FoundationEssentials
import Ingest
import Lint
import StationIO
import StationModel

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Read the station sources in raw/ and write the validated staging file.",
        discussion: """
        Sources are declared in RAW/sources.json in precedence order (kinds: native,
        ekidata, n02); without it RAW is one folder of native master CSV
        (operators.csv, lines.csv, stations.csv, stations_lines.csv). The earliest
        source wins field by field. IDs come from RAW/registry.csv, which this
        command keeps up to date: a new station gets a new s_id, a vanished one
        keeps its s_id and is published disabled, and no ID is ever reused.
        RAW/fixes.csv, if present, is applied last; a fix that matches no row or
        several is an error.

        On bad input every problem is listed with file, line and field, the exit
        status is 2, and neither the staging file nor the registry is touched.

        Examples:
          stationdb ingest --raw raw --out build/staging.bin
          stationdb ingest --raw raw --out build/staging.bin --report
          stationdb ingest --raw raw --check      # validate only, write nothing
        """)

    @Option(help: "The raw folder holding the sources.")
    var raw: String = "raw"

    @Option(help: "Where to write the staging file.")
    var out: String = "build/staging.bin"

    @Option(help: "The ID registry (default: RAW/registry.csv).")
    var registry: String?

    @Option(help: "The fixes file (default: RAW/fixes.csv).")
    var fixes: String?

    @Flag(help: "List where the sources disagree (names, coordinates more than 300 m apart, prefectures) on stdout.")
    var report = false

    @Flag(help: "Validate only: write neither the staging file nor the registry.")
    var check = false

    @Option(help: "Stop listing problems after this many.")
    var maxProblems = 100

    @Option(help: "Also check the values as `stationdb lint` does and write its JSON report here (what make does).")
    var lint: String?

    @Option(help: "Hand weights for --lint (default: RAW/weights.csv when present).")
    var hand: String?

    func run() async throws {
        let options = IngestOptions(rawFolder: raw, registryPath: registry, fixesPath: fixes, problemLimit: maxProblems)
        var sourceFindings: [LintFinding] = []
        let inputs = try await IngestPipeline.read(options) { if lint != nil { sourceFindings += Lint.sourceValues($0) } }
        let fixes = inputs.fixes
        let outcome = try IngestPipeline.assemble(inputs, problemLimit: maxProblems, keepOrigins: lint != nil)
        let n = outcome.staging.network
        if report { printReport(outcome) }
        let live = n.stations.count(where: \.enabled)
        var summary = "ingest: \(n.operators.count) operators, \(n.lines.count) lines, \(n.stations.count) stations (\(live) live), \(n.stationLines.count) station-line rows"
        let newStations = outcome.report.newIDs[.station] ?? 0, gone = outcome.report.vanished[.station] ?? 0
        if newStations > 0 || gone > 0 { summary += "; \(newStations) new station IDs, \(gone) vanished stations kept disabled" }
        if !outcome.report.disagreements.isEmpty { summary += "; \(outcome.report.disagreements.count) disagreements between sources (see --report)" }
        for w in outcome.report.warnings { note("warning: \(w)") }
        if check {
            note(summary + " (checked; nothing written)")
            return
        }
        try IngestPipeline.publish(outcome, stagingPath: out, registryPath: options.registryPath)
        note(summary + " -> \(out)")
        if let lint {
            let report = try Lint.check(sourceFindings: sourceFindings, fixes: fixes, outcome, options: options,
                                        handWeights: hand ?? joinPath(raw, "weights.csv"))
            try AtomicFile.write(try report.json(), to: lint)
            note("lint: \(report.summary) in \(raw)" + (report.count > 0 ? "; `make lint` lists them" : ""))
        }
    }

    func printReport(_ outcome: IngestOutcome) {
        let d = outcome.report.disagreements
        print("# Disagreements between sources (\(outcome.report.sources.joined(separator: " > ")); the first wins)")
        if d.isEmpty { print("none"); return }
        for kind in [Disagreement.Kind.name, .coordinates, .prefecture] {
            let rows = d.filter { $0.kind == kind }
            if rows.isEmpty { continue }
            print("\n## \(kind.rawValue) (\(rows.count))")
            for r in rows { print(r.description) }
        }
    }
}
