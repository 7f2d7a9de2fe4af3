import Foundation
import XCTest
import StationModel

final class MappedFileTests: XCTestCase {
    /// Ranges that start off a page boundary, the whole file, and what cannot be mapped.
    func testMappedBytesAreTheFilesBytes() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mapped-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))

        XCTAssertEqual(MappedFile.data(path: path).map { [UInt8]($0) }, bytes)
        for range in [0..<1, 5..<4097, 4095..<4097, 4096..<8192, 12_345..<20_000, 19_999..<20_000, 100..<100] {
            XCTAssertEqual(try MappedFile.withBytes(path: path, range: range) { Array($0) }, Array(bytes[range]), "\(range)")
        }
        XCTAssertNil(try MappedFile.withBytes(path: path, range: 19_000..<20_001) { Array($0) }, "past the end")
        XCTAssertNil(try MappedFile.withBytes(path: path + ".missing", range: 0..<1) { Array($0) })
        XCTAssertNil(MappedFile.data(path: path + ".missing"))
        XCTAssertNil(MappedFile.data(path: FileManager.default.temporaryDirectory.path), "a folder")

        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data()))
        XCTAssertEqual(MappedFile.data(path: path), Data())
    }
}
