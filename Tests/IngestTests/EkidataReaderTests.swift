import Foundation
import XCTest
import Ingest
import StationCore

final class EkidataReaderTests: XCTestCase {
    // A small Tokyo: JR East with a Shinkansen, the Yamanote line (whose join.csv
    // chain disagrees with e_sort) and the Keihin-Tohoku line (no join rows);
    // a municipal operator sharing a station_g_cd with JR; a closed guideway.
    static let company = """
        company_cd,rr_cd,company_name,company_name_k,company_name_h,company_name_r,company_url,company_type,e_status,e_sort
        1,11,JR東日本,,,,,1,0,1
        2,99,東京都交通局,,,,,0,0,2
        3,99,ゆりかもめ,,,,,0,2,3

        """
    static let line = """
        line_cd,company_cd,line_name,line_name_k,line_name_h,line_color_c,line_color_t,line_type,lon,lat,zoom,e_status,e_sort
        1004,1,東北新幹線,,,,,,,,,0,1004
        11302,1,山手線,,,,,2,,,,0,11302
        11303,1,京浜東北線,,,,,,,,,0,11303
        99301,2,大江戸線,,,,,x,,,,1,99301
        99401,3,ゆりかもめ,,,,,,,,,2,99401

        """
    static let station = """
        station_cd,station_g_cd,station_name,station_name_k,station_name_r,line_cd,pref_cd,post,address,lon,lat,open_ymd,close_ymd,e_status,e_sort
        1133101,1130101,東京駅,チガウ,,11303,13,,別の住所,139.7,35.6,,,2,2
        1130101,1130101,東京,トウキョウ,,11302,13,100-0005,東京都千代田区丸の内一丁目,139.766103,35.681391,,,0,1130101
        1130102,1130102,神田,カンダ,,11302,13,,,139.770641,35.691173,,,0,1130102
        1130103,1130103,秋葉原,アキハバラ,,11302,13,,,139.773288,35.698619,,,0,1130103
        1130104,1130104,上野,,,11302,13,,,139.777043,35.71379,,,2,1130104
        1130105,1130103,秋葉原,アキハバラ,,11302,13,,,139.773288,35.698619,,,0,1130105
        1133104,1130104,上野,ウエノ,,11303,13,,,139.777043,35.71379,,,0,1
        100401,1130101,東京,トウキョウ,,1004,13,,,139.766103,35.681391,,,0,100401
        100402,1130104,上野,ウエノ,,1004,13,,,139.777043,35.71379,,,0,100402
        9930101,1130101,東京,,,99301,13,,,139.767,35.68,,,1,9930101
        9940101,9940101,新橋,シンバシ,,99401,13,,港区東新橋,139.759,35.6662,,,2,

        """
    static let join = """
        line_cd,station_cd1,station_cd2
        11302,1130104,1130101
        11302,1130101,1130103
        11302,1130103,1130102
        11302,1130102,1130105
        1004,100401,100402

        """
    static var files: [String: String] {
        ["company.csv": company, "line.csv": line, "station.csv": station, "join.csv": join]
    }

    func read(_ files: [String: String]) throws -> SourceNetwork {
        try EkidataReader.read(folder: try makeSourceFolder(self, files), label: "eki")
    }

