import ArgumentParser
import BundleDiff
import StationIO
import StationModel

extension DiffFormat: ExpressibleByArgument {}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two station bundles, and check the nightly's guards.",
        discussion: """
        OLD and NEW are each a bundle .sqlite file (any database with the tables
        of bundle.md: older bundles with a completions table or without indexes
        are fine), a dist folder (its latest.json names the published version)
        or a version folder (dist/<v>, with manifest.json and stations.sqlite).

        Rows are matched by key: o_id, l_id, s_id, and (l_id, s_id) for
        stations_lines, so the order rows were inserted in is never a
        difference. Each added, removed or changed row is named (station, line,
        operator); a change lists old -> new per column, lat/lng in degrees with
        the move in metres. The summary counts removed, disabled and moved
        stations and the weight changes (old -> new).

        Formats (--format):
          text      for a terminal (default); at most --limit rows per list
          markdown  tables for a CI comment; at most --limit rows per list
          json      everything, never cut; schema below
          sql       the line-oriented patch BuildDB publishes: applied to OLD
                    (as the Android client does) it gives NEW's contents

        JSON schema (keys sorted, as in every JSON file stationdb writes; rows
        sorted by key):
          {"format": "stationdb-diff", "format_version": 2,
           "old": {"label", "version"}, "new": {"label", "version"},
           "same": bool,
           "tables": [ one per table: operators, lines, stations,
                       stations_lines, renumbered_stations
             {"table", "key": [columns], "old_rows", "new_rows",
              "table_added", "table_removed",
              "added":   [{"key": {column: value}, "name",
                           "row": {column: value}}],
              "removed": [{"key", "name", "row"}],
              "changed": [{"key", "name",
                           "columns": {column: {"old", "new"}},
                           "moved_m"?}]}],
           "summary": {"stations_old", "stations_removed", "removed_percent",
                       "stations_enabled_old", "stations_disabled",
                       "stations_reenabled", "disabled_percent",
                       "stations_moved", "max_moved_m",
                       "stations_live_in_both", "weight_churn",
                       "weight_churn_percent",
                       "weight_changes": [{"old", "new", "stations"}]},
           "guard_violations": [string]}
          Values are SQL values (lat/lng integer micro-degrees); "moved_m" only
          on stations whose lat/lng changed; percentages are rounded to 4
          decimals, metres to 1.

        Guards (none unless given); a limit is exceeded when the figure is
        above it:
          --max-removed PCT        stations, lines or operators removed, each
                                   as a share of OLD's
          --max-disabled PCT       stations, lines or operators going enabled
                                   1 -> 0, each as a share of OLD's enabled
          --max-line-rows-removed PCT
                                   stations_lines rows removed / OLD's rows
          --max-moved-m METRES     any station moved further than this
          --max-weight-churn PCT   live stations (enabled in both) whose
                                   weight changed / live stations in both
        `stationdb build` checks the same guards against the published version
        before it publishes (defaults: removed 2%, disabled 2%, line rows
        removed 5%, moved 5000 m, weight churn 10%) and refuses with exit 4;
        `make FORCE_PUBLISH=1` (build --force) publishes a big intended change
        anyway.

        Examples:
          stationdb diff dist/3 dist        # version 3 against the published one
          stationdb diff old.sqlite new.sqlite --format markdown > comment.md
          stationdb diff dist/3 dist/4 --format sql > patch.sql
          stationdb diff dist new.sqlite --max-removed 2 --max-moved-m 5000

        Exit status: 0 same contents, 1 they differ, 2 error (a missing path,
        not a bundle, a FIFO or anything but a file), 3 a damaged dist (the
        database its latest.json names is missing), 4 a guard was exceeded
        (the output is printed first, the reasons go to stderr).
        """)

    @Argument(help: "The old side: a bundle .sqlite, a dist folder or a version folder.")
    var old: String

    @Argument(help: "The new side, likewise.")
    var new: String

    @Option(help: "Output format: text, markdown, json or sql.")
    var format: DiffFormat = .text

    @Option(help: "Rows listed per table and kind (added, removed, changed) in text and markdown.")
    var limit = 50

    @Option(name: .customLong("max-removed"), help: ArgumentHelp("Refuse (exit 4) when more than PCT % of OLD's stations, lines or operators are removed.", valueName: "PCT"))
    var maxRemoved: Double?

    @Option(name: .customLong("max-disabled"), help: ArgumentHelp("Refuse when more than PCT % of OLD's enabled stations, lines or operators are disabled.", valueName: "PCT"))
    var maxDisabled: Double?

    @Option(name: .customLong("max-line-rows-removed"), help: ArgumentHelp("Refuse when more than PCT % of OLD's stations_lines rows are removed.", valueName: "PCT"))
    var maxLineRowsRemoved: Double?

    @Option(name: .customLong("max-moved-m"), help: ArgumentHelp("Refuse when a station moved further than METRES.", valueName: "METRES"))
    var maxMovedMetres: Double?

    @Option(name: .customLong("max-weight-churn"), help: ArgumentHelp("Refuse when more than PCT % of live stations changed weight.", valueName: "PCT"))
    var maxWeightChurn: Double?

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
        for (name, value) in [("--max-removed", maxRemoved), ("--max-disabled", maxDisabled), ("--max-line-rows-removed", maxLineRowsRemoved),
                              ("--max-moved-m", maxMovedMetres), ("--max-weight-churn", maxWeightChurn)] {
            if let value, !(value >= 0) { throw ValidationError("\(name) must be a number of 0 or more") }
        }
    }

    func run() throws {
        let oldSide = try BundleLocation.resolve(old)
        let newSide = try BundleLocation.resolve(new)
        let report = try DiffReport.make(old: oldSide, new: newSide)
        let guards = DiffGuards(maxRemovedPercent: maxRemoved, maxDisabledPercent: maxDisabled, maxLineRowsRemovedPercent: maxLineRowsRemoved,
                                maxMovedMetres: maxMovedMetres, maxWeightChurnPercent: maxWeightChurn)
        let violations = guards.violations(of: report.summary)
        StandardStream.output.write(report.render(format, limit: limit, guardViolations: violations))
        if !violations.isEmpty { throw GuardRefusal(violations) }
        if !report.difference.isEmpty { throw ReportedFailure(status: .differences) }
    }
}
