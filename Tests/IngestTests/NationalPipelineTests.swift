import XCTest
import Ingest
import StationCore

/// The whole Ingest stage on all of Japan: ekidata first, the N02 document of
/// the same stations second, merged into one network, IDs stable from one run
/// to the next.
final class NationalPipelineTests: XCTestCase {
    func testEkidataAndN02MergeIntoOneNetworkWithStableIDs() async throws {
        let document = try await NationalData.n02()
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("national-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try NationalData.makeEkidataRaw(at: raw, sources: #"{"sources":[{"kind":"ekidata","path":"ekidata"},{"kind":"n02","path":"N02.xml"}]}"#)
        try FileManager.default.copyItem(atPath: document.path, toPath: raw + "/N02.xml")

        let options = IngestOptions(rawFolder: raw, rawLabel: "raw")
        let first = try await IngestPipeline.run(options)
        let n = first.staging.network
        // Synth's station codes are not ekidata's, so N02's stations join ekidata's by name
        // within a kilometre: every one joins (none is added, no link doubled), and the
        // merged network is ekidata's, whose N02 document this is.
        let ekidata = try EkidataReader.read(folder: NationalData.ekidata, label: "ekidata")
        XCTAssertEqual(n.stations.count, ekidata.stations.count)
        XCTAssertEqual(n.stations.filter(\.enabled).count, ekidata.stations.count { $0.enabled == true })
        XCTAssertEqual(n.operators.count, ekidata.operators.count)
        XCTAssertEqual(n.lines.count, ekidata.lines.count)
        XCTAssertEqual(n.stationLines.count, ekidata.stationLines.count)
        XCTAssertEqual(first.report.disagreements.count, 0, "the N02 document was laid out from the same stations")
        XCTAssertEqual(first.staging.meta.keys.sorted().first, "source:N02.xml")
        XCTAssertEqual(Set(n.stations.map(\.id)).count, n.stations.count)
        XCTAssertTrue(n.stations.allSatisfy { MicroDegrees.inJapan(lat: $0.lat, lng: $0.lng) })

        try AtomicFile.write(first.registryText, to: options.registryPath)
        try StagingFile.write(first.staging, to: raw + "/staging.bin")
        let again = try await IngestPipeline.run(options)
        XCTAssertEqual(again.staging.network, n, "a second run over the registry changes nothing")
        XCTAssertEqual(try again.registry, try first.registry)
        XCTAssertEqual(again.report.newIDs[.station], 0)
        XCTAssertEqual(try StagingFile.read(from: raw + "/staging.bin").network, n)
        // Nothing new: the registry after the run is the file it read, byte for byte.
        XCTAssertEqual(again.staging.meta, first.staging.meta)
        XCTAssertEqual(again.registryText, try Files.read(options.registryPath))
    }
}
