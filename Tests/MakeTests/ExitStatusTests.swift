import Foundation
import Glibc
import StationCore
import TestSupport
import XCTest

/// One rule for exit statuses (README, "Exit statuses"), held against every command:
/// 2 when what was given is wrong (a path that names nothing or not what the command
/// reads, a value out of range, a URL that serves no dist), 3 when what it leads to is
/// damaged (a published dist whose latest.json or manifest names a file that is missing
/// or differs) or the environment fails.
final class ExitStatusTests: MakeTestCase {
    /// stationdb in the fixture's folder, killed if it runs past a minute (a hang is a failure).
    func stationdb(_ f: MakeFixture, _ arguments: String...) throws -> TimedRun { try stationdb(f, arguments) }

    func stationdb(_ f: MakeFixture, _ arguments: [String]) throws -> TimedRun {
        let run = try runWithTimeout(try MakeFixture.stationdb(), arguments, in: f.folder, timeout: 60)
        XCTAssertFalse(run.timedOut, "stationdb \(arguments.joined(separator: " ")) hung")
        return run
    }

    func assertStatus(_ expected: Int32, _ run: TimedRun, _ what: String, line: UInt = #line) {
        XCTAssertEqual(run.status, expected, "\(what): \(run.err)", line: line)
    }

    func ciPlan(_ f: MakeFixture, _ url: String) throws -> TimedRun {
        try runWithTimeout(MakeFixture.root + "/scripts/ci-plan", [url, f.folder + "/plan.md"], in: f.folder,
                           environment: ["STATIONDB": try MakeFixture.stationdb(), "RAW": f.raw, "BUILD": f.build + "/ci"], timeout: 120)
    }

    func testEveryCommandFollowsTheOneRule() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        let target = f.folder + "/www"
        // A path that names nothing: 2, from every command that reads one.
        for command in [["diff", "nothing", "dist"], ["diff", "dist", "nothing"], ["preview", "nothing", "--out", "p.html"],
                        ["verify", "nothing"], ["deploy", "nothing", target],
                        ["priority", "--staging", "nothing", "--out", "w.csv"], ["priority", "suggest", "--staging", "nothing"],
                        ["priority", "report", "--staging", "nothing", "--weights", "nothing"], ["priority", "report", "--bundle", "nothing"],
                        ["priority", "map", "--staging", "nothing", "--weights", "nothing", "--out", "m.svg"],
                        ["priority", "--staging", f.build + "/staging.bin", "--hand", "nothing.csv", "--out", "w.csv"]] {
            assertStatus(2, try stationdb(f, command), command.joined(separator: " "))
        }