    func errors(_ files: [String: String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let folder = try makeSourceFolder(self, files)
        return inputErrorMessages(file: file, line: line) { try EkidataReader.read(folder: folder, label: "eki") }
    }

    func replacing(_ name: String, _ old: String, _ new: String) -> [String: String] {
        var f = Self.files
        XCTAssertTrue(f[name]!.contains(old), "fixture \(name) lacks \(old)")
        f[name] = f[name]!.replacingOccurrences(of: old, with: new)
        return f
    }

    // MARK: mapping

    func testOperators() throws {
        let n = try read(Self.files)
        XCTAssertEqual(n.kind, .ekidata)
        XCTAssertEqual(n.label, "eki")
        XCTAssertEqual(n.operators, [
            SourceOperator(key: "ekidata:company:1", name: "JR東日本", type: 1, enabled: true,
                           origin: SourceLocation(file: "eki/company.csv", line: 2)),
            SourceOperator(key: "ekidata:company:2", name: "東京都交通局", type: 4, enabled: true,
                           origin: SourceLocation(file: "eki/company.csv", line: 3)),
            SourceOperator(key: "ekidata:company:3", name: "ゆりかもめ", type: 7, enabled: false,
                           origin: SourceLocation(file: "eki/company.csv", line: 4)),
        ])
    }

    func testLines() throws {
        let n = try read(Self.files)
        XCTAssertEqual(n.lines.map(\.key), ["ekidata:line:1004", "ekidata:line:11302", "ekidata:line:11303",
                                            "ekidata:line:99301", "ekidata:line:99401"])
        XCTAssertEqual(n.lines.map(\.name), ["東北新幹線", "山手線", "京浜東北線", "大江戸線", "ゆりかもめ"])
        XCTAssertEqual(n.lines.map(\.type), [1, 2, nil, nil, nil])      // 新幹線 -> 1; 'x' is no type
        XCTAssertEqual(n.lines.map(\.enabled), [true, true, true, false, false])   // 1 not yet open, 2 closed
        XCTAssertEqual(n.lines.map(\.operatorKey), ["ekidata:company:1", "ekidata:company:1", "ekidata:company:1",
                                                    "ekidata:company:2", "ekidata:company:3"])
        XCTAssertTrue(n.lines.allSatisfy { $0.fixedID == nil })
        XCTAssertEqual(n.lines[1].origin, SourceLocation(file: "eki/line.csv", line: 3))
    }

    func testStationsGroupByOperatorPlaceAndShinkansen() throws {
        let n = try read(Self.files)
        XCTAssertEqual(n.stations.map(\.key), [
            "ekidata:station:1:1130101",
            "ekidata:station:1:1130101:shinkansen",
            "ekidata:station:1:1130102",
            "ekidata:station:1:1130103",
            "ekidata:station:1:1130104",
            "ekidata:station:1:1130104:shinkansen",
            "ekidata:station:2:1130101",
            "ekidata:station:3:9940101",
        ])
        // Fields come from the smallest station_cd (1130101), not the first row in the file (1133101).
        XCTAssertEqual(n.stations[0], SourceStation(
            key: "ekidata:station:1:1130101", matchKeys: ["code:1130101", "code:1133101"], name: "東京", yomi: "とうきょう",
            wiki: nil, pref: 13, address: "東京都千代田区丸の内一丁目", lat: 35_681_391, lng: 139_766_103,
            operatorKey: "ekidata:company:1", enabled: true, origin: SourceLocation(file: "eki/station.csv", line: 3)))
        XCTAssertEqual(n.stations[1].matchKeys, ["code:100401"])
        XCTAssertEqual(n.stations[1].name, "東京")
        XCTAssertEqual(n.stations[3].matchKeys, ["code:1130103", "code:1130105"])
        // 上野: the smallest row is closed and has no reading, another row is in service.
        XCTAssertEqual(n.stations[4].matchKeys, ["code:1130104", "code:1133104"])
        XCTAssertNil(n.stations[4].yomi)
        XCTAssertNil(n.stations[4].address)
        XCTAssertEqual(n.stations[4].enabled, true)
        XCTAssertEqual(n.stations[5].yomi, "うえの")
        // Same station_g_cd, other operator: its own station; not-yet-open (1) is not in service.
        XCTAssertEqual(n.stations[6].operatorKey, "ekidata:company:2")
        XCTAssertEqual(n.stations[6].enabled, false)
        XCTAssertEqual(n.stations[6].lat, 35_680_000)
        XCTAssertEqual(n.stations[7].enabled, false)
        XCTAssertEqual(n.stations[7].yomi, "しんばし")
        XCTAssertEqual(n.stations[7].address, "港区東新橋")
        XCTAssertTrue(n.stations.allSatisfy { $0.wiki == nil && $0.fixedID == nil })
    }

    func testUnknownCompanyTypeIsAWarningAndReadAsOther() throws {
        // 東京都交通局 with company_type 5: not one of ekidata's codes, so "other", and its name makes it municipal.
        let n = try read(replacing("company.csv", "2,99,東京都交通局,,,,,0,0,2", "2,99,東京都交通局,,,,,5,0,2"))
        XCTAssertEqual(n.operators.map(\.type), [1, 4, 7])
        XCTAssertEqual(n.warnings.map(\.description), ["eki/company.csv:3: company_type: unknown company_type 5 (known: 0, 1, 2, 3); read as 0, other"])
        XCTAssertEqual(try read(Self.files).warnings, [])
    }

    func testTextIsKeptVerbatim() throws {
        var files = replacing("station.csv", "1130101,1130101,東京,トウキョウ,,11302,13,100-0005,東京都千代田区丸の内一丁目,",
                              "1130101,1130101, 東京,トウキョウ ,,11302,13,100-0005,東京都千代田区丸の内一丁目\u{3000},")
        files["company.csv"] = files["company.csv"]!.replacingOccurrences(of: ",JR東日本,", with: ",JR東日本 ,")
        let n = try read(files)
        XCTAssertEqual(n.stations[0].name, " 東京")
        XCTAssertEqual(n.stations[0].yomi, "とうきょう ")
        XCTAssertEqual(n.stations[0].address, "東京都千代田区丸の内一丁目\u{3000}")
        XCTAssertEqual(n.operators[0].name, "JR東日本 ")
    }

    func testStationLinesFollowJoinChainElseESort() throws {
        let n = try read(Self.files)
        let rows = n.stationLines.map { "\($0.lineKey) \($0.sort) \($0.stationKey)" }
        XCTAssertEqual(rows, [
            // Two stations: e_sort order.
            "ekidata:line:1004 1 ekidata:station:1:1130101:shinkansen",
            "ekidata:line:1004 2 ekidata:station:1:1130104:shinkansen",
            // join.csv's chain 上野-東京-秋葉原-神田-秋葉原(1130105), walked from the end first
            // by e_sort; 1130105 is 秋葉原 again and is dropped.
            "ekidata:line:11302 1 ekidata:station:1:1130104",
            "ekidata:line:11302 2 ekidata:station:1:1130101",
            "ekidata:line:11302 3 ekidata:station:1:1130103",
            "ekidata:line:11302 4 ekidata:station:1:1130102",
            // No join rows: e_sort (1133104 has e_sort 1, 1133101 has 2).
            "ekidata:line:11303 1 ekidata:station:1:1130104",
            "ekidata:line:11303 2 ekidata:station:1:1130101",
            "ekidata:line:99301 1 ekidata:station:2:1130101",
            "ekidata:line:99401 1 ekidata:station:3:9940101",
        ])
        XCTAssertEqual(n.stationLines[2].origin, SourceLocation(file: "eki/station.csv", line: 6))
    }

    func testReorderedInputGivesTheSameNetwork() throws {
        let original = try read(Self.files)
        let reordered = try read(Self.files.mapValues(reversedRows))
        assertSameNetwork(withoutOriginLines(original), withoutOriginLines(reordered))
        XCTAssertNotEqual(original.stations.map(\.origin), reordered.stations.map(\.origin))
    }

    func testOperatorTypeRules() {
        let t = EkidataReader.operatorType
        XCTAssertEqual(t(1, "JR東日本"), 1)
        XCTAssertEqual(t(2, "東武鉄道"), 2)
        XCTAssertEqual(t(3, "新京成電鉄"), 3)
        XCTAssertEqual(t(0, "東京モノレール"), 6)
        XCTAssertEqual(t(0, "多摩都市モノレール"), 6)
        XCTAssertEqual(t(0, "スカイレールサービス"), 6)
        XCTAssertEqual(t(0, "大阪高速鉄道"), 6)
        XCTAssertEqual(t(0, "北九州高速鉄道"), 6)
        XCTAssertEqual(t(0, "高尾登山電鉄ケーブル"), 8)
        XCTAssertEqual(t(0, "比叡山鋼索鉄道"), 8)
        XCTAssertEqual(t(0, "愛知高速交通"), 10)
        XCTAssertEqual(t(0, "ゆりかもめ"), 7)
        XCTAssertEqual(t(0, "横浜新都市交通"), 7)         // not public despite 市交通
        XCTAssertEqual(t(0, "神戸新交通"), 7)
        XCTAssertEqual(t(0, "山万"), 7)
        XCTAssertEqual(t(0, "広島高速交通"), 7)
        XCTAssertEqual(t(0, "東京都交通局"), 4)
        XCTAssertEqual(t(0, "横浜市営地下鉄"), 4)
        XCTAssertEqual(t(0, "都営交通"), 4)
        XCTAssertEqual(t(0, "札幌市交通事業振興公社"), 4)
        XCTAssertEqual(t(0, "三陸鉄道"), 5)
        XCTAssertEqual(t(0, "東武鉄道"), 5)   // company_type 0 says "other"; names do not make a major private
    }

    func testChainOrder() {
        let order = EkidataReader.chainOrder
        // A path given out of order and backwards: walked from the end that comes first.
        XCTAssertEqual(order([1, 2, 3, 4], [(3, 4), (2, 3), (1, 2)]), [1, 2, 3, 4])
        XCTAssertEqual(order([1, 2, 3, 4], [(4, 2), (2, 3), (3, 1)]), [1, 3, 2, 4])
        // A loop starts at the first station and goes to its first neighbour.
        XCTAssertEqual(order([1, 2, 3, 4], [(1, 3), (3, 2), (2, 4), (4, 1)]), [1, 3, 2, 4])
        // A repeated pair is one pair.
        XCTAssertEqual(order([1, 2, 3], [(1, 2), (2, 1), (2, 3)]), [1, 2, 3])
        // No single order: a branch, a gap, a pair off the line.
        XCTAssertNil(order([1, 2, 3, 4], [(1, 2), (1, 3), (1, 4)]))
        XCTAssertNil(order([1, 2, 3, 4], [(1, 2), (3, 4)]))
        XCTAssertNil(order([1, 2, 3], [(1, 2), (2, 9)]))
        XCTAssertNil(order([1, 2, 3, 4, 5], [(1, 2), (2, 3), (3, 1), (4, 5)]))
        XCTAssertEqual(EkidataReader.orderAlongLine([1, 2, 3], joins: [(1, 2)]), [1, 2, 3])
    }

    func testKanaToHiragana() {
        XCTAssertEqual(Kana.hiragana("トウキョウ"), "とうきょう")
        XCTAssertEqual(Kana.hiragana("ヴァイオリン・ガーデン"), "ゔぁいおりん・がーでん")
        XCTAssertEqual(Kana.hiragana("ケ ヶ ヽヾ"), "け ゖ ゝゞ")
        XCTAssertEqual(Kana.hiragana("ヷ JR 1"), "ヷ JR 1")
        XCTAssertEqual(Kana.hiragana("すでに"), "すでに")
    }

    // MARK: bad input

    func testMalformedCSVWrongFieldCount() throws {
        let files = replacing("station.csv", "1130102,1130102,神田,カンダ,,", "1130102,1130102,神田,カンダ,")
        XCTAssertEqual(try errors(files), ["eki/station.csv:4: expected 15 fields as in the header, found 14"])
    }

    func testUnterminatedQuote() throws {
        let files = replacing("line.csv", "11303,1,京浜東北線,", "11303,1,\"京浜東北線,")
        XCTAssertEqual(try errors(files), ["eki/line.csv:4: line_name: unterminated quoted field (a \" opened here is never closed)"])
    }

    func testInvalidUTF8() throws {
        let folder = try makeSourceFolder(self, Self.files)
        var bytes = Array(Self.company.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "J"))!     // JR東日本 on line 2
        bytes[at] = 0xFF
        try writeBytes(bytes, to: folder + "/company.csv")
        XCTAssertEqual(inputErrorMessages { try EkidataReader.read(folder: folder, label: "eki") },
                       ["eki/company.csv:2: company_name: invalid UTF-8 (byte 0xFF); expected UTF-8 text"])
    }

