import Foundation
import StationCore

/// The apps' own master in its own conventions: Tests/Fixtures/apps_master.py run on the
/// upstream's release v20260227 (the master and the truth of its IDs), and the hand weights
/// apps_weights.py makes on it the way the apps' maintainer made his (a stand-in: the apps'
/// own weights are not in the repository).
package enum AppsMaster {
    package static func write(into folder: String) throws -> (folder: String, truth: ByKind<[Int: Set<String>]>) {
        let master = folder + "/master", truthPath = folder + "/truth.csv"
        try python("apps_master.py", [RepositoryData.root + "/Tests/Fixtures/station_database/v20260227", master, truthPath])
        let table = try CSVReader.read(path: truthPath)
        var truth = ByKind<[Int: Set<String>]>([:])
        for r in table.records {
            let kind = Registry.Kind(rawValue: table.string(r, table.column("kind")))!
            let id = Int(table.string(r, table.column("id")))!
            let keys = Set(table.string(r, table.column("keys")).split(separator: "|").map(String.init))
            truth.modify(kind) { $0[id] = keys }
        }
        return (master, truth)
    }

    private static func python(_ script: String, _ arguments: [String]) throws {
        let python = try BuiltTools.required("python3", debianPackage: "python3")
        let run = try runWithTimeout(python, [RepositoryData.root + "/Tests/Fixtures/" + script] + arguments, in: RepositoryData.root, timeout: 120)
        guard run.status == 0 else { throw BuiltTools.FixtureFailure("Tests/Fixtures/\(script) failed (exit \(run.status)): \(run.err)") }
    }

    /// The master published, raw/ switched to the upstream (docs/maintaining.md: every s_id the
    /// two share is kept), and the maintainer's hand weights on it: the network after the switch
    /// and the weights as read from their file. Made once per test process, by the stationdb
    /// built beside the tests.
    package static func switched() async throws -> (network: RailNetwork, hand: [HandWeight]) { try await made.value }

    private static let made = Task { () throws -> (network: RailNetwork, hand: [HandWeight]) in
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apps-weights-\(getpid())").path
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let master = try write(into: folder).folder
        try python("apps_weights.py", [master, folder + "/weights.csv"])
        for (raw, registry, out) in [(master, folder + "/none.csv", "master.bin"), (RepositoryData.raw, folder + "/master.bin.registry.csv", "switched.bin")] {
            let run = try runWithTimeout(try BuiltTools.stationdb(), ["ingest", "--raw", raw, "--registry", registry, "--out", out], in: folder, timeout: 300)
            guard run.status == 0 else { throw BuiltTools.FixtureFailure("stationdb ingest of \(raw) failed (exit \(run.status)): \(run.err)") }
        }
        let network = try StagingFile.read(from: folder + "/switched.bin").network
        return (network, try HandWeights.read(path: folder + "/weights.csv", label: "apps' weights.csv", network: network).weights)
    }
}
