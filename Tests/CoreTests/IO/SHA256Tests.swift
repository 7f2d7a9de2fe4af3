import Foundation
import XCTest
import StationCore

/// FIPS 180-4's test vectors, and chunked updates agreeing with one-shot ones.
final class SHA256Tests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hex([UInt8]()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Array("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // Not ASCII: the digest is of the UTF-8 bytes.
        XCTAssertEqual(SHA256.hex("東京"), SHA256.hex([0xE6, 0x9D, 0xB1, 0xE4, 0xBA, 0xAC]))
    }

    func testChunkedUpdatesAndFilesAgree() throws {
        var bytes = [UInt8]()
        var x: UInt32 = 12345
        for _ in 0..<100_003 { x = x &* 1_103_515_245 &+ 12345; bytes.append(UInt8(truncatingIfNeeded: x >> 16)) }
        let whole = SHA256.hex(bytes)
        for step in [1, 63, 64, 65, 4096] {
            let h = SHA256Hasher()
            var i = 0
            while i < bytes.count { let j = min(bytes.count, i + step); h.update(Array(bytes[i..<j])); i = j }
            XCTAssertEqual(h.finalizeHex(), whole, "chunks of \(step)")
        }
        // The raw-buffer update, as the file and gzip readers feed it.
        let raw = SHA256Hasher()
        bytes.withUnsafeBytes { all in
            raw.update(UnsafeRawBufferPointer(rebasing: all[..<500]))
            raw.update(UnsafeRawBufferPointer(rebasing: all[500..<500]))
            raw.update(UnsafeRawBufferPointer(rebasing: all[500...]))
        }
        XCTAssertEqual(raw.finalizeHex(), whole)
        let folder = try temporaryFolder("SHA256Tests")
        defer { Files.remove(folder) }
        let path = joinPath(folder, "bytes")
        try Files.write(bytes, to: path)
        XCTAssertEqual(try SHA256.hex(fileAt: path), whole)
    }

    /// Files longer than the read chunk, hashed piece by piece, against the one-shot digest.
    func testFilesAcrossReadChunks() throws {
        let folder = try temporaryFolder("SHA256Tests")
        defer { Files.remove(folder) }
        let path = joinPath(folder, "a")
        try Files.write([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000), to: path)
        XCTAssertEqual(try SHA256.hex(fileAt: path), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var bytes = [UInt8]()
        var x: UInt32 = 99
        for _ in 0..<(5 << 19) + 7 { x = x &* 1_103_515_245 &+ 12345; bytes.append(UInt8(truncatingIfNeeded: x >> 16)) }
        try Files.write(bytes, to: path)
        XCTAssertEqual(try SHA256.hex(fileAt: path), SHA256.hex(bytes))
        try Files.write([], to: path)
        XCTAssertEqual(try SHA256.hex(fileAt: path), SHA256.hex([UInt8]()))
        XCTAssertThrowsError(try SHA256.hex(fileAt: path + ".missing")) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics, [Diagnostic(SourceLocation(file: path + ".missing"), "no such file or folder")])
        }
    }
}
