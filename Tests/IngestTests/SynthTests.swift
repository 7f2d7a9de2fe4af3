import Foundation
import XCTest
import Ingest
import StationCore

/// `stationdb synth`: the bench's inputs must be what ingest accepts, the same
/// every time, and shaped like the national network.
final class SynthTests: XCTestCase {
    /// Two operators, two lines, four stations: one disabled, one on no line.
    let small = RailNetwork(
        operators: [Operator(id: 1, name: "JR東日本", type: 1), Operator(id: 2, name: "東京地下鉄", type: 2)],
        lines: [Line(id: 10, name: "山手線", operatorID: 1), Line(id: 11, name: "東北新幹線", operatorID: 1, type: 1),
                Line(id: 20, name: "銀座線", operatorID: 2)],
        stations: [
            Station(id: 1, name: "東京", yomi: "とうきょう", wiki: "https://ja.wikipedia.org/wiki/東京駅", pref: 13,
                    address: "千代田区丸の内一丁目", lat: 35_681_236, lng: 139_767_125, operatorID: 1),
            Station(id: 2, name: "神田", yomi: "かんだ", pref: 13, address: "千代田区, 鍛冶町", lat: 35_691_690, lng: 139_770_883, operatorID: 1),
            Station(id: 3, name: "上野", yomi: "うえの", pref: 13, lat: 35_713_768, lng: 139_777_254, operatorID: 2, enabled: false),
            Station(id: 7, name: "離れ", pref: 47, lat: 24_340_000, lng: 124_155_000, operatorID: 2),
        ],
        stationLines: [StationLine(lineID: 10, stationID: 1, sort: 1), StationLine(lineID: 10, stationID: 2, sort: 2),
                       StationLine(lineID: 11, stationID: 1, sort: 1), StationLine(lineID: 20, stationID: 2, sort: 1),
                       StationLine(lineID: 20, stationID: 3, sort: 2)])

    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stationdb-synth-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    func testScaleOneIngestsToTheSameNetwork() async throws {
        let folder = temporaryFolder()
        let counts = try Synth(national: small, config: SynthConfig(scale: 1)).writeNative(folder: folder)
        XCTAssertEqual(counts.stations, 4)
        let outcome = try await IngestPipeline.run(IngestOptions(rawFolder: folder, registryPath: folder + "/registry.csv"))
        var expected = small
        expected.sortByKey()
        XCTAssertEqual(outcome.staging.network, expected)
    }

    func testCopiesFollowTheirLinesWithNewIDs() async throws {
        let folder = temporaryFolder()
        let synth = Synth(national: small, config: SynthConfig(scale: 12))
        XCTAssertEqual(synth.stationStride, 10)
        XCTAssertEqual(synth.lineStride, 100)
        let counts = try synth.writeNative(folder: folder)
        XCTAssertEqual(counts.operators, 2)
        XCTAssertEqual(counts.lines, 36)
        XCTAssertEqual(counts.stations, 48)
        XCTAssertEqual(counts.stationLines, 60)

        let network = try await IngestPipeline.run(IngestOptions(rawFolder: folder, registryPath: folder + "/registry.csv")).staging.network
        XCTAssertEqual(network.stations.count, 48)
        XCTAssertEqual(Set(network.stations.map(\.id)).count, 48)
        XCTAssertTrue(network.stations.allSatisfy { MicroDegrees.inJapan(lat: $0.lat, lng: $0.lng) })
        XCTAssertEqual(network.stations.filter { !$0.enabled }.count, 12)

        // Copy 11 of 東京 (s_id 1 + 11 * 10): on the way to 神田, its neighbour on 山手線, within ~250 m sideways.
        let copy = try XCTUnwrap(network.stations.first { $0.id == 111 })
        XCTAssertEqual(copy.name, "東京西西")   // 11: digit words 1, 1
        XCTAssertEqual(copy.yomi, "とうきょうにしにし")
        XCTAssertEqual(copy.wiki, "")
        XCTAssertEqual(copy.pref, 13)
        XCTAssertGreaterThan(copy.lat, 35_681_236 - 2_600)
        XCTAssertLessThan(copy.lat, 35_691_690 + 2_600)
        XCTAssertLessThan(MicroDegrees.distanceMetres(lat1: copy.lat, lng1: copy.lng, lat2: 35_686_000, lng2: 139_769_000), 1_200)
        // The copy is on the copies of its lines, in the same place.
        let rows = network.stationLines.filter { $0.stationID == 111 }.map { [$0.lineID, $0.sort] }
        XCTAssertEqual(rows, [[1110, 1], [1111, 1]])
        let line = try XCTUnwrap(network.lines.first { $0.id == 1111 })
        XCTAssertEqual(line.name, "東北新幹線(西西支線)")
        XCTAssertEqual(line.type, 1)
        XCTAssertEqual(line.operatorID, 1)
        // The station on no line stays within ~1.5 km of where it was.
        let far = try XCTUnwrap(network.stations.first { $0.id == 57 })
        XCTAssertLessThan(MicroDegrees.distanceMetres(lat1: far.lat, lng1: far.lng, lat2: 24_340_000, lng2: 124_155_000), 1_600)
    }

