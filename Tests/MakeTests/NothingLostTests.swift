import Foundation
import StationCore
import Glibc
import XCTest

/// Nothing published is lost: an s_id keeps its meaning however the registry is
/// damaged, and the guards cover every table the apps read.
final class NothingLostTests: XCTestCase {
    /// A registry damaged by a bad merge (a line deleted, a key edited away) stops the publish, naming the ID.
    func testDamagedRegistryPublishesNothing() throws {
        let f = try MakeFixture(copyingRaw: MakeFixture.root + "/raw")
        defer { f.remove() }
        var run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        let published = try MakeFixture.snapshot(f.dist)
        XCTAssertNotNil(published["1/registry.csv"], "the version keeps the registry it was made with")
        let registry = try String(contentsOfFile: f.raw + "/registry.csv", encoding: .utf8)
        let tokyo = try XCTUnwrap(registry.split(separator: "\n").first { $0.hasPrefix("station,1273,") })

        // A line deleted: the station would come back under a new s_id.
        try registry.replacingOccurrences(of: tokyo + "\n", with: "").write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("registry.csv: s_id 1273: station 1273 (東京), published in version 1, is missing from this build"), run.err)
        XCTAssertTrue(run.lastMessage.contains("exit 2 from stationdb"), run.lastMessage)
        // It points to the copy that has the line: the registry version 1 was published with.
        XCTAssertTrue(run.err.contains("take the line back from \(f.dist)/1/registry.csv"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)

        // Its keys edited away: the station would get a new s_id while 1273 stays, disabled.
        let fields = tokyo.split(separator: ",", omittingEmptySubsequences: false)
        let edited = (fields[0..<2] + ["code:9999999"] + fields[3...]).joined(separator: ",")
        try registry.replacingOccurrences(of: tokyo, with: edited).write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("station 1273 (東京) had the key code:1130101 in version 1 and no longer has it"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)

        // Restored from version control: nothing to publish.
        try registry.write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try f.latestVersion(), 1)
    }

    /// Makes a folder read-only, or writable again, for root too: chattr's immutable flag
    /// (root ignores a folder's permissions), else its mode.
    func setReadOnly(_ folder: String, _ readOnly: Bool) throws {
        if getuid() == 0 {
            let p = try Process.run(URL(fileURLWithPath: "/usr/bin/chattr"), arguments: [readOnly ? "+i" : "-i", folder])
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "chattr \(readOnly ? "+i" : "-i") \(folder) (e2fsprogs, CAP_LINUX_IMMUTABLE)")
        } else {
            XCTAssertEqual(chmod(folder, readOnly ? 0o555 : 0o755), 0)
        }
    }

    /// After an exit 5 (a version published, raw/registry.csv not written: a read-only raw/),
    /// the next publish said only "cannot write raw/.registry.csv.tmp-PID". Every run points
    /// at the copy to restore, dist/N/registry.csv, with exit 5, until it is there.
    func testEveryRunAfterAnExit5PointsAtThePublishedRegistry() throws {
        let f = try MakeFixture()
        defer { try? setReadOnly(f.raw, false); f.remove() }
        try setReadOnly(f.raw, true)
        for attempt in 1...2 {
            let run = try f.make()
            XCTAssertEqual(run.status, 2, "\(attempt): \(run.err)")
            XCTAssertTrue(run.lastMessage.contains("(exit 5 from stationdb)"), "\(attempt): \(run.lastMessage)")
            XCTAssertTrue(run.err.contains("copy \(f.dist)/1/registry.csv"), "\(attempt): \(run.err)")
            XCTAssertEqual(try f.latestVersion(), 1, "\(attempt)")
        }
        try setReadOnly(f.raw, false)
        try FileManager.default.copyItem(atPath: f.dist + "/1/registry.csv", toPath: f.raw + "/registry.csv")
        let run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("nothing changed"), run.err)
    }

    /// After an exit 5 (version 2 published with a new s_id, raw/registry.csv left at version
    /// 1's), `make plan` said "nothing would change" with exit 0: raw/registry.csv lags the
    /// published version, and a plan says so as every run does, exit 5, naming the copy.
    func testAPlanAfterAnExit5SaysTheRegistryLags() throws {
        let f = try MakeFixture()
        defer { try? setReadOnly(f.raw, false); f.remove() }
        XCTAssertEqual(try f.make().status, 0)
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 101)
        let before = try Files.read(f.raw + "/registry.csv")
        try setReadOnly(f.raw, true)
        let published = try f.make()
        XCTAssertTrue(published.lastMessage.contains("(exit 5 from stationdb)"), published.err)
        XCTAssertEqual(try f.latestVersion(), 2)
        try setReadOnly(f.raw, false)
        XCTAssertEqual(try Files.read(f.raw + "/registry.csv"), before, "raw/registry.csv lags version 2")
        let plan = try f.make("plan")
        XCTAssertEqual(plan.status, 2, plan.out + plan.err)
        XCTAssertTrue(plan.lastMessage.contains("(exit 5 from stationdb)"), plan.err)
        XCTAssertTrue(plan.err.contains("copy \(f.dist)/2/registry.csv"), plan.err)
        XCTAssertFalse(plan.out.contains("nothing would change"), plan.out)
        XCTAssertEqual(try Files.read(f.raw + "/registry.csv"), before, "a plan writes nothing in raw/")

        try FileManager.default.removeItem(atPath: f.raw + "/registry.csv")
        try FileManager.default.copyItem(atPath: f.dist + "/2/registry.csv", toPath: f.raw + "/registry.csv")
        let mended = try f.make("plan")
        XCTAssertEqual(mended.status, 0, mended.err)
        XCTAssertTrue(mended.out.contains("nothing would change"), mended.out)
    }

    /// The stages by hand, raw/ moved away between ingest and the build: the version is out,
    /// and the build says raw/ is gone (exit 5, naming the copy) rather than make a raw/ of its
    /// own holding only registry.csv.
    func testABuildByHandMakesNoRawWhenRawIsGone() throws {
        let f = try MakeFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.stationdb("ingest", "--raw", f.raw, "--out", f.build + "/staging.bin").status, 0)
        XCTAssertEqual(try f.stationdb("priority", "--staging", f.build + "/staging.bin", "--no-hand", "--out", f.build + "/weights.csv").status, 0)
        XCTAssertEqual(rename(f.raw, f.folder + "/raw-moved"), 0)
        let build = try f.stationdb("build", "--staging", f.build + "/staging.bin", "--weights", f.build + "/weights.csv", "--dist", f.dist,
                                    "--registry", f.raw + "/registry.csv")
        XCTAssertEqual(build.status, 5, build.err)
        XCTAssertEqual(try f.latestVersion(), 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.raw), "no raw/ made by the build")
        XCTAssertTrue(build.err.contains("copy \(f.dist)/1/registry.csv"), build.err)
    }

    /// A native master whose stations_lines.csv lost its rows would empty every line list.
    func testEmptiedStationLinesAreRefusedAndVerifyWarns() throws {
        let f = try MakeFixture()
        defer { f.remove() }
        XCTAssertEqual(try f.make().status, 0)
        let published = try MakeFixture.snapshot(f.dist)
        try f.write("l_id,s_id,s_sort\n", to: "raw/stations_lines.csv")
        var run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("100 of 100 stations_lines rows removed (100.00%), more than the limit of 5.00% (--max-line-rows-removed)"), run.err)
        XCTAssertTrue(run.lastMessage.contains("refused by a guard (exit 4 from stationdb)"), run.lastMessage)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)

        run = try f.make("FORCE_PUBLISH=1")
        XCTAssertEqual(run.status, 0, run.err)
        let verify = try f.stationdb("verify", "dist")
        XCTAssertEqual(verify.status, 0)
        XCTAssertTrue(verify.out.contains("warnings)"), verify.out)
        XCTAssertTrue(verify.err.contains("s_id 1 駅1: a live station on no line"), verify.err)
        XCTAssertTrue(verify.err.contains("l_id 11 山手線: a live line with no live station"), verify.err)
    }
}
