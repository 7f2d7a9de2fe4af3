import XCTest
import StationModel
@testable import Ingest

/// Scanning a file reads it straight into the fields' storage, with unescaped
/// quoted fields kept after the file's bytes: it must see exactly what
/// scanning the same bytes in memory sees.
final class ScanFromFileTests: XCTestCase {
    func testFileAndMemoryScansAgreeOnQuotedAndEscapedFields() throws {
        let text = "\u{FEFF}\"id\",\"na\"\"me\",note\r\n1,\"a \"\"b\"\" c\",plain\n2,\"multi\nline\",\"\"\n\n3,,\"x\"\"\"\n"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("t.csv").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))

        let fromFile = try CSVReader.scan(path: path, displayName: "t.csv")
        let inMemory = try CSVReader.scan(Data(text.utf8), file: "t.csv")
        XCTAssertEqual(fromFile.header, ["id", "na\"me", "note"])
        XCTAssertEqual(fromFile.header, inMemory.header)
        XCTAssertEqual(fromFile.lines, [2, 3, 6])
        XCTAssertEqual(fromFile.count, inMemory.count)
        for r in 0..<fromFile.count {
            XCTAssertEqual((0..<3).map { fromFile.string(r, $0) }, (0..<3).map { inMemory.string(r, $0) })
        }
        XCTAssertEqual((0..<3).map { fromFile.string(0, $0) }, ["1", "a \"b\" c", "plain"])
        XCTAssertEqual((0..<3).map { fromFile.string(1, $0) }, ["2", "multi\nline", ""])
        XCTAssertEqual((0..<3).map { fromFile.string(2, $0) }, ["3", "", "x\""])
    }

    func testRegistryKeepsKeysAndRecordsByIDAndWritesInIDOrder() throws {
        let header = "kind,id,keys,name,o_id,type,enabled,yomi,wiki,pref,address,lat,lng\n"
        let text = header + #"""
            station,5,s:5,"東京, 丸の内",1,,1,とうきょう,,13,"千代田区 ""一丁目""",35681236,139767125
            operator,2,o:2,B,,2,1,,,,,,
            line,7,l:7,山手線,1,,0,,,,,,
            operator,1,o:1|x:9,A,,1,0,,,,,,

            """#
        let r = try Registry.parse(Array(text.utf8))
        XCTAssertEqual(r._operators.ids.sorted(), [1, 2])
        XCTAssertEqual(r._operators.keys(of: 1), ["o:1", "x:9"])
        XCTAssertNil(r._operators.keys(of: 3))
        XCTAssertEqual(r._operators.row(of: 1, in: r.file), Operator(id: 1, name: "A", type: 1, enabled: false))
        XCTAssertEqual(r.lines[7]?.row, Line(id: 7, name: "山手線", operatorID: 1, enabled: false, type: nil))
        XCTAssertEqual(r.stations[5]?.row, Station(id: 5, name: "東京, 丸の内", yomi: "とうきょう", pref: 13, address: "千代田区 \"一丁目\"",
                                                   lat: 35_681_236, lng: 139_767_125, operatorID: 1))
        // Written back: operators, lines, stations, each by ID, quoted only where needed.
        let written = String(decoding: r.csvBytes(), as: UTF8.self)
        XCTAssertEqual(written, header + #"""
            operator,1,o:1|x:9,A,,1,0,,,,,,
            operator,2,o:2,B,,2,1,,,,,,
            line,7,l:7,山手線,1,,0,,,,,,
            station,5,s:5,"東京, 丸の内",1,,1,とうきょう,,13,"千代田区 ""一丁目""",35681236,139767125

            """#)
        XCTAssertEqual(try Registry.parse(r.csvBytes()), r)
        XCTAssertTrue(written.hasPrefix(CSVWriter.line(Registry.columns)))

        var table = RegistryTable<Operator>()
        XCTAssertTrue(table.add(id: 4, keys: "o:4", record: 0))
        XCTAssertFalse(table.add(id: 4, keys: "o:44", record: 1), "an ID is added once")
        XCTAssertEqual(table.keys(of: 4), ["o:4"])
        XCTAssertEqual(table.count, 1)
        // Keys are kept joined and compared in place.
        XCTAssertTrue(table.add(id: 5, keys: "o:5|x:1", record: 2))
        XCTAssertEqual(table.keys(of: 5), ["o:5", "x:1"])
        XCTAssertTrue(table.keys(of: 5, are: ["o:5", "x:1"]))
        for other in [["o:5"], ["x:1", "o:5"], ["o:5", "x:1", "y"], ["o:5", "x:"], []] {
            XCTAssertFalse(table.keys(of: 5, are: other), "\(other)")
        }
        XCTAssertFalse(table.keys(of: 99, are: ["o:5"]))
        var seen: [String] = []
        table.forEachKey { id, key in seen.append("\(id) \(key)") }
        XCTAssertEqual(seen, ["4 o:4", "5 o:5", "5 x:1"])
    }

    /// Empty keys in a hand-edited keys field are dropped, as they always were.
    func testRegistryKeysFieldWithEmptyKeys() throws {
        let text = CSVWriter.line(Registry.columns) + "operator,6,|o:6||x:2|,C,,1,1,,,,,,\noperator,7,o:7,D,,1,1,,,,,,\n"
        let r = try Registry.parse(Array(text.utf8))
        XCTAssertEqual(r.operators[6]?.keys, ["o:6", "x:2"])
        XCTAssertEqual(r.operators[7]?.keys, ["o:7"])
        XCTAssertTrue(r._operators.keys(of: 6, are: ["o:6", "x:2"]))
    }
}
