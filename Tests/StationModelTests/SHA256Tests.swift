import XCTest
@testable import StationModel

/// FIPS 180-4's test vectors, and chunked updates agreeing with one-shot ones.
final class SHA256Tests: XCTestCase {
    func testKnownVectors() {
        XCTAssertEqual(SHA256.hex(Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(SHA256.hex(Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(SHA256.hex(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(SHA256.hex(Data(repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    func testChunkedUpdatesAndFilesAgree() throws {
        var bytes = [UInt8]()
        var x: UInt32 = 12345
        for _ in 0..<100_003 { x = x &* 1_103_515_245 &+ 12345; bytes.append(UInt8(truncatingIfNeeded: x >> 16)) }
        let whole = SHA256.hex(Data(bytes))
        for step in [1, 63, 64, 65, 4096] {
            var h = SHA256()
            var i = 0
            while i < bytes.count { let j = min(bytes.count, i + step); h.update(Data(bytes[i..<j])); i = j }
            XCTAssertEqual(h.finalize().map { String(format: "%02x", $0) }.joined(), whole, "chunks of \(step)")
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try SHA256.hex(fileAt: path), whole)
    }

    /// Files longer than the 1 MiB read chunk, hashed through whichever
    /// streaming implementation is in use, against the one-shot digest.
    func testFilesAcrossReadChunks() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: UInt8(ascii: "a"), count: 1_000_000).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try SHA256.hex(fileAt: path), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        var bytes = [UInt8]()
        var x: UInt32 = 99
        for _ in 0..<(5 << 19) + 7 { x = x &* 1_103_515_245 &+ 12345; bytes.append(UInt8(truncatingIfNeeded: x >> 16)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        var own = SHA256()
        own.update(Data(bytes))
        XCTAssertEqual(try SHA256.hex(fileAt: path), own.finalize().map { String(format: "%02x", $0) }.joined())
        XCTAssertThrowsError(try SHA256.hex(fileAt: path + ".missing"))
    }
}

/// The CPU's SHA instructions and the portable rounds give the same digests.
final class SHA256PathsTests: XCTestCase {
    func testCPUInstructionsAgreeWithPortableRounds() throws {
        try XCTSkipUnless(SHA256.cpuHasSHA, "this CPU has no SHA instructions: only the portable rounds run here")
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8]()
        for _ in 0..<70_000 { x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; bytes.append(UInt8(truncatingIfNeeded: x >> 33)) }
        // Lengths around the block and padding edges, and many blocks at once.
        for length in [0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 1000, 4096 + 17, 70_000] {
            let slice = Array(bytes[0..<length])
            var cpu = SHA256(), portable = SHA256(portable: true)
            cpu.update(Data(slice))
            portable.update(Data(slice))
            XCTAssertEqual(cpu.finalize(), portable.finalize(), "\(length) bytes")
        }
        var portable = SHA256(portable: true)
        portable.update(Data("abc".utf8))
        XCTAssertEqual(SHA256.hex(digest: portable.finalize()), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }
}
