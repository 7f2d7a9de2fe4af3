import ArgumentParser
import BuildDB
import Foundation
import StationModel

struct BuildCommand: ParsableCommand {
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

        Example:
          stationdb build --staging build/staging.sqlite --weights build/weights.csv
          stationdb build --dist dist --version 12 --renumbered raw/renumbered.csv

        Exit status: 0 published or unchanged, 2 bad input (a station without a
        weight, a bad renumbering, a version that does not grow), 3 I/O failure.
        """)

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.sqlite"

    @Option(help: "Station weights (s_id,weight; 1..13) from `stationdb priority`.")
    var weights = "build/weights.csv"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @Option(help: "Renumbered stations CSV (new_s_id,old_s_id,version). Default: raw/renumbered.csv when present.")
    var renumbered: String?

    @Option(name: .customLong("version"), help: "Version to publish (VERSION=N); must be larger than the published one.")
    var requestedVersion: Int?

    func run() throws {
        // The two inputs are independent: read the weights while the staging file loads.
        let weightsPath = self.weights
        let weightsRead = Background { try StationWeightsFile.read(from: weightsPath) }
        let staging = try StagingFile.read(from: self.staging)
        let weights = try weightsRead.value()
        var renumberings: [Renumbering: SourceLocation] = [:]
        if let path = renumbered ?? (FileManager.default.fileExists(atPath: RenumberingFile.defaultPath) ? RenumberingFile.defaultPath : nil) {
            renumberings = try RenumberingFile.read(from: path)
        }
        let request = BuildRequest(staging: staging, stagingPath: self.staging, weights: weights, weightsPath: self.weights,
                                   renumberings: renumberings, dist: dist, requestedVersion: requestedVersion)
        switch try BundleBuilder().build(request) {
        case .unchanged(let version):
            note("unchanged (version \(version))")
        case .published(let bundle):
            note("published version \(bundle.version): \(bundle.countsText); \(bundle.changesText)")
        }
    }
}
