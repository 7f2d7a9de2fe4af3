import ArgumentParser
import FoundationEssentials
import Ingest
import Publishing
import StationCore

struct IngestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "Read the station sources in raw/ and write the validated staging file.",
        discussion: Help.text(PackageResources.ingest_txt))

    @OptionGroup var source: RawOptions

    @Option(help: "Where to write the staging file.")
    var out: String = "build/staging.bin"

    @Flag(help: "List where the sources disagree (names, coordinates more than 300 m apart, prefectures) on stdout.")
    var report = false

    @Flag(help: "Validate only: write neither the staging file nor the registry.")
    var check = false

    @Option(help: "Also check the values as `stationdb lint` does and write its JSON report here (what make does).")
    var lint: String?

    @Option(help: "Hand weights for --lint (default: RAW/weights.csv when present).")
    var hand: String?

    func run() async throws {
        let outcome = try await IngestStage(options: source.ingest, staging: out, lint: lint, hand: hand).run(check: check).outcome
        if report { printDisagreements(outcome.report) }
    }

    func printDisagreements(_ report: IngestReport) {
        let d = report.disagreements
        print("# Disagreements between sources (\(report.sources.joined(separator: " > ")); the first wins)")
        if d.isEmpty { print("none"); return }
        for kind in [Disagreement.Kind.name, .coordinates, .prefecture] {
            let rows = d.filter { $0.kind == kind }
            if rows.isEmpty { continue }
            print("\n## \(kind.rawValue) (\(rows.count))")
            for r in rows { print(r.description) }
        }
    }
}
