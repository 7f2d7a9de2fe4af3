import Foundation
import XCTest
import Ingest
import StationCore

/// A temporary source folder holding the given files, removed when the test ends.
func makeSourceFolder(_ test: XCTestCase, _ files: [String: String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("stationdb-ingest-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    for (name, text) in files {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
    return folder
}

func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The messages of the StationError of bad input `body` throws; fails the test when it throws nothing or something else.
func inputErrorMessages(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Any) -> [String] {
    do {
        _ = try body()
        XCTFail("expected bad input, got a result", file: file, line: line)
    } catch let error as StationError where error.kind == .badInput {
        return error.diagnostics.map(\.description)
    } catch {
        XCTFail("expected bad input, got \(error)", file: file, line: line)
    }
    return []
}

/// A network with every origin's line number removed, for comparing the result
/// of re-ordered rows (which only moves where each value came from).
func withoutOriginLines(_ network: SourceNetwork) -> SourceNetwork {
    var n = network
    func strip(_ l: SourceLocation) -> SourceLocation { SourceLocation(file: l.file, line: nil, field: l.field) }
    n.operators = n.operators.map { var v = $0; v.origin = strip(v.origin); return v }
    n.lines = n.lines.map { var v = $0; v.origin = strip(v.origin); return v }
    n.stations = n.stations.map { var v = $0; v.origin = strip(v.origin); return v }
    n.stationLines = n.stationLines.map { var v = $0; v.origin = strip(v.origin); return v }
    return n
}

func assertSameNetwork(_ a: SourceNetwork, _ b: SourceNetwork, file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(a.kind, b.kind, file: file, line: line)
    XCTAssertEqual(a.label, b.label, file: file, line: line)
    XCTAssertEqual(a.operators, b.operators, file: file, line: line)
    XCTAssertEqual(a.lines, b.lines, file: file, line: line)
    XCTAssertEqual(a.stations, b.stations, file: file, line: line)
    XCTAssertEqual(a.stationLines, b.stationLines, file: file, line: line)
}

/// Reverses the data rows of a CSV text, keeping the header first.
func reversedRows(_ csv: String) -> String {
    var lines = csv.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    let header = lines.removeFirst()
    return ([header] + lines.reversed()).joined(separator: "\n") + "\n"
}
