import Foundation
import XCTest
import StationIO
import StationModel
@testable import Ingest

/// The whole of Japan in ekidata's layout (../shared/data/ekidata): 10,830
/// station-on-line rows, 616 lines, 170 operators. Skipped when absent.
final class EkidataNationalTests: XCTestCase {
    func testNationalDataReadsClean() throws {
        let folder = sharedDataFolder("ekidata")
        guard FileManager.default.fileExists(atPath: folder + "/station.csv") else {
            throw XCTSkip("national ekidata data absent at \(folder)")
        }
        let network = try EkidataReader.read(folder: folder, label: "ekidata")
        XCTAssertEqual(network.operators.count, 170)
        XCTAssertEqual(network.lines.count, 616)
        // Rows grouped by (company, station_g_cd, Shinkansen); this edition has no
        // station rows on its 11 Shinkansen lines.
        XCTAssertEqual(network.stations.count, 9_768)
        XCTAssertEqual(network.stations.filter { $0.enabled == true }.count, 9_521)
        XCTAssertEqual(network.stationLines.count, 10_830)
        XCTAssertEqual(network.stations.reduce(0) { $0 + $1.matchKeys.count }, 10_830)
        XCTAssertEqual(network.lines.filter { $0.type == 1 }.count, 11)
        // Operator types: company_type gives the 6 JR companies; the rest have 0
        // here, so the name rules decide (this edition marks no major privates).
        var types: [Int: Int] = [:]
        for o in network.operators { types[o.type ?? 0, default: 0] += 1 }
        XCTAssertEqual(types, [1: 6, 4: 12, 5: 135, 6: 8, 7: 8, 10: 1])
        XCTAssertEqual(network.operators.filter { $0.enabled == true }.count, 163)
        XCTAssertEqual(network.lines.filter { $0.enabled == true }.count, 598)

        let tokyo = try XCTUnwrap(network.stations.first { $0.matchKeys.contains("code:1130101") })
        XCTAssertEqual(tokyo.name, "東京")
        XCTAssertEqual(tokyo.pref, 13)
        XCTAssertTrue(MicroDegrees.inJapan(lat: tokyo.lat, lng: tokyo.lng))
        XCTAssertEqual(tokyo.lat / 1_000_000, 35)    // lat is the latitude column, not lon

        // s_sort runs 1...n along every line, with each station once.
        var byLine: [String: [SourceStationLine]] = [:]
        for row in network.stationLines { byLine[row.lineKey, default: []].append(row) }
        for (line, rows) in byLine {
            XCTAssertEqual(rows.map(\.sort), Array(1...rows.count), line)
            XCTAssertEqual(Set(rows.map(\.stationKey)).count, rows.count, line)
        }
    }
}