    func testMissingColumnAndFile() throws {
        var files = replacing("station.csv", "line_cd,pref_cd,", "line_cd,prefecture,")
        files["join.csv"] = nil
        XCTAssertEqual(try errors(files), [
            "eki/station.csv:1: pref_cd: missing column pref_cd; expected the columns station_cd, station_g_cd, station_name, line_cd, pref_cd, lon, lat, e_status (other columns are ignored)",
            "eki/join.csv: file not found; expected join.csv in the source folder eki",
        ])
    }

    func testNonNumbers() throws {
        var files = replacing("station.csv", "1130102,1130102,神田", "1130102,abc,神田")
        files["company.csv"] = files["company.csv"]!.replacingOccurrences(of: "3,99,ゆりかもめ,,,,,0,2,3", with: "3,99,ゆりかもめ,,,,,x,,3")
        files["join.csv"] = files["join.csv"]!.replacingOccurrences(of: "1004,100401,100402", with: "1004,100401,")
        XCTAssertEqual(try errors(files), [
            "eki/company.csv:4: company_type: expected an integer or nothing, found 'x'",
            "eki/company.csv:4: e_status: expected an integer, found nothing",
            "eki/station.csv:4: station_g_cd: expected an integer, found 'abc'",
            "eki/join.csv:6: station_cd2: expected an integer, found nothing",
        ])
    }