        // A local dist whose latest.json names a database that is gone: damaged, 3.
        try FileManager.default.copyItem(atPath: f.dist, toPath: f.folder + "/damaged")
        try FileManager.default.removeItem(atPath: f.folder + "/damaged/1/stations.sqlite")
        for command in [["verify", "damaged"], ["diff", "damaged", "dist"], ["preview", "damaged", "--out", "p.html"],
                        ["plan", "--raw", f.raw, "--build", f.folder + "/b2", "--dist", "damaged"],
                        ["publish", "--raw", f.raw, "--build", f.folder + "/b3", "--dist", "damaged"],
                        ["deploy", "damaged", target]] {
            assertStatus(3, try stationdb(f, command), command.joined(separator: " "))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target), "a damaged dist is never deployed")

        // A served dist whose latest.json is there and whose gzip is not: damaged, 3;
        // a URL that serves no latest.json at all: 2.
        try FileManager.default.copyItem(atPath: f.dist, toPath: f.folder + "/served")
        try FileManager.default.removeItem(atPath: f.folder + "/served/1/stations.sqlite.gz")
        let server = try StaticServer(root: f.folder + "/served")
        let plan = ["plan", "--raw", f.raw, "--build", f.folder + "/b4", "--attempts", "1", "--against"]
        for (url, expected) in [(server.baseURL, Int32(3)), (server.baseURL + "/nothing", 2)] {
            assertStatus(expected, try stationdb(f, "pull", url, "--db", f.folder + "/app.sqlite", "--attempts", "1"), "pull \(url)")
            assertStatus(expected, try runWithTimeout(try MakeFixture.stationdb(), plan + [url], in: f.folder, timeout: 60), "plan --against \(url)")
            assertStatus(expected, try ciPlan(f, url), "ci-plan \(url)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.folder + "/app.sqlite"))

        // A source's url that serves nothing: 2 (the url in sources.json is wrong).
        let raw = f.folder + "/raw-fetched"
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        try "{ \"sources\": [ { \"kind\": \"n02\", \"path\": \"N02.xml\", \"url\": \"\(server.baseURL)/N02.xml\" } ] }"
            .write(toFile: raw + "/sources.json", atomically: true, encoding: .utf8)
        assertStatus(2, try stationdb(f, "fetch", "--raw", raw, "--attempts", "1"), "fetch of a 404")
    }

    /// A version is PRAGMA user_version, 32 bits: VERSION, a folder name or latest.json beyond
    /// it is bad input, never a trap (exit 132) nor a bundle whose user_version is 0.
    func testAVersionOutsideTheRangeIsBadInput() throws {
        let f = try fixture()
        var run = try f.make("VERSION=9223372036854775807")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertEqual(run.lastMessage, "make: VERSION must be a whole number from 1 to 2147483647 (or unset), not '9223372036854775807'")
        assertStatus(2, try stationdb(f, "publish", "--raw", f.raw, "--build", f.build, "--dist", f.dist, "--as-version", "2147483648"), "2^31")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist + "/latest.json"))

        // The largest version is published, and is the last: the next is refused, not wrapped.
        assertStatus(0, try stationdb(f, "publish", "--raw", f.raw, "--build", f.build, "--dist", f.dist, "--as-version", "2147483647"), "2^31-1")
        let db = try SQLiteDatabase(path: f.dist + "/2147483647/stations.sqlite")
        XCTAssertEqual(try db.userVersion, 2_147_483_647)
        db.close()
        try f.write("action,table,match,field,value,expect,note\nset,stations,s_id=7,station,新駅7,station=駅7,\n", to: "raw/fixes.csv")
        assertStatus(2, try stationdb(f, "publish", "--raw", f.raw, "--build", f.build, "--dist", f.dist), "after the largest version")

        // A dist that holds a version beyond the range, as a folder or in latest.json.
        for (name, edit) in [("9223372036854775807", false), ("2147483648", false), ("9223372036854775807", true)] {
            let g = try fixture()
            if edit {
                XCTAssertEqual(try g.make().status, 0)
                let latest = g.dist + "/latest.json"
                let text = try String(contentsOfFile: latest, encoding: .utf8)
                XCTAssertTrue(text.contains("\"version\" : 1\n"), text)
                try text.replacingOccurrences(of: "\"version\" : 1\n", with: "\"version\" : \(name)\n").write(toFile: latest, atomically: true, encoding: .utf8)
                try g.write("action,table,match,field,value,expect,note\nset,stations,s_id=7,station,新駅7,station=駅7,\n", to: "raw/fixes.csv")
            } else {
                try FileManager.default.createDirectory(atPath: g.dist + "/" + name, withIntermediateDirectories: true)
            }
            run = try g.make()
            XCTAssertEqual(run.status, 2, "\(name) \(edit ? "in latest.json" : "as a folder"): \(run.err)")
            XCTAssertTrue(run.err.contains("exit 2 from stationdb"), run.err)
        }
    }

    /// A FIFO given as a database is refused before it is opened (diff and verify waited forever).
    func testOnlyRegularFilesAreOpenedAsDatabases() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        let fifo = f.folder + "/fifo.sqlite"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        for command in [["diff", fifo, "dist"], ["diff", "dist", fifo], ["verify", fifo], ["preview", fifo, "--out", "p.html"]] {
            // A reader that opens it blocks until the unblocker lets it go, 10 s on, and is seen doing so.
            let unblocker = FIFOUnblocker(fifo, after: 10)
            defer { unblocker.stop() }
            assertStatus(2, try stationdb(f, command), command.joined(separator: " "))
            XCTAssertFalse(unblocker.freedAReader, "\(command.joined(separator: " ")) opened the FIFO")
        }
    }

    /// --out writes a regular file or a new path; a FIFO, a folder or a link to either stays
    /// what it was (a device as root became a file), and a link to a file is written through.
    func testOutWritesOnlyAFileOrANewPath() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        let fifo = f.folder + "/fifo", folder = f.folder + "/folder", linkToFIFO = f.folder + "/to-fifo"
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: linkToFIFO, withDestinationPath: fifo)
        for out in [fifo, folder, linkToFIFO, f.folder + "/to-nothing"] {
            if out.hasSuffix("to-nothing") { try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: f.folder + "/none/x") }
            let before = try FileManager.default.attributesOfItem(atPath: out)[.type] as? FileAttributeType
            assertStatus(2, try stationdb(f, "preview", "dist", "--out", out), "preview --out \(out)")
            assertStatus(2, try stationdb(f, "plan", "--raw", f.raw, "--build", f.build, "--dist", f.dist, "--out", out), "plan --out \(out)")
            XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out)[.type] as? FileAttributeType, before, out)
        }
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: linkToFIFO), fifo)
        // A link to a file: the file is written, the link stays.
        let page = f.folder + "/page.html", link = f.folder + "/to-page"
        try "old".write(toFile: page, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: page)
        assertStatus(0, try stationdb(f, "preview", "dist", "--out", link), "preview --out a link to a file")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), page)
        XCTAssertTrue(try String(contentsOfFile: page, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
    }
}
