import Foundation
import Glibc
import XCTest
import Ingest
import StationCore
import TestSupport

/// All of Japan, from this repository only: Tests/Fixtures/ekidata, and the same stations
/// as an N02 document. The N02 document is not stored (about 12 MB); Synth
/// writes it as `stationdb synth --scale 1` does, once per test process, into a
/// temporary folder removed when the process exits.
enum NationalData {
    /// The national ekidata folder (Tests/Fixtures/ekidata).
    static var ekidata: String { RepositoryData.ekidata }

    /// A raw folder at `folder` with a copy of Tests/Fixtures/ekidata as `ekidata` (raw/ may hold no link
    /// that leaves it) and the given sources.json (by default ekidata alone, as bench/run's
    /// ekidata-raw): ingest reads it without the repository's registry or fixes.
    static func makeEkidataRaw(at folder: String, sources: String = #"{ "sources": [ { "kind": "ekidata", "path": "ekidata" } ] }"#) throws {
        try Files.createFolder(folder)
        try FileManager.default.copyItem(atPath: ekidata, toPath: folder + "/ekidata")
        try Files.write(Array(sources.utf8), to: folder + "/sources.json")
    }

    struct N02Document: Sendable {
        /// The N02-stations.xml written.
        var path: String
        /// The network it lays out: the ekidata fixture as ingest reads it, stations numbered afresh.
        var network: RailNetwork
        /// Its ksj:Station features, one per station-on-line row.
        var features: Int
    }

    /// The temporary folder the document is written into, one per test process.
    static let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("stationdb-national-\(getpid())").path

    /// Started when first asked for, and only then; every later caller awaits the same document.
    private static let written = Task { try await writeN02() }

    static func n02() async throws -> N02Document { try await written.value }

    private static func writeN02() async throws -> N02Document {
        let started = Date()
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: NationalData.folder) }
        let raw = folder + "/ekidata-raw"
        try makeEkidataRaw(at: raw)
        // An absent registry numbers the stations afresh, as bench/run's synth does.
        let network = try await IngestPipeline.run(IngestOptions(rawFolder: raw, registryPath: folder + "/no-registry.csv")).staging.network
        let path = folder + "/N02-stations.xml"
        let features = try Synth(national: network, config: SynthConfig(scale: 1)).writeN02(path: path)
        // What every test process pays for not storing the document.
        print("NationalData: ingest of the ekidata fixture and Synth's N02 document (\(features) stations) took "
              + String(format: "%.2f", Date().timeIntervalSince(started)) + " s")
        return N02Document(path: path, network: network, features: features)
    }
}