    func testDanglingReferences() throws {
        var files = replacing("station.csv", "1130102,1130102,神田,カンダ,,11302,", "1130102,1130102,神田,カンダ,,11399,")
        files["line.csv"] = files["line.csv"]!.replacingOccurrences(of: "99401,3,", with: "99401,7,")
        files["join.csv"]! += "88888,1130101,1130102\n11302,1130101,7777777\n"
        XCTAssertEqual(try errors(files), [
            "eki/line.csv:6: company_cd: expected a company_cd listed in eki/company.csv, found 7",
            "eki/station.csv:4: line_cd: expected a line_cd listed in eki/line.csv, found 11399",
            "eki/join.csv:7: line_cd: expected a line_cd listed in eki/line.csv, found 88888",
            "eki/join.csv:8: station_cd2: expected a station_cd listed in eki/station.csv, found 7777777",
        ])
    }

    func testDuplicateIDsNameBothLines() throws {
        var files = Self.files
        files["company.csv"]! += "2,,別会社,,,,,0,0,4\n"
        files["line.csv"]! += "11302,1,山手線,,,,,,,,,0,1\n"
        files["station.csv"]! += "1130101,1130101,東京,,,11302,13,,,139.766103,35.681391,,,0,1\n"
        XCTAssertEqual(try errors(files), [
            "eki/company.csv:5: company_cd: expected a unique company_cd, found 2 again (first on line 3)",
            "eki/line.csv:7: line_cd: expected a unique line_cd, found 11302 again (first on line 3)",
            "eki/station.csv:13: station_cd: expected a unique station_cd, found 1130101 again (first on line 3)",
        ])
    }

