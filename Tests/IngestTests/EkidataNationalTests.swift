import Foundation
import XCTest
import Ingest
import StationCore

/// The whole of Japan in ekidata's layout (Tests/Fixtures/ekidata). What the reader makes
/// of it is checked against the files' own rows, read as plain CSV, so the test
/// holds for any edition of the data, not for one edition's counts.
final class EkidataNationalTests: XCTestCase {
    func testNationalDataReadsClean() throws {
        let folder = NationalData.ekidata
        let network = try EkidataReader.read(folder: folder, label: "ekidata")
        let companies = try CSVReader.read(path: folder + "/company.csv")
        let lineRows = try CSVReader.read(path: folder + "/line.csv")
        let stationRows = try CSVReader.read(path: folder + "/station.csv")

        // Every company, line and station-on-line row is read, and they are a country's worth.
        XCTAssertEqual(network.operators.count, companies.records.count)
        XCTAssertEqual(network.lines.count, lineRows.records.count)
        XCTAssertEqual(network.stationLines.count, stationRows.records.count, "one link per station-on-line row")
        XCTAssertTrue((100...300).contains(network.operators.count), "\(network.operators.count) operators")
        XCTAssertTrue((400...1_000).contains(network.lines.count), "\(network.lines.count) lines")
        XCTAssertTrue((8_000...12_000).contains(network.stations.count), "\(network.stations.count) stations")
        XCTAssertEqual(Set(network.operators.map(\.key)).count, network.operators.count)
        XCTAssertEqual(Set(network.lines.map(\.key)).count, network.lines.count)
        XCTAssertEqual(Set(network.stations.map(\.key)).count, network.stations.count)

        // One station per (company, station_g_cd, Shinkansen or not), holding the codes of its rows:
        // each row's station_cd is a match key of exactly one station.
        var companyOfLine: [String: String] = [:], shinkansenLines = Set<String>()
        for r in lineRows.records {
            let line = lineRows.string(r, "line_cd")
            companyOfLine[line] = lineRows.string(r, "company_cd")
            if lineRows.string(r, "line_name").contains("新幹線") { shinkansenLines.insert(line) }
        }
        struct Place: Hashable { var company: String, group: String, shinkansen: Bool }
        var places = Set<Place>(), inService = Set<String>()
        for r in stationRows.records {
            let line = stationRows.string(r, "line_cd")
            places.insert(Place(company: companyOfLine[line] ?? "?", group: stationRows.string(r, "station_g_cd"),
                                shinkansen: shinkansenLines.contains(line)))
            if stationRows.string(r, "e_status") == "0" { inService.insert(EkidataReader.matchKey(Int(stationRows.string(r, "station_cd")) ?? -1)) }
        }
        XCTAssertEqual(network.stations.count, places.count)
        let codes = network.stations.flatMap(\.matchKeys)
        XCTAssertEqual(codes.count, stationRows.records.count)
        XCTAssertEqual(Set(codes).count, codes.count, "no row's code in two stations")
        // Live when any of its rows is in service (e_status 0); some are closed, most are not.
        for s in network.stations {
            XCTAssertEqual(s.enabled, s.matchKeys.contains(where: inService.contains), s.key)
        }
        let live = network.stations.count { $0.enabled == true }
        XCTAssertTrue(live > network.stations.count * 9 / 10 && live < network.stations.count, "\(live) live")

        // Operators and lines are enabled when in service; a line's l_type is 1 exactly when its name says 新幹線.
        var companyRow: [String: Int] = [:], lineRow: [String: Int] = [:]
        for r in companies.records { companyRow[EkidataReader.operatorKey(Int(companies.string(r, "company_cd")) ?? -1)] = r }
        for r in lineRows.records { lineRow[EkidataReader.lineKey(Int(lineRows.string(r, "line_cd")) ?? -1)] = r }
        for o in network.operators {
            let r = try XCTUnwrap(companyRow[o.key], o.key)
            XCTAssertEqual(o.enabled, companies.string(r, "e_status") == "0", o.key)
            // The types bundle.md lists; company_type 1 (JR) is kept as it is.
            XCTAssertNotNil(OperatorType.known[o.type ?? 0], "\(o.key) \(o.name): type \(o.type.map(String.init) ?? "none")")
            if companies.string(r, "company_type") == "1" { XCTAssertEqual(o.type, OperatorType.jr, o.name) }
        }
        XCTAssertEqual(network.operators.count { $0.type == OperatorType.jr }, companies.records.count { companies.string($0, "company_type") == "1" })
        for l in network.lines {
            let r = try XCTUnwrap(lineRow[l.key], l.key)
            XCTAssertEqual(l.enabled, lineRows.string(r, "e_status") == "0", l.key)
            XCTAssertEqual(l.type == LineType.shinkansen, l.name.contains("新幹線"), l.name)
        }

        XCTAssertTrue(network.stations.allSatisfy { MicroDegrees.inJapan(lat: $0.lat, lng: $0.lng) })
        XCTAssertTrue(network.stations.allSatisfy { (1...47).contains($0.pref ?? 0) })
        let tokyo = try XCTUnwrap(network.stations.first { $0.matchKeys.contains("code:1130101") })
        XCTAssertEqual(tokyo.name, "東京")
        XCTAssertEqual(tokyo.pref, 13)
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
