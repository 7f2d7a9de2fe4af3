import Foundation
import XCTest
import Ingest
import StationCore

final class NativeCSVReaderTests: XCTestCase {
    static let operators = """
        o_id,operator,type,enabled
        1,JR東日本,1,1
        2,東京都交通局,4,
        3,廃止鉄道,5,0

        """
    // Columns in another order than the spec's: the header names them.
    static let lines = """
        l_type,l_id,o_id,line,enabled
        2,11302,1,山手線,1
        ,99301,2,大江戸線,
        1,1004,1,東北新幹線,0

        """
    static let stations = #"""
        s_id,station,yomi,wiki,pref,address,lat,lng,o_id,enabled
        1130101,東京,とうきょう,東京駅,13,東京都千代田区丸の内一丁目,35.681391,139.766103,1,1
        1130102,"神田, ""東京""",かんだ,,13,,35.691173,139.770641,1,
        9930101,東京,,,13,,35.68,139.767,2,0

        """#
    static let stationLines = """
        l_id,s_id,s_sort
        11302,1130101,1
        11302,1130102,2
        99301,9930101,5

        """
    static var files: [String: String] {
        ["operators.csv": operators, "lines.csv": lines, "stations.csv": stations, "stations_lines.csv": stationLines]
    }

    func read(_ files: [String: String]) throws -> SourceNetwork {
        try NativeCSVReader.read(folder: try makeSourceFolder(self, files), label: "raw")
    }

    func errors(_ files: [String: String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let folder = try makeSourceFolder(self, files)
        return inputErrorMessages(file: file, line: line) { try NativeCSVReader.read(folder: folder, label: "raw") }
    }

    func replacing(_ name: String, _ old: String, _ new: String) -> [String: String] {
        var f = Self.files
        XCTAssertTrue(f[name]!.contains(old), "fixture \(name) lacks \(old)")
        f[name] = f[name]!.replacingOccurrences(of: old, with: new)
        return f
    }

    // MARK: mapping

    func testMapping() throws {
        let n = try read(Self.files)
        XCTAssertEqual(n.kind, .native)
        XCTAssertEqual(n.label, "raw")
        XCTAssertEqual(n.operators, [
            SourceOperator(key: "o:1", fixedID: 1, name: "JR東日本", type: 1, enabled: true, origin: SourceLocation(file: "raw/operators.csv", line: 2)),
            SourceOperator(key: "o:2", fixedID: 2, name: "東京都交通局", type: 4, enabled: true, origin: SourceLocation(file: "raw/operators.csv", line: 3)),
            SourceOperator(key: "o:3", fixedID: 3, name: "廃止鉄道", type: 5, enabled: false, origin: SourceLocation(file: "raw/operators.csv", line: 4)),
        ])
        XCTAssertEqual(n.lines, [
            SourceLine(key: "l:1004", fixedID: 1004, name: "東北新幹線", operatorKey: "o:1", enabled: false, type: 1,
                       origin: SourceLocation(file: "raw/lines.csv", line: 4)),
            SourceLine(key: "l:11302", fixedID: 11302, name: "山手線", operatorKey: "o:1", enabled: true, type: 2,
                       origin: SourceLocation(file: "raw/lines.csv", line: 2)),
            SourceLine(key: "l:99301", fixedID: 99301, name: "大江戸線", operatorKey: "o:2", enabled: true, type: nil,
                       origin: SourceLocation(file: "raw/lines.csv", line: 3)),
        ])
        XCTAssertEqual(n.stations, [
            SourceStation(key: "s:1130101", matchKeys: [], fixedID: 1130101, name: "東京", yomi: "とうきょう", wiki: "東京駅", pref: 13,
                          address: "東京都千代田区丸の内一丁目", lat: 35_681_391, lng: 139_766_103, operatorKey: "o:1", enabled: true,
                          origin: SourceLocation(file: "raw/stations.csv", line: 2)),
            SourceStation(key: "s:1130102", matchKeys: [], fixedID: 1130102, name: "神田, \"東京\"", yomi: "かんだ", wiki: nil, pref: 13,
                          address: nil, lat: 35_691_173, lng: 139_770_641, operatorKey: "o:1", enabled: true,
                          origin: SourceLocation(file: "raw/stations.csv", line: 3)),
            SourceStation(key: "s:9930101", matchKeys: [], fixedID: 9930101, name: "東京", yomi: nil, wiki: nil, pref: 13,
                          address: nil, lat: 35_680_000, lng: 139_767_000, operatorKey: "o:2", enabled: false,
                          origin: SourceLocation(file: "raw/stations.csv", line: 4)),
        ])
        XCTAssertEqual(n.stationLines, [
            SourceStationLine(lineKey: "l:11302", stationKey: "s:1130101", sort: 1, origin: SourceLocation(file: "raw/stations_lines.csv", line: 2)),
            SourceStationLine(lineKey: "l:11302", stationKey: "s:1130102", sort: 2, origin: SourceLocation(file: "raw/stations_lines.csv", line: 3)),
            SourceStationLine(lineKey: "l:99301", stationKey: "s:9930101", sort: 5, origin: SourceLocation(file: "raw/stations_lines.csv", line: 4)),
        ])
    }

    func testOptionalColumnsMayBeAbsentAndFilesMayUseCRLFAndBOM() throws {
        var files = Self.files
        files["operators.csv"] = "\u{FEFF}o_id,operator,type\r\n1,JR東日本,1\r\n2,東京都交通局,4\r\n3,廃止鉄道,5"
        files["lines.csv"] = "l_id,line,o_id\n11302,山手線,1\n99301,大江戸線,2\n1004,東北新幹線,1\n"
        let n = try read(files)
        XCTAssertEqual(n.operators.map(\.enabled), [true, true, true])
        XCTAssertEqual(n.operators.map(\.name), ["JR東日本", "東京都交通局", "廃止鉄道"])
        XCTAssertEqual(n.lines.map(\.type), [nil, nil, nil])
        XCTAssertEqual(n.stations.count, 3)
    }

    func testReorderedInputGivesTheSameNetwork() throws {
        let original = try read(Self.files)
        // Same rows, columns in another order: identical, origins included.
        var shuffledColumns = Self.files
        shuffledColumns["stations_lines.csv"] = "s_sort,s_id,l_id\n1,1130101,11302\n2,1130102,11302\n5,9930101,99301\n"
        shuffledColumns["operators.csv"] = "enabled,type,operator,o_id\n1,1,JR東日本,1\n,4,東京都交通局,2\n0,5,廃止鉄道,3\n"
        assertSameNetwork(original, try read(shuffledColumns))
        // Rows reversed: identical but for where each value came from.
        let reversed = try read(Self.files.mapValues(reversedRows))
        assertSameNetwork(withoutOriginLines(original), withoutOriginLines(reversed))
    }

    // MARK: bad input

    func testPrefOutsideRange() throws {
        let files = replacing("stations.csv", "かんだ,,13,", "かんだ,,52,")
        XCTAssertEqual(try errors(files), ["raw/stations.csv:3: pref: expected 1..47, found 52"])
    }

    func testCoordinatesOutsideJapanAndNotNumbers() throws {
        var files = replacing("stations.csv", "35.681391,139.766103", "35.681391,-139.766103")
        files["stations.csv"] = files["stations.csv"]!.replacingOccurrences(of: "35.68,139.767", with: "35.6x,")
        XCTAssertEqual(try errors(files), [
            "raw/stations.csv:2: lat, lng: expected a point in Japan (lat 20..46, lng 122..154), found lat 35.681391, lng -139.766103",
            "raw/stations.csv:4: lat: expected decimal degrees, found '35.6x'",
            "raw/stations.csv:4: lng: expected decimal degrees, found nothing",
        ])
    }

    func testNonNumbersAndBadFlags() throws {
        var files = replacing("stations_lines.csv", "11302,1130102,2", "11302,1130102,two")
        files["stations.csv"] = files["stations.csv"]!.replacingOccurrences(of: "1130101,東京,", with: "S1,東京,")
        // 0 is no operator type code at all (codes are 1..99); 9 (trolleybus) is a known one now.
        files["operators.csv"] = files["operators.csv"]!.replacingOccurrences(of: "3,廃止鉄道,5,0", with: "3,廃止鉄道,0,yes")
        files["lines.csv"] = files["lines.csv"]!.replacingOccurrences(of: "2,11302,", with: "山,11302,")
            .replacingOccurrences(of: "1,1004,1,", with: "100,1004,1,")
        XCTAssertEqual(try errors(files), [
            "raw/operators.csv:4: type: expected a whole number 1..99 for the operator type, found 0",
            "raw/operators.csv:4: enabled: expected 0 or 1, found 'yes'",
            "raw/lines.csv:2: l_type: expected an integer or nothing, found '山'",
            "raw/lines.csv:4: l_type: expected a whole number 0..99 for the line type, found 100",
            "raw/stations.csv:2: s_id: expected an integer, found 'S1'",
            "raw/stations_lines.csv:2: s_id: expected an s_id listed in raw/stations.csv, found 1130101",
            "raw/stations_lines.csv:3: s_sort: expected an integer, found 'two'",
        ])
        files = replacing("operators.csv", "1,JR東日本,1,1", "1,JR東日本,1.5,1")
        XCTAssertEqual(try errors(files), ["raw/operators.csv:2: type: expected an integer, found '1.5'"])
    }

    /// Codes outside the known lists but within the valid ranges are the master's
    /// to give: kept as written, each with a warning naming file, line and field.
    func testUnknownCodesAreKeptWithAWarning() throws {
        var files = replacing("operators.csv", "3,廃止鉄道,5,0", "3,廃止鉄道,11,0")
        files["lines.csv"] = files["lines.csv"]!.replacingOccurrences(of: ",99301,2,", with: "7,99301,2,")
        let n = try read(files)
        XCTAssertEqual(n.operators.map(\.type), [1, 4, 11])
        XCTAssertEqual(n.lines.map(\.type), [1, 2, 7])
        XCTAssertEqual(n.warnings.map(\.description), [
            "raw/operators.csv:4: type: unknown operator type 11 (known: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10); kept as given",
            "raw/lines.csv:3: l_type: unknown line type 7 (known: 0, 1, 2, 3, 4, 5); kept as given",
        ])
        XCTAssertEqual(try read(Self.files).warnings, [], "known codes give no warning")
    }

    /// Text is kept exactly as the master holds it: blanks around a name, a reading
    /// or an address are data, never trimmed; only an empty field is missing.
    func testTextIsKeptVerbatim() throws {
        var files = replacing("stations.csv", "1130101,東京,とうきょう,東京駅,13,東京都千代田区丸の内一丁目,",
                              "1130101, 東京 ,とうきょう\u{3000},東京駅,13,\" 東京都千代田区丸の内一丁目\",")
        files["operators.csv"] = files["operators.csv"]!.replacingOccurrences(of: "2,東京都交通局,", with: "2,東京都交通局\t,")
        files["lines.csv"] = files["lines.csv"]!.replacingOccurrences(of: ",99301,2,大江戸線,", with: ",99301,2, ,")
        let n = try read(files)
        XCTAssertEqual(n.stations[0].name, " 東京 ")
        XCTAssertEqual(n.stations[0].yomi, "とうきょう\u{3000}")
        XCTAssertEqual(n.stations[0].address, " 東京都千代田区丸の内一丁目")
        XCTAssertEqual(n.operators[1].name, "東京都交通局\t")
        XCTAssertEqual(n.lines.first { $0.key == "l:99301" }?.name, " ", "a blank name is a name")
    }

    func testEmptyNames() throws {
        var files = replacing("stations.csv", "1130101,東京,", "1130101,,")
        files["operators.csv"] = files["operators.csv"]!.replacingOccurrences(of: "2,東京都交通局,", with: "2,,")
        files["lines.csv"] = files["lines.csv"]!.replacingOccurrences(of: "山手線", with: "\"\"")
        XCTAssertEqual(try errors(files), [
            "raw/operators.csv:3: operator: expected a name, found nothing",
            "raw/lines.csv:2: line: expected a name, found nothing",
            "raw/stations.csv:2: station: expected a name, found nothing",
        ])
    }

    func testDuplicateIDsNameBothLines() throws {
        var files = Self.files
        files["operators.csv"]! += "1,別会社,5,1\n"
        files["lines.csv"]! += ",11302,1,山手線(重複),\n"
        files["stations.csv"]! += "1130101,東京,,,13,,35.681391,139.766103,1,1\n"
        files["stations_lines.csv"]! += "11302,1130101,9\n"
        XCTAssertEqual(try errors(files), [
            "raw/operators.csv:5: o_id: expected a unique o_id, found 1 again (first on line 2)",
            "raw/lines.csv:5: l_id: expected a unique l_id, found 11302 again (first on line 2)",
            "raw/stations.csv:5: s_id: expected a unique s_id, found 1130101 again (first on line 2)",
            "raw/stations_lines.csv:5: l_id, s_id: expected each station once per line, found l_id 11302, s_id 1130101 again (first on line 2)",
        ])
    }

    func testDanglingReferences() throws {
        var files = replacing("lines.csv", ",99301,2,", ",99301,9,")
        files["stations.csv"] = files["stations.csv"]!.replacingOccurrences(of: "139.767,2,0", with: "139.767,8,0")
        files["stations_lines.csv"]! += "11399,1130101,3\n11302,1139999,4\n"
        XCTAssertEqual(try errors(files), [
            "raw/lines.csv:3: o_id: expected an o_id listed in raw/operators.csv, found 9",
            "raw/stations.csv:4: o_id: expected an o_id listed in raw/operators.csv, found 8",
            "raw/stations_lines.csv:5: l_id: expected an l_id listed in raw/lines.csv, found 11399",
            "raw/stations_lines.csv:6: s_id: expected an s_id listed in raw/stations.csv, found 1139999",
        ])
    }

    func testMissingColumnsAndFiles() throws {
        var files = Self.files
        files["stations.csv"] = "s_id,station,lat,lng,o_id\n1130101,東京,35.681391,139.766103,1\n"
        files["stations_lines.csv"] = nil
        XCTAssertEqual(try errors(files), [
            "raw/stations.csv:1: pref: missing column pref; expected the columns s_id, station, pref, lat, lng, o_id (and optionally yomi, wiki, address, enabled)",
            "raw/stations_lines.csv: file not found; expected stations_lines.csv in the source folder raw",
        ])
        files["stations.csv"] = ""
        files["stations_lines.csv"] = Self.stationLines
        XCTAssertEqual(try errors(files), [
            "raw/stations.csv:1: empty file; expected a header naming the columns s_id, station, pref, lat, lng, o_id (and optionally yomi, wiki, address, enabled)",
        ])
    }

    func testMalformedCSVIsReportedWithFileAndLine() throws {
        var files = replacing("stations.csv", "9930101,東京,,,13,,35.68,139.767,2,0", "9930101,東京,,,13,,35.68,139.767,2")
        files["operators.csv"] = files["operators.csv"]!.replacingOccurrences(of: "2,東京都交通局", with: "2,\"東京都\"交通局")
        XCTAssertEqual(try errors(files), [
            "raw/operators.csv:3: operator: unexpected text after a closing quote (write a quote inside a quoted field as \"\")",
            "raw/stations.csv:4: expected 10 fields as in the header, found 9",
        ])
    }

    func testUnterminatedQuoteAndInvalidUTF8() throws {
        let folder = try makeSourceFolder(self, replacing("lines.csv", ",99301,2,大江戸線,", ",99301,2,\"大江戸線,"))
        var bytes = Array(Self.stations.utf8)
        let at = bytes.firstIndex(of: UInt8(ascii: "\""))! + 1     // first byte of 神田 inside the quotes, line 3
        bytes[at] = 0xFF
        try writeBytes(bytes, to: folder + "/stations.csv")
        XCTAssertEqual(inputErrorMessages { try NativeCSVReader.read(folder: folder, label: "raw") }, [
            "raw/lines.csv:3: line: unterminated quoted field (a \" opened here is never closed)",
            "raw/stations.csv:3: station: invalid UTF-8 (byte 0xFF); expected UTF-8 text",
        ])
    }

    func testCollectsAllProblemsUpToTheLimit() throws {
        var files = Self.files
        files["stations.csv"] = Self.stations + (1...150).map { "\(2_000_000 + $0),駅\($0),,,99,,35.0,139.0,1,1\n" }.joined()
        let error: StationError
        do {
            _ = try read(files)
            return XCTFail("expected bad input")
        } catch let e as StationError where e.kind == .badInput {
            error = e
        }
        XCTAssertEqual(error.diagnostics.count, 100)
        XCTAssertTrue(error.truncated)
        XCTAssertEqual(error.diagnostics.first?.description, "raw/stations.csv:5: pref: expected 1..47, found 99")
        XCTAssertTrue(error.description.hasSuffix("error: too many problems; stopped after 100"))
    }
}

final class KeyOrderTests: XCTestCase {
    func testNativeKeysComeOutInStringOrder() throws {
        var files = NativeCSVReaderTests.files
        files["stations.csv"]! += "9,駅九,,,13,,35.0,139.0,1,1\n10,駅十,,,13,,35.0,139.0,1,1\n100,駅百,,,13,,35.0,139.0,1,1\n"
        files["stations_lines.csv"]! += "11302,9,3\n11302,10,3\n11302,100,3\n"
        let n = try NativeCSVReader.read(folder: try makeSourceFolder(self, files), label: "raw")
        XCTAssertEqual(n.stations.map(\.key), ["s:10", "s:100", "s:1130101", "s:1130102", "s:9", "s:9930101"])
        XCTAssertEqual(n.stationLines.map { "\($0.lineKey) \($0.sort) \($0.stationKey)" }, [
            "l:11302 1 s:1130101", "l:11302 2 s:1130102", "l:11302 3 s:10", "l:11302 3 s:100", "l:11302 3 s:9",
            "l:99301 5 s:9930101",
        ])
        var resorted = n
        resorted.sortByKey()
        assertSameNetwork(n, resorted)
    }
}
