import ArgumentParser
import BuildDB
import BundleDiff
import FoundationEssentials
import StationIO
import StationModel

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the station bundle from the staging file and weights, and publish it into dist/.",
        discussion: """
        Writes dist/<version>/ (stations.sqlite, stations.sqlite.gz, manifest.json,
        patch-from-<previous>.sql, summary.txt) in a temporary folder, flushes it,
        renames it into place and replaces dist/latest.json last, so a failure at any
        point leaves the published version as it was.

        The version is the one in dist/latest.json plus 1, or --version N when N is
        larger (a smaller or equal N is an error). When the tables come out equal to
        the published version's, nothing is written and it says "unchanged".

        raw/renumbered.csv (new_s_id,old_s_id,version) lists stations that replaced
        earlier s_ids; every pair ever published stays in it, and a new pair carries
        the version being built.

        Before anything is written, the new bundle is compared with the published
        one (as `stationdb diff` does) and the guards are checked; when one is
        exceeded, the reasons are printed, nothing is published and the exit status
        is 4. Defaults, for the nightly: --max-removed 2 (% of the published
        stations removed), --max-disabled 2 (% of its enabled stations disabled),
        --max-moved-m 5000 (any station moved further), --max-weight-churn 10 (% of
        the stations enabled in both whose weight changed). The first version has
        nothing to compare with and is never refused. A maintainer who has checked
        the reasons publishes a big intended change with --force, which
        `make FORCE_PUBLISH=1` passes.

        Example:
          stationdb build --staging build/staging.bin --weights build/weights.csv
          stationdb build --dist dist --version 12 --renumbered raw/renumbered.csv
          stationdb build --max-removed 5 --max-moved-m 20000
          stationdb build --force            # or: make FORCE_PUBLISH=1

        Exit status: 0 published or unchanged, 2 bad input (a station without a
        weight, a bad renumbering, a version that does not grow), 3 I/O failure,
        4 a guard refused to publish.
        """)

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Station weights (s_id,weight; 1..13) from `stationdb priority`.")
    var weights = "build/weights.csv"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @Option(help: "Renumbered stations CSV (new_s_id,old_s_id,version). Default: raw/renumbered.csv when present.")
    var renumbered: String?

    @Option(name: .customLong("version"), help: "Version to publish (VERSION=N); must be larger than the published one.")
    var requestedVersion: Int?

    @Option(name: .customLong("max-removed"), help: ArgumentHelp("Refuse to publish when more than PCT % of the published stations are removed.", valueName: "PCT"))
    var maxRemoved = DiffGuards.nightly.maxRemovedPercent!

    @Option(name: .customLong("max-disabled"), help: ArgumentHelp("Refuse when more than PCT % of the published enabled stations are disabled.", valueName: "PCT"))
    var maxDisabled = DiffGuards.nightly.maxDisabledPercent!

    @Option(name: .customLong("max-moved-m"), help: ArgumentHelp("Refuse when a station moved further than METRES.", valueName: "METRES"))
    var maxMovedMetres = DiffGuards.nightly.maxMovedMetres!

    @Option(name: .customLong("max-weight-churn"), help: ArgumentHelp("Refuse when more than PCT % of the stations enabled in both changed weight.", valueName: "PCT"))
    var maxWeightChurn = DiffGuards.nightly.maxWeightChurnPercent!

    @Flag(help: "Publish even when a guard is exceeded (make FORCE_PUBLISH=1).")
    var force = false

    @Option(help: "The report of `stationdb lint --out`: its count of warnings goes into latest.json and the summary.")
    var lint: String?

    func validate() throws {
        for (name, value) in [("--max-removed", maxRemoved), ("--max-disabled", maxDisabled),
                              ("--max-moved-m", maxMovedMetres), ("--max-weight-churn", maxWeightChurn)] where !(value >= 0) {
            throw ValidationError("\(name) must be a number of 0 or more")
        }
    }

    func run() async throws {
        let staging = try StagingFile.read(from: self.staging)
        let weights = try StationWeightsFile.read(from: self.weights)
        var renumberings: [Renumbering: SourceLocation] = [:]
        if let path = renumbered ?? (Files.exists(RenumberingFile.defaultPath) ? RenumberingFile.defaultPath : nil) {
            renumberings = try RenumberingFile.read(from: path)
        }
        let request = BuildRequest(staging: staging, stagingPath: self.staging, weights: weights, weightsPath: self.weights,
                                   renumberings: renumberings, dist: dist, requestedVersion: requestedVersion,
                                   guards: DiffGuards(maxRemovedPercent: maxRemoved, maxDisabledPercent: maxDisabled,
                                                      maxMovedMetres: maxMovedMetres, maxWeightChurnPercent: maxWeightChurn),
                                   force: force, lintWarnings: try lint.map(Self.lintCount))
        let outcome: BuildOutcome
        do {
            outcome = try await BundleBuilder().build(request)
        } catch let refusal as GuardRefusal {
            note("nothing was published (\(dist) is as it was); if this change is intended, publish it with `make FORCE_PUBLISH=1` (stationdb build --force)")
            throw refusal
        }
        switch outcome {
        case .unchanged(let version):
            note("unchanged (version \(version))")
        case .published(let bundle, let difference):
            let warnings = bundle.warnings.map { "; \($0) lint warning\($0 == 1 ? "" : "s")" } ?? ""
            note("published version \(bundle.version): \(BundleBuilder.countsText(bundle.rows)); \(BundleBuilder.changesText(difference))\(warnings)")
        }
    }

    /// The count of a lint report (`stationdb lint --out`).
    static func lintCount(_ path: String) throws -> Int {
        struct Report: Decodable { var count: Int }
        do {
            return try JSONDecoder().decode(Report.self, from: Data(try Files.read(path))).count
        } catch let error as DecodingError {
            throw InputError(SourceLocation(file: path, field: error.keyPath), "not a lint report (\(error.reason)); write one with `stationdb lint --out`")
        }
    }
}
