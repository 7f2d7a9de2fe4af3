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

    func testRegistryTableKeepsEntriesByIDAndComparesThem() {
        var a = RegistryTable<Operator>(), b = RegistryTable<Operator>()
        a[2] = (["o:2"], Operator(id: 2, name: "B", type: 1, enabled: true))
        a[1] = (["o:1"], Operator(id: 1, name: "A", type: 1, enabled: true))
        b[1] = (["o:1"], Operator(id: 1, name: "A", type: 1, enabled: true))
        b[2] = (["o:2"], Operator(id: 2, name: "B", type: 1, enabled: true))
        XCTAssertTrue(a.sameEntries(as: b))
        XCTAssertEqual(a.keys.sorted(), [1, 2])
        XCTAssertEqual(a.keys(of: 2), ["o:2"])
        XCTAssertNil(a.keys(of: 3))
        b[2] = (["o:2", "x:9"], Operator(id: 2, name: "B", type: 1, enabled: true))
        XCTAssertEqual(b.count, 2)
        XCTAssertFalse(a.sameEntries(as: b))
        XCTAssertEqual(b.dictionary[2]?.keys, ["o:2", "x:9"])
    }
}
