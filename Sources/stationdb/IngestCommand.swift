import ArgumentParser
import FoundationEssentials
import Ingest
import Lint
import Publishing
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
        source wins field by field. IDs come from RAW/registry.csv: a new station
        gets a new s_id, a vanished one keeps its s_id and is published
        disabled, and no ID is ever reused. The registry with the new IDs is
        left beside the staging file (<out>.registry.csv); `stationdb build`
        copies it into RAW/registry.csv once the version is published.
        RAW/fixes.csv, if present, is applied last, row by row in file order.

        Fixes (RAW/fixes.csv; a header names the columns):
          action  set, move, disable or enable
          table   operators, lines or stations (move: stations only)
          match   column=value[;column=value]: the one row the fix is for, by
                  columns of its table (values without outer blanks; lat/lng
                  with 6 decimals)
          field   set: the column to change (not the id); else empty
          value   set: the new value; text kept exactly as written, numbers as
                  integers (pref 1..47, type 1..99, l_type 0..99 or empty,
                  o_id an existing operator, enabled 0 or 1), lat/lng in
                  decimal degrees; move: "lat lng"; disable/enable: empty
          expect  optional, like match: what the row holds before the fix
          note    optional, for people
        One example per action:
          action,table,match,field,value,expect,note
          set,stations,s_id=1273,yomi,とうきょう,station=東京,reading
          move,stations,s_id=1273,,35.681236 139.767125,station=東京,centre
          disable,lines,l_id=2,,,line=東海道新幹線,no stations in the data
          enable,operators,o_id=4,,,operator=北海道ちほく高原鉄道,reopened
        Errors at their line, all of them at once, in file order: a fix
        matching no row (a mistyped ID or name, or a row the sources dropped:
        the nearest IDs or names are named) or several (ambiguous), an
        unknown action, table, field or column, an expect the row does not meet, two fixes giving one
        field of one row different values (both lines named), a result outside
        Japan or naming a missing operator. `stationdb lint` lists fixes that
        move a station over 1 km or rename one.

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
        let outcome = try await IngestStage(options: options, staging: out, lint: lint, hand: hand).run(check: check)
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
