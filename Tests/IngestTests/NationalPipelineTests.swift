import XCTest
import StationIO
import StationModel
@testable import Ingest

/// The whole Ingest stage on all of Japan: ekidata first, N02 second, merged
/// through the station codes both carry, IDs stable from one run to the next.
final class NationalPipelineTests: XCTestCase {
    func sharedData() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let data = root.deletingLastPathComponent().appendingPathComponent("shared/data").path
        guard FileManager.default.fileExists(atPath: data + "/ekidata/station.csv"),
              FileManager.default.fileExists(atPath: data + "/ksj/N02-stations.xml") else {
            throw XCTSkip("../shared/data is absent: the national pipeline run is skipped")
        }
        return data
    }

    func testEkidataAndN02MergeIntoOneNetworkWithStableIDs() async throws {
        let data = try sharedData()
        let raw = FileManager.default.temporaryDirectory.appendingPathComponent("national-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try FileManager.default.createSymbolicLink(atPath: raw + "/ekidata", withDestinationPath: data + "/ekidata")
        try FileManager.default.createSymbolicLink(atPath: raw + "/N02.xml", withDestinationPath: data + "/ksj/N02-stations.xml")
        try #"{"sources":[{"kind":"ekidata","path":"ekidata"},{"kind":"n02","path":"N02.xml"}]}"#
            .write(toFile: raw + "/sources.json", atomically: true, encoding: .utf8)

        let options = IngestOptions(rawFolder: raw, rawLabel: "raw")
        let first = try await IngestPipeline.run(options)
        let n = first.staging.network
        // N02 carries ekidata's station codes: every one of its stations joins an ekidata station.
        XCTAssertEqual(n.stations.count, 9_768)
        XCTAssertEqual(n.stations.filter(\.enabled).count, 9_521)
        XCTAssertEqual(n.operators.count, 170)
        XCTAssertEqual(n.lines.count, 616)
        XCTAssertEqual(n.stationLines.count, 10_830)
        XCTAssertEqual(first.report.disagreements.count, 0, "the N02 file was laid out from the same stations")
        XCTAssertEqual(first.staging.meta.keys.sorted().first, "source:N02.xml")

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
