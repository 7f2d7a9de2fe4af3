import Foundation
import Glibc
import Publishing
import StationCore
import TestSupport
import XCTest

/// A publish with nothing changed parses none of the files the stages wrote: each is known
/// by the digest of the bytes written and the stamp it was written with (issue 36). Shown by
/// a staging file, weights, registry and lint report each damaged in place with its stamp put
/// back: read, any of them would fail the run; with its stamp changed, the run finds it out.
final class ReadOnceTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var build: String { folder + "/build" }
    var dist: String { folder + "/dist" }
    var written: [String] { ["staging.bin", "staging.bin.registry.csv", "weights.csv", "lint.json"].map { build + "/" + $0 } }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("read-once-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    func publish() async throws -> RunReport {
        try await Pipeline(PublishSettings(raw: raw, build: build, dist: dist)).publish()
    }

    /// Overwrites `path` in place (same inode, same size) with bytes no reader takes, and
    /// with `keepStamp` gives it back the modification time it had.
    func damageInPlace(_ path: String, keepStamp: Bool) throws {
        var before = stat()
        XCTAssertEqual(stat(path, &before), 0, path)
        let fd = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(fd, 0, path)
        let junk = [UInt8](repeating: 0x7F, count: Int(before.st_size))
        XCTAssertEqual(junk.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }, junk.count)
        close(fd)
        if keepStamp {
            var times = [before.st_atim, before.st_mtim]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0, path)
        }
        XCTAssertEqual(WrittenFile.stamp(of: path) == Self.stamp(before), keepStamp, path)
    }

    static func stamp(_ info: stat) -> String { "\(info.st_size) \(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" }

    func testNothingChangedOpensNoFileTheStagesWrote() async throws {
        let first = try await publish()
        XCTAssertEqual(first.outcome, .published)
        let latest = try Files.read(dist + "/latest.json")
        var damaged: [String: String] = [:]
        for path in written {
            try damageInPlace(path, keepStamp: true)
            damaged[path] = try SHA256.hex(fileAt: path)
        }
        let again = try await publish()
        XCTAssertEqual(again.outcome, .unchanged)
        XCTAssertEqual(again.lintWarnings, first.lintWarnings, "the lint count comes from ingest's record")
        XCTAssertEqual(try Files.read(dist + "/latest.json"), latest)
        // Hashed, each would have made its stage run again and be written anew.
        for path in written { XCTAssertEqual(try SHA256.hex(fileAt: path), damaged[path], "\(path) was read and its stage ran") }
    }

    func testAFileWhoseStampChangedIsReadAndItsStageRunsAgain() async throws {
        _ = try await publish()
        let staging = try Files.read(build + "/staging.bin")
        try damageInPlace(build + "/staging.bin", keepStamp: false)
        let again = try await publish()
        XCTAssertEqual(again.outcome, .unchanged)
        XCTAssertEqual(try Files.read(build + "/staging.bin"), staging, "ingest wrote the staging file again")
    }
}
