import Foundation
import StationCore
import XCTest

/// Compares `text` with the golden file at `path` (relative to the repository), and fails with
/// a unified diff of the two when they differ. With STATIONDB_WRITE_GOLDEN set, it writes the
/// file instead and fails all the same, as swift-snapshot-testing's record mode does: a run
/// that records has checked nothing, and must not pass for one that did.
package func assertGolden(_ text: String, at path: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let absolute = RepositoryData.root + "/" + path
    if ProcessInfo.processInfo.environment["STATIONDB_WRITE_GOLDEN"] != nil {
        try Files.write(Array(text.utf8), to: absolute)
        XCTFail("wrote \(path) (STATIONDB_WRITE_GOLDEN): look at `git diff \(path)`, then run the tests again without it", file: file, line: line)
        return
    }
    guard Files.exists(absolute) else {
        XCTFail("\(path) is missing: run the test once with STATIONDB_WRITE_GOLDEN=1 to write it, then look at it", file: file, line: line)
        return
    }
    let expected = String(decoding: try Files.read(absolute), as: UTF8.self)
    guard expected != text else { return }
    XCTFail("\(path) differs from what this run made (- golden, + now); if the change is meant, rerun with STATIONDB_WRITE_GOLDEN=1:\n"
            + (try unifiedDiff(expected, text, label: path)), file: file, line: line)
}

/// `diff -u` of two texts (the first 200 lines of it).
func unifiedDiff(_ a: String, _ b: String, label: String) throws -> String {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)").path
    try Files.createFolder(folder)
    defer { Files.remove(folder) }
    try Files.write(Array(a.utf8), to: folder + "/golden")
    try Files.write(Array(b.utf8), to: folder + "/now")
    let diff = try BuiltTools.required("diff", debianPackage: "diffutils")
    let run = try runWithTimeout(diff, ["-u", "--label", label + " (golden)", "--label", label + " (now)", "golden", "now"], in: folder, timeout: 60)
    return run.out.split(separator: "\n", omittingEmptySubsequences: false).prefix(200).joined(separator: "\n")
}
