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
    static func damageInPlace(_ path: String, keepStamp: Bool) throws {
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
        XCTAssertEqual(WrittenFile.stamp(of: path) == stamp(before), keepStamp, path)
    }

    static func stamp(_ info: stat) -> String { "\(info.st_size) \(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" }

    func testNothingChangedOpensNoFileTheStagesWrote() async throws {
        let first = try await publish()
        XCTAssertEqual(first.outcome, .published)
        let latest = try Files.read(dist + "/latest.json")
        var damaged: [String: String] = [:]
        for path in written {
            try Self.damageInPlace(path, keepStamp: true)
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
        try Self.damageInPlace(build + "/staging.bin", keepStamp: false)
        let again = try await publish()
        XCTAssertEqual(again.outcome, .unchanged)
        XCTAssertEqual(try Files.read(build + "/staging.bin"), staging, "ingest wrote the staging file again")
    }
}

/// A run publishes exactly the bytes it hashed (issue 43): a file of raw/ changed while a
/// run reads raw/ is the next run's; a link swapped in is never followed out of raw/; a file
/// a stage wrote, damaged in place with its stamp put back, is never published nor copied
/// into raw/.
final class HashedBytesTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var build: String { folder + "/build" }
    var dist: String { folder + "/dist" }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("hashed-bytes-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    func publish(whenIngestRuns change: (@Sendable () -> Void)? = nil) async throws -> RunReport {
        try await Events.sending(to: { event in
            if case .stage("ingest", _?)? = event as? PublishEvent { change?() }
        }) { try await Pipeline(PublishSettings(raw: raw, build: build, dist: dist)).publish() }
    }

    static func fix(_ wiki: String) -> String { "action,table,match,field,value,expect,note\nset,stations,s_id=1,wiki,\(wiki),station=駅1,the article\n" }

    func wiki(ofStation1In version: Int) throws -> [[SQLValue]] {
        let db = try SQLiteDatabase(path: dist + "/\(version)/stations.sqlite")
        defer { db.close() }
        return try db.query("SELECT wiki FROM stations WHERE s_id = 1")
    }

    /// fixes.csv and CREDITS.md replaced just after the run hashed them: the version holds the
    /// fix and the credits it hashed, and latest.json records their digests; reverted, the
    /// files are what is published; the change is the next run's.
    func testAFileChangedWhileARunReadsRawIsTheNextRuns() async throws {
        _ = try await publish()
        try Self.fix("記事A").write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
        try "credits A\n".write(toFile: raw + "/CREDITS.md", atomically: true, encoding: .utf8)
        let raw = self.raw
        let second = try await publish {
            try? Self.fix("記事B").write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
            try? "credits B\n".write(toFile: raw + "/CREDITS.md", atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(second.outcome, .published)
        XCTAssertEqual(try wiki(ofStation1In: 2), [[.text("記事A")]])
        XCTAssertEqual(try Files.read(dist + "/2/CREDITS.md"), Array("credits A\n".utf8))
        let sources = try XCTUnwrap(PublishedBundle.latest(in: dist)?.sources)
        XCTAssertEqual(sources["fixes.csv"], SHA256.hex(Array(Self.fix("記事A").utf8)))
        XCTAssertEqual(sources["CREDITS.md"], try SHA256.hex(fileAt: dist + "/2/CREDITS.md"))
        // raw/ now holds B: the next run publishes it.
        let third = try await publish()
        XCTAssertEqual(third.outcome, .published)
        XCTAssertEqual(try wiki(ofStation1In: 3), [[.text("記事B")]])
        XCTAssertEqual(try Files.read(dist + "/3/CREDITS.md"), Array("credits B\n".utf8))
    }

    /// stations.csv swapped, while a run reads raw/, for a link to a file outside raw/ with a
    /// name of its own: nothing of that file is read or published.
    func testALinkSwappedIntoRawDuringARunIsNeverFollowedOut() async throws {
        _ = try await publish()
        let outside = folder + "/outside-stations.csv"
        try String(contentsOfFile: raw + "/stations.csv", encoding: .utf8).replacingOccurrences(of: ",駅2,", with: ",秘密,")
            .write(toFile: outside, atomically: true, encoding: .utf8)
        try Self.fix("記事A").write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
        let raw = self.raw, published = try folderDigests(dist)
        do {
            let report = try await publish {
                unlink(raw + "/stations.csv")
                symlink(outside, raw + "/stations.csv")
            }
            XCTAssertEqual(report.outcome, .published)
        } catch {
            XCTAssertEqual(error.station(.badInput)?.diagnostics.first?.location.file, "raw/stations.csv", "\(error)")
            XCTAssertEqual(try folderDigests(dist), published, "nothing published")
        }
        for name in Files.names(in: dist) where Int(name) != nil {
            let db = try SQLiteDatabase(path: dist + "/\(name)/stations.sqlite")
            defer { db.close() }
            XCTAssertEqual(try db.query("SELECT count(*) FROM stations WHERE station = '秘密'"), [[.integer(0)]], "version \(name)")
        }
    }

    /// build/weights.csv and the pending registry, each damaged in place with its size, inode
    /// and modification time put back, while a change only the build reads makes it run: the
    /// damaged file is never published nor copied into raw/ (exit 3, removed), and the next
    /// run makes it again.
    func testAStageOutputDamagedInPlaceIsNeverPublishedNorCopiedIntoRaw() async throws {
        _ = try await publish()
        for (step, damaged) in [build + "/weights.csv", build + "/staging.bin.registry.csv"].enumerated() {
            let published = try folderDigests(dist), registry = try Files.read(raw + "/registry.csv")
            try ReadOnceTests.damageInPlace(damaged, keepStamp: true)
            // Only the build reads raw/renumbered.csv: priority and ingest stay as their records say.
            if step == 0 {
                try "new_s_id,old_s_id,version\n".write(toFile: raw + "/renumbered.csv", atomically: true, encoding: .utf8)
            } else {
                unlink(raw + "/renumbered.csv")
            }
            do {
                _ = try await publish()
                XCTFail("\(damaged): published")
            } catch {
                XCTAssertEqual(error.station(.damaged)?.diagnostics.first?.location.file, damaged, "\(error)")
            }
            XCTAssertEqual(try folderDigests(dist), published, "\(damaged): nothing published")
            XCTAssertEqual(try Files.read(raw + "/registry.csv"), registry, "\(damaged): raw/registry.csv as it was")
            XCTAssertFalse(Files.exists(damaged))
            let next = try await publish()
            XCTAssertEqual(next.outcome, .unchanged, "\(damaged)")
            XCTAssertTrue(Files.exists(damaged))
        }
    }
}