    func testSameInputSameBytes() throws {
        let a = temporaryFolder(), b = temporaryFolder()
        try Synth(national: small, config: SynthConfig(scale: 5, seed: 9)).writeNative(folder: a)
        try Synth(national: small, config: SynthConfig(scale: 5, seed: 9)).writeN02(path: a + "/n02.xml")
        try Synth(national: small, config: SynthConfig(scale: 5, seed: 9)).writeNative(folder: b)
        try Synth(national: small, config: SynthConfig(scale: 5, seed: 9)).writeN02(path: b + "/n02.xml")
        for name in NativeCSVReader.files + ["n02.xml"] {
            XCTAssertEqual(FileManager.default.contents(atPath: a + "/" + name), FileManager.default.contents(atPath: b + "/" + name), name)
        }
        let c = temporaryFolder()
        try Synth(national: small, config: SynthConfig(scale: 5, seed: 10)).writeNative(folder: c)
        XCTAssertNotEqual(FileManager.default.contents(atPath: a + "/stations.csv"), FileManager.default.contents(atPath: c + "/stations.csv"))
    }

    func testN02DocumentReadsBackAsTheSameStations() throws {
        let folder = temporaryFolder()
        let synth = Synth(national: small, config: SynthConfig(scale: 3))
        let features = try synth.writeN02(path: folder + "/N02-stations.xml")
        XCTAssertEqual(features, 15)
        let n02 = try N02Reader.read(path: folder + "/N02-stations.xml", label: "n02")
        // Stations on lines only (N02 has no station without a track). N02 groups by group code
        // within one company and apart from the Shinkansen: 東京 (山手線, 東北新幹線) and 神田
        // (two operators) are two each, so 5 per copy.
        XCTAssertEqual(n02.stations.count, 15)
        XCTAssertEqual(n02.stationLines.count, 15)
        XCTAssertEqual(n02.lines.count, 9)
        XCTAssertEqual(Set(n02.operators.map(\.name)), ["JR東日本", "東京地下鉄"])
        // Each station's point is its curve's middle: the copy's own coordinates.
        let tokyo = try XCTUnwrap(n02.stations.first { $0.name == "東京" })
        XCTAssertEqual(tokyo.lat, 35_681_236)
        XCTAssertEqual(tokyo.lng, 139_767_125)
        let copy = synth.station(0, copy: 2)
        let read = try XCTUnwrap(n02.stations.first { $0.name == copy.name })
        XCTAssertEqual(read.lat, copy.lat)
        XCTAssertEqual(read.lng, copy.lng)
        // Operator types survive the railway and provider codes.
        XCTAssertEqual(n02.operators.first { $0.name == "JR東日本" }?.type, 1)
        XCTAssertEqual(n02.lines.filter { $0.type == 1 }.count, 3)
    }

    func testNationalScaleTwoStaysInJapanAndNearTheLines() async throws {
        // The ekidata fixture as ingest reads it, the network the national N02 document is laid out from.
        let national = try await NationalData.n02().network
        let synth = Synth(national: national, config: SynthConfig(scale: 2))
        var far = 0
        for i in national.stations.indices {
            let s = national.stations[i], c = synth.station(i, copy: 1)
            XCTAssertTrue(MicroDegrees.inJapan(lat: c.lat, lng: c.lng))
            XCTAssertEqual(c.id, s.id + synth.stationStride)
            // Infill lies between neighbours: rarely more than 10 km from its original.
            if MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: c.lat, lng2: c.lng) > 10_000 { far += 1 }
        }
        XCTAssertLessThan(far, national.stations.count / 50)
    }
}
