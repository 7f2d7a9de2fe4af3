import ArgumentParser
import BuildDB
import BundleDiff
import Publishing
import FoundationEssentials
import StationIO
import StationModel

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the station bundle from the staging file and weights, and publish it into dist/.",
        discussion: """
        Writes dist/<version>/ (stations.sqlite, stations.sqlite.gz, manifest.json,
        patch-from-<previous>.sql, summary.txt, registry.csv) in a temporary
        folder, flushes it, renames it into place and replaces dist/latest.json
        last, so a failure at any point leaves the published version as it was.
        It holds dist/.lock meanwhile: a second publish into the dist waits.

        The version is one above every version in dist (latest.json's, and any
        folder a dead publish left), or --as-version N when N is larger still. When
        the tables come out equal to the published version's, nothing is
        written and it says "the bundle equals the published version N".
        Once a version is published, raw/registry.csv takes the registry that
        ingest left beside the staging file.

        raw/renumbered.csv (new_s_id,old_s_id,version) lists stations that
        replaced earlier s_ids; every pair ever published stays in it, and a new
        pair carries the version being built.

        Every o_id, l_id and s_id of the published version must be in the new
        one (or renumbered in renumbered.csv), under every key its registry
        held: a damaged registry is bad input (exit 2), --force or not.

        Then the new bundle is compared with the published one (as `stationdb
        diff` does) and the guards are checked; when one is exceeded, the
        reasons are printed, nothing is published and the exit status is 4.
        Defaults, for the nightly: --max-removed 2 (% of the published
        stations, lines or operators removed), --max-disabled 2 (% of its
        enabled stations, lines or operators disabled), --max-line-rows-removed
        5 (% of its stations_lines rows removed), --max-moved-m 5000 (any
        station moved further), --max-weight-churn 10 (% of the stations
        enabled in both whose weight changed). Refused like them, and passed by
        --force too: more than a tenth of the published version's hand
        weights (1..10) gone at once (an emptied or cut weights.csv), and, on
        any version, the first included, a live line on which no live station
        lies (the apps would list it empty). The guards against the published
        version never refuse a first version. A maintainer who has checked the
        reasons publishes a big intended change with --force, which `make
        FORCE_PUBLISH=1` passes.

        Examples:
          stationdb build --staging build/staging.bin \\
            --weights build/weights.csv --lint build/lint.json --dist dist
          stationdb build --as-version 12 --renumbered raw/renumbered.csv
          stationdb build --max-disabled 5 --max-moved-m 20000
          stationdb build --force            # or: make FORCE_PUBLISH=1

        Exit status: 0 published or unchanged, 2 bad input (a station without
        a weight, a bad renumbering, a lost ID, a version that does not grow),
        3 I/O failure, 4 a guard refused to publish.
        """)

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Station weights (s_id,weight; 1..13) from `stationdb priority`.")
    var weights = "build/weights.csv"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @Option(help: "The raw folder: its renumbered.csv and registry.csv are the defaults of --renumbered and --registry.")
    var raw = "raw"

    @Option(help: "Renumbered stations CSV (new_s_id,old_s_id,version). Default: RAW/renumbered.csv when present.")
    var renumbered: String?

    @Option(help: "The ID registry (default: RAW/registry.csv when RAW is a folder): once the version is published it takes the registry ingest left beside the staging file.")
    var registry: String?

    @OptionGroup var guardOptions: GuardOptions<Publishes>

    @Option(help: "The report of `stationdb lint --out`: its count of warnings goes into latest.json and the summary.")
    var lint: String?

    func run() async throws {
        let defaultRenumbered = joinPath(raw, RenumberingFile.fileName)
        let renumbered = renumbered ?? (Files.exists(defaultRenumbered) ? defaultRenumbered : nil)
        let registry = registry ?? (Files.isFolder(raw) ? joinPath(raw, Registry.fileName) : nil)
        let result = try await BuildStage(staging: staging, weights: weights, dist: dist, renumbered: renumbered, registry: registry, lint: lint,
                                          requestedVersion: guardOptions.requestedVersion, guards: guardOptions.guards).run(force: guardOptions.force)
        if result.exitStatus != .success { throw ReportedFailure(status: result.exitStatus) }
    }
}