    func testCoordinatesOutsideJapanAndPref() throws {
        // lon/lat swapped, as a careless export would do; pref out of range; coordinates that are not numbers.
        var files = replacing("station.csv", "139.770641,35.691173", "35.691173,139.770641")
        files["station.csv"] = files["station.csv"]!
            .replacingOccurrences(of: "1130103,1130103,秋葉原,アキハバラ,,11302,13,", with: "1130103,1130103,秋葉原,アキハバラ,,11302,52,")
            .replacingOccurrences(of: "139.759,35.6662", with: "139.759,N35")
        XCTAssertEqual(try errors(files), [
            "eki/station.csv:4: lat, lon: expected a point in Japan (lat 20..46, lng 122..154), found lat 139.770641, lng 35.691173",
            "eki/station.csv:5: pref_cd: expected 1..47, found 52",
            "eki/station.csv:12: lat: expected decimal degrees, found 'N35'",
        ])
    }

    func testDuplicateStationOfAGroupOnALineIsNoError() throws {
        // 1130103 and 1130105 are both 秋葉原 (group 1130103) on 山手線: one stations_lines row.
        let n = try read(Self.files)
        XCTAssertEqual(n.stationLines.filter { $0.stationKey == "ekidata:station:1:1130103" }.map(\.lineKey), ["ekidata:line:11302"])
    }
}
