import Foundation
import StationCore

/// All of Japan as a publish sees it: the repository's raw/ (the upstream's release, the
/// registry, the fixes) through `stationdb ingest`, the binary built beside the tests, into a
/// staging file of the test process's own. Made once per test process, when first asked for,
/// and shared by every test target that wants the national network, whichever stage it tests.
package enum NationalNetwork {
    private static let ingested = Task { () throws -> Staging in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("national-\(getpid())").path
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let staging = folder + "/staging.bin"
        let run = try runWithTimeout(try BuiltTools.stationdb(), ["ingest", "--raw", RepositoryData.raw, "--out", staging], in: folder, timeout: 300)
        guard run.status == 0 else { throw BuiltTools.FixtureFailure("stationdb ingest of raw/ failed (exit \(run.status)): \(run.err)") }
        return try StagingFile.read(from: staging)
    }

    package static func staging() async throws -> Staging { try await ingested.value }
    package static func network() async throws -> RailNetwork { try await ingested.value.network }
}
