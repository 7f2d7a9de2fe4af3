import XCTest
import StationCore

/// Reading a file must see exactly what parsing the same bytes in memory sees,
/// quoted and escaped fields included.
final class ScanFromFileTests: XCTestCase {
    func testFileAndMemoryScansAgreeOnQuotedAndEscapedFields() throws {
        let text = "\u{FEFF}\"id\",\"na\"\"me\",note\r\n1,\"a \"\"b\"\" c\",plain\n2,\"multi\nline\",\"\"\n\n3,,\"x\"\"\"\n"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let fromFile = try CSVReader.read(path: path, displayName: "t.csv")
        let inMemory = try CSVReader.parse(Array(text.utf8), file: "t.csv")
        XCTAssertEqual(fromFile.file, "t.csv")
        XCTAssertEqual(fromFile.header, ["id", "na\"me", "note"])
        XCTAssertEqual(fromFile.header, inMemory.header)
        XCTAssertEqual(fromFile.records.map(fromFile.line), [2, 3, 6])
        XCTAssertEqual(fromFile.records.map(inMemory.line), [2, 3, 6])
        XCTAssertEqual(fromFile.count, inMemory.count)
        for r in fromFile.records {
            XCTAssertEqual(fromFile.fields(r), inMemory.fields(r))
        }
        XCTAssertEqual(fromFile.fields(0), ["1", "a \"b\" c", "plain"])
        XCTAssertEqual(fromFile.fields(1), ["2", "multi\nline", ""])
        XCTAssertEqual(fromFile.fields(2), ["3", "", "x\""])
        XCTAssertEqual(fromFile.string(0, "na\"me"), "a \"b\" c")
        XCTAssertEqual(fromFile.string(2, fromFile.column("note")), "x\"")
    }

    func testRegistryKeepsKeysAndRecordsByIDAndWritesInIDOrder() throws {
        let header = "kind,id,keys,name,o_id,type,enabled,yomi,wiki,pref,address,lat,lng\n"
        let text = header + #"""
            station,5,s:5,"東京, 丸の内",1,,1,とうきょう,,13,"千代田区 ""一丁目""",35681236,139767125
            operator,2,o:2,B,,2,1,,,,,,
            line,7,l:7,山手線,1,,0,,,,,,
            operator,1,o:1|x:9,A,,1,0,,,,,,

            """#
        let r = try Registry.parse(CSVReader.parse(text, file: "registry.csv"))
        XCTAssertEqual(r.ids(.operator_), [1, 2])
        XCTAssertEqual(r.keys(.operator_, 1), ["o:1", "x:9"])
        XCTAssertNil(r.row(operator: 3))
        XCTAssertEqual(r.row(operator: 1), Operator(id: 1, name: "A", type: 1, enabled: false))
        XCTAssertEqual(r.row(line: 7), Line(id: 7, name: "山手線", operatorID: 1, enabled: false, type: nil))
        XCTAssertEqual(r.row(station: 5), Station(id: 5, name: "東京, 丸の内", yomi: "とうきょう", pref: 13, address: "千代田区 \"一丁目\"",
                                                   lat: 35_681_236, lng: 139_767_125, operatorID: 1))
        // Written back: operators, lines, stations, each by ID, quoted only where needed; a
        // registry written before rows said whether a station is a Shinkansen one and which
        // lines it served is completed (its keys say which; the lines, the next run's).
        let written = String(decoding: r.text(), as: UTF8.self)
        XCTAssertEqual(written, "kind,id,keys,name,o_id,type,enabled,yomi,wiki,pref,address,lat,lng,shinkansen,lines,decided,merged\n" + #"""
            operator,1,o:1|x:9,A,,1,0,,,,,,,,,,
            operator,2,o:2,B,,2,1,,,,,,,,,,
            line,7,l:7,山手線,1,,0,,,,,,,,,,
            station,5,s:5,"東京, 丸の内",1,,1,とうきょう,,13,"千代田区 ""一丁目""",35681236,139767125,0,,,

            """#)
        XCTAssertEqual(try Registry.parse(CSVReader.parse(r.text(), file: "registry.csv")), r)
        XCTAssertTrue(written.hasPrefix(CSVWriter.line(Registry.columns)))

        // An ID is registered once: a second row of the same kind and ID is bad input.
        let twice = CSVWriter.line(Registry.columns) + "operator,4,o:4,A,,1,1,,,,,,,,,,\noperator,4,o:44,B,,1,1,,,,,,,,,,\nline,4,l:4,L,4,,1,,,,,,,,,,\n"
        XCTAssertEqual(inputErrorMessages { try Registry.parse(CSVReader.parse(twice, file: "raw/registry.csv")) },
                       ["raw/registry.csv:3: id: duplicate operator id 4"])
    }

    /// Empty keys in a hand-edited keys field are dropped, as they always were.
    func testRegistryKeysFieldWithEmptyKeys() throws {
        let text = CSVWriter.line(Registry.columns) + "operator,6,|o:6||x:2|,C,,1,1,,,,,,,,,,\noperator,7,o:7,D,,1,1,,,,,,,,,,\n"
        let r = try Registry.parse(CSVReader.parse(text, file: "registry.csv"))
        XCTAssertEqual(r.keys(.operator_, 6), ["o:6", "x:2"])
        XCTAssertEqual(r.keys(.operator_, 7), ["o:7"])
    }
}
