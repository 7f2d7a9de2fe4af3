import Foundation
import XCTest
import StationCore
import TestSupport

/// Gzip written by libdeflate, inflated by zlib: reproducible bytes, one standard
/// member that other readers (gzip, Python's gzip module) read, and inflating that
/// refuses damaged, cut and oversized input.
final class GzipTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws { folder = try temporaryFolder("GzipTests") }
    override func tearDownWithError() throws { Files.remove(folder) }

    private func path(_ name: String) -> String { joinPath(folder, name) }

    /// Text-like bytes that compress, with some noise, about 1.2 MB: several read chunks.
    private func sample() -> [UInt8] {
        var out: [UInt8] = []
        var x: UInt32 = 5
        for i in 0..<30_000 {
            x = x &* 1_103_515_245 &+ 12345
            out += Array("\(i),東京駅\(x >> 20),35.681236,139.767125\n".utf8)
        }
        return out
    }

    func testRoundTripIsReproducibleAndStandard() throws {
        let original = sample()
        try Files.write(original, to: path("in"))
        let a = try Gzip.compress(fileAt: path("in"), to: path("a.gz"))
        let b = try Gzip.compress(fileAt: path("in"), to: path("b.gz"))
        let gz = try Files.read(path("a.gz"))
        XCTAssertEqual(gz, try Files.read(path("b.gz")), "the same bytes in give the same bytes out")
        XCTAssertEqual(a.bytes, gz.count)
        XCTAssertEqual(a.sha256, SHA256.hex(gz))
        XCTAssertEqual(a.sha256, b.sha256)
        XCTAssertLessThan(gz.count, original.count / 2)
        // Magic, deflate, no flags (no name), mtime 0, XFL 2 (slowest level), OS 255 (unknown).
        XCTAssertEqual(Array(gz[0..<10]), [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xFF])

        let inflated = try Gzip.decompress(fileAt: path("a.gz"), to: path("out"), maxBytes: original.count)
        XCTAssertEqual(try Files.read(path("out")), original)
        XCTAssertEqual(inflated.bytes, original.count)
        XCTAssertEqual(inflated.sha256, SHA256.hex(original))
        // Only counted and hashed.
        let counted = try Gzip.decompress(fileAt: path("a.gz"), to: nil, maxBytes: Int.max)
        XCTAssertEqual(counted.bytes, original.count)
        XCTAssertEqual(counted.sha256, SHA256.hex(original))

        // Another gzip reader agrees, where there is one.
        for tool in ["/usr/bin/gzip", "/bin/gzip"] where FileManager.default.isExecutableFile(atPath: tool) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = ["-dc", path("a.gz")]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            XCTAssertEqual([UInt8](data), original, "\(tool) -dc")
            break
        }
    }

    /// Python's gzip module inflates it to the input, and zlib finds exactly one member
    /// with nothing after it: what Android's GZIPInputStream and iOS's zlib read.
    func testPythonReadsOneStandardMember() throws {
        let original = sample()
        try Files.write(original, to: path("in"))
        _ = try Gzip.compress(fileAt: path("in"), to: path("a.gz"))
        try assertPythonInflates(path("a.gz"), to: original)
        try Files.write([], to: path("empty"))
        _ = try Gzip.compress(fileAt: path("empty"), to: path("empty.gz"))
        try assertPythonInflates(path("empty.gz"), to: [])
    }

    /// The bytes themselves, pinned: every machine that publishes must write the same
    /// gzip for the same bundle, and another libdeflate (or level) may write others.
    /// (`libdeflate-gzip -12` of the same input gives the same digest.)
    func testBytesArePinned() throws {
        try Files.write(sample(), to: path("in"))
        let gzip = try Gzip.compress(fileAt: path("in"), to: path("a.gz"))
        XCTAssertEqual(gzip.sha256, "9d33efeae537b4f9bf421f5f3a7c83e11644ee83363e0a8eb645b19308a5bd76", """
            the gzip of the same bytes changed (\(gzip.bytes) bytes): the libdeflate linked or Gzip.level differs \
            from Debian 12's libdeflate 1.14 at level 12, so a version published here would differ from one published \
            elsewhere; pin the new digest only when every machine that publishes writes it
            """)
    }

    func testEmptyFileAndConcatenatedMembers() throws {
        try Files.write([], to: path("empty"))
        _ = try Gzip.compress(fileAt: path("empty"), to: path("empty.gz"))
        let empty = try Gzip.decompress(fileAt: path("empty.gz"), to: path("empty.out"), maxBytes: 0)
        XCTAssertEqual(empty.bytes, 0)
        XCTAssertEqual(empty.sha256, SHA256.hex([UInt8]()))
        XCTAssertEqual(try Files.read(path("empty.out")), [])

        // Two members in a row (as `cat a.gz b.gz` makes) inflate to both.
        try Files.write(Array("first\n".utf8), to: path("1"))
        try Files.write(Array("second\n".utf8), to: path("2"))
        _ = try Gzip.compress(fileAt: path("1"), to: path("1.gz"))
        _ = try Gzip.compress(fileAt: path("2"), to: path("2.gz"))
        try Files.write(try Files.read(path("1.gz")) + Files.read(path("2.gz")), to: path("both.gz"))
        let both = try Gzip.decompress(fileAt: path("both.gz"), to: path("both"), maxBytes: 100)
        XCTAssertEqual(try Files.read(path("both")), Array("first\nsecond\n".utf8))
        XCTAssertEqual(both.sha256, SHA256.hex("first\nsecond\n"))
    }

    func testDamagedCutAndOversizedInputIsRefused() throws {
        let original = sample()
        try Files.write(original, to: path("in"))
        _ = try Gzip.compress(fileAt: path("in"), to: path("a.gz"))
        let gz = try Files.read(path("a.gz"))

        func failure(_ bytes: [UInt8], maxBytes: Int = Int.max, file: StaticString = #filePath, line: UInt = #line) -> Gzip.Failure? {
            XCTAssertNoThrow(try Files.write(bytes, to: path("bad.gz")), file: file, line: line)
            do {
                _ = try Gzip.decompress(fileAt: path("bad.gz"), to: nil, maxBytes: maxBytes)
                XCTFail("expected a Gzip.Failure", file: file, line: line)
            } catch let error as StationError where error.kind == .damaged {
                guard case .gzip(let f)? = error.cause else { XCTFail("expected a Gzip.Failure, got \(error)", file: file, line: line); return nil }
                return f
            } catch {
                XCTFail("expected a Gzip.Failure, got \(error)", file: file, line: line)
            }
            return nil
        }
        func isTruncated(_ f: Gzip.Failure?) -> Bool { if case .truncated = f { return true }; return false }
        func isDamaged(_ f: Gzip.Failure?) -> Bool { if case .damaged = f { return true }; return false }

        XCTAssertTrue(isTruncated(failure([])), "an empty file is no gzip")
        for cut in [1, 10, gz.count / 2, gz.count - 1] {
            XCTAssertTrue(isTruncated(failure(Array(gz[..<cut]))), "cut at \(cut)")
        }
        XCTAssertTrue(isDamaged(failure(Array("not gzip at all".utf8))))
        // The CRC-32 of the inflated bytes sits 8 bytes from the end.
        var badCRC = gz
        badCRC[gz.count - 8] ^= 0xFF
        XCTAssertTrue(isDamaged(failure(badCRC)))
        guard case .tooLarge(let limit)? = failure(gz, maxBytes: original.count - 1) else {
            return XCTFail("expected tooLarge")
        }
        XCTAssertEqual(limit, original.count - 1)
        XCTAssertThrowsError(try Gzip.decompress(fileAt: path("missing.gz"), to: nil, maxBytes: 1)) {
            XCTAssertTrue($0.station(.badInput) != nil, "a path that names nothing: \($0)")
        }
        XCTAssertThrowsError(try Gzip.compress(fileAt: path("missing"), to: path("m.gz"))) {
            XCTAssertTrue($0.station(.badInput) != nil, "a path that names nothing: \($0)")
        }
    }
}
