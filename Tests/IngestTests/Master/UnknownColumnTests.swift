import Ingest
import StationCore
import Foundation
import XCTest

/// A misspelled column header turned a check off (`expects` ignored, so a fix with a
/// mistyped s_id was published) or passed unnoticed (`notes`): in fixes.csv,
/// weights.csv and a native master (renumbered.csv: BuildDBTests), an unknown column is an error at
/// line 1 naming it.
final class UnknownColumnTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("columns-\(UUID().uuidString)").path
        try Files.createFolder(folder)
    }

    override func tearDown() { Files.remove(folder) }

    func assertUnknown(_ column: String, file: String, _ body: () throws -> Void, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [SourceLocation(file: file, line: 1, field: column)], "\(error)", line: line)
        }
    }

    func testEveryMaintainersTableRefusesAnUnknownColumn() throws {
        let fixes = folder + "/fixes.csv"
        for header in ["action,table,match,field,value,expects,note", "action,table,match,field,value,expect,notes"] {
            try Files.write(Array((header + "\nset,stations,s_id=1,yomi,x,station=a,b\n").utf8), to: fixes)
            assertUnknown(header.hasSuffix("notes") ? "notes" : "expects", file: "raw/fixes.csv") { _ = try DataFixes.read(path: fixes, label: "raw/fixes.csv") }
        }
        assertUnknown("notes", file: "raw/weights.csv") {
            _ = try HandWeights.parse("s_id,weight,notes\n1,3,x\n", label: "raw/weights.csv", network: RailNetwork())
        }
        try Files.write(Array("o_id,operator,type,enabled\n1,A,1,1\n".utf8), to: folder + "/operators.csv")
        try Files.write(Array("l_id,line,o_id,enabled,l_type\n1,L,1,1,\n".utf8), to: folder + "/lines.csv")
        try Files.write(Array("s_id,station,yomi,pref,lat,lng,o_id,enabeld\n1,S,,13,35.6,139.7,1,1\n".utf8), to: folder + "/stations.csv")
        try Files.write(Array("l_id,s_id,s_sort\n1,1,1\n".utf8), to: folder + "/stations_lines.csv")
        assertUnknown("enabeld", file: "raw/stations.csv") { _ = try NativeCSVReader.read(folder: folder, label: "raw") }
    }
}
