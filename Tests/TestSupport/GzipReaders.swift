import StationCore
import XCTest

/// Python's gzip module inflates the gzip at `path` to `expected`, and zlib (wbits 31:
/// a gzip wrapper only) reads it as one member with nothing after it, whose header has
/// no name, comment or extra field and mtime 0. python3 is required (`make test` installs it).
package func assertPythonInflates(_ path: String, to expected: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
    let python = try BuiltTools.required("python3", debianPackage: "python3")
    let folder = parentFolder(of: path)
    let inflated = path + ".python-inflated"
    defer { unlink(inflated) }
    let run = try runWithTimeout(python, [RepositoryData.root + "/Tests/TestSupport/gzip_check.py", path, inflated], in: folder.isEmpty ? "." : folder, timeout: 60)
    XCTAssertEqual(run.status, 0, "python3 gzip: \(run.err)", file: file, line: line)
    XCTAssertEqual(try Files.read(inflated), expected, "python3's gzip.decompress of \(path)", file: file, line: line)
}
