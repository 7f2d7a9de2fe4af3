import Foundation
import Glibc
import StationCore
import TestSupport
import XCTest

/// `stationdb pull`, the process, updating a database an app (this test process) writes in
/// meanwhile, in rollback-journal and WAL mode (issue 43: committed writes were lost, WAL
/// databases damaged). Each run starts from one of three databases, so that each way of
/// updating is tried: at the patch's version, one version behind it (the full download, its
/// difference run as a patch), and that with an index of the bundle's dropped (the download's
/// tables taken whole).
class InPlaceUpdateCase: XCTestCase {
    var scratch = ""
    var fixture: DistFixture!
    var server: TestServer!
    var stationdb = ""

    enum Start: CaseIterable {
        case patch, difference, tables
    }

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "in-place-\(UUID().uuidString)"
        try Files.createFolder(scratch + "/dist")
        fixture = try DistFixture(dist: scratch + "/dist")
        server = try TestServer(root: scratch + "/dist", scratch: scratch)
        stationdb = try BuiltTools.stationdb()
        // The two versions an app may have, then the one published.
        for version in [1, 2] {
            try fixture.publish(version)
            let run = try pull(scratch + "/v\(version).sqlite")
            XCTAssertEqual(run.status, 0, run.err)
        }
        try fixture.publish(3)
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func pull(_ database: String) throws -> TimedRun {
        try runWithTimeout(stationdb, ["pull", server.baseURL, "--db", database, "--attempts", "1"], in: scratch, timeout: 60)
    }

    /// An app's database as `start` says, in WAL mode or not, with the user's records; its
    /// path, and the records and version it holds.
    func database(_ start: Start, wal: Bool, name: String) throws -> (path: String, records: Set<Int>, version: Int) {
        let path = scratch + "/\(name).sqlite"
        let version = start == .patch ? 2 : 1
        try FileManager.default.copyItem(atPath: scratch + "/v\(version).sqlite", toPath: path)
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        defer { db.close() }
        if wal { try db.execute("PRAGMA journal_mode = WAL") }
        if start == .tables { try db.execute("DROP INDEX station_lat_index") }
        let records = version == 1 ? [100, 101, 102] : [100, 101, 202]
        for id in records { try db.execute("INSERT INTO completions VALUES (\(id), 1, 2, 'mine')") }
        return (path, Set(records), version)
    }

    /// The records a database at version 3 holds after one at `version` with `records`:
    /// 102 -> 202 -> 302 carried along.
    func recordsAtVersion3(from records: Set<Int>) -> Set<Int> {
        records.union(records.contains(102) ? [202, 302] : records.contains(202) ? [302] : [])
    }

    /// Opens the database as an app would after whatever happened: its integrity check,
    /// version and records (SQLite rolls back what a killed writer left as it opens).
    func state(of path: String) throws -> (check: String, version: Int, records: Set<Int>) {
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        defer { db.close() }
        return (try db.query("PRAGMA integrity_check").first?.first?.textValue ?? "", try db.userVersion,
                Set(try db.query("SELECT s_id FROM completions").compactMap { $0[0].intValue }))
    }
}

/// 30 pulls in each journal mode, each beside an app that records completions one
/// transaction at a time (busy timeout 30 s) at random moments before, during and after it:
/// no committed record is lost, every database is whole and at the version published.
final class ConcurrentPullTests: InPlaceUpdateCase {
    func testNoCommittedWriteIsLostInRollbackJournalMode() throws {
        try writeWhilePulling(wal: false, runs: 30)
    }

    func testNoCommittedWriteIsLostInWALMode() throws {
        try writeWhilePulling(wal: true, runs: 30)
    }

    func writeWhilePulling(wal: Bool, runs: Int) throws {
        var lost = 0, written = 0
        for run in 0..<runs {
            let start = Start.allCases[run % Start.allCases.count]
            let app = try database(start, wal: wal, name: "app-\(run)")
            let writer = AppWriter(path: app.path)
            usleep(UInt32.random(in: 0...15_000))
            let pulled = try pull(app.path)
            usleep(UInt32.random(in: 0...5_000))
            let committed = writer.stop()
            XCTAssertEqual(pulled.status, 0, "run \(run) (\(start)): \(pulled.err)")
            let after = try state(of: app.path)
            XCTAssertEqual(after.check, "ok", "run \(run) (\(start))")
            XCTAssertEqual(after.version, 3, "run \(run) (\(start))")
            XCTAssertEqual(after.records.subtracting(committed), recordsAtVersion3(from: app.records), "run \(run) (\(start))")
            lost += committed.subtracting(after.records).count
            written += committed.count
        }
        XCTAssertEqual(lost, 0, "committed writes lost over \(runs) runs (of \(written) committed)")
        print("ConcurrentPullTests: \(wal ? "WAL" : "rollback journal"): \(runs) pulls, \(written) writes committed beside them, \(lost) lost")
        // Not how many fell during the pulls (the machine's speed decides that): that the app wrote beside each.
        XCTAssertGreaterThanOrEqual(written, runs, "the app wrote beside every pull")
    }
}

/// A pull killed (SIGKILL) at random moments, half of them while it updates the database:
/// every database opens whole, at the old version or the new, with every record.
final class KilledPullTests: InPlaceUpdateCase {
    func testAPullKilledAtAnyMomentLeavesEveryDatabaseWholeWithEveryRecord() throws {
        // How long a whole pull takes here: the kills are spread over it.
        let timed = try database(.difference, wal: false, name: "timed")
        let began = Date()
        XCTAssertEqual(try pull(timed.path).status, 0)
        let span = UInt32(max(0.02, Date().timeIntervalSince(began)) * 1_000_000)
        var updated = 0
        for run in 0..<60 {
            let start = Start.allCases[run % Start.allCases.count], wal = (run / Start.allCases.count).isMultiple(of: 2)
            let app = try database(start, wal: wal, name: "app-\(run)")
            let pull = try ChildProcess(["/bin/sh", "-c", "exec \"$0\" pull \"$1\" --db \"$2\" --attempts 1 2>&1", stationdb, server.baseURL, app.path])
            if run.isMultiple(of: 2) {
                usleep(UInt32.random(in: 0...span))
            } else {
                // Once it says it is updating: within the few milliseconds its transaction lasts.
                while let line = pull.readLine(timeout: 10), !line.hasPrefix("pull: updating") {}
                usleep(UInt32.random(in: 0...3_000))
            }
            pull.stop()
            let after = try state(of: app.path)
            XCTAssertEqual(after.check, "ok", "run \(run) (\(start), \(wal ? "WAL" : "rollback"))")
            XCTAssertTrue([app.version, 3].contains(after.version), "run \(run): version \(after.version)")
            XCTAssertEqual(after.records, after.version == 3 ? recordsAtVersion3(from: app.records) : app.records, "run \(run) (\(start))")
            if after.version == 3 { updated += 1 }
        }
        print("KilledPullTests: 60 pulls killed, \(updated) after their update's commit, \(60 - updated) before it")
    }

    /// An app holding a write for 5 s (its transaction open, its record not committed yet):
    /// pull waits for it, then updates, in both journal modes, and the record is there.
    func testAnAppHoldingAWriteFor5SecondsMakesPullWaitThenUpdate() throws {
        var apps: [(path: String, records: Set<Int>, connection: SQLiteDatabase)] = []
        for wal in [false, true] {
            let app = try database(.difference, wal: wal, name: wal ? "wal" : "rollback")
            let connection = try SQLiteDatabase(path: app.path, mode: .readWrite)
            try connection.execute("BEGIN IMMEDIATE; INSERT INTO completions VALUES (999, 1, 1, 'held')")
            apps.append((app.path, app.records, connection))
        }
        let pulls = try apps.map { try ChildProcess([stationdb, "pull", server.baseURL, "--db", $0.path, "--attempts", "1"]) }
        usleep(5_000_000)
        XCTAssertTrue(pulls.allSatisfy { $0.wait(timeout: 0) == nil }, "a pull did not wait for the app's write")
        for app in apps {
            try app.connection.execute("COMMIT")
            app.connection.close()
        }
        for (app, pull) in zip(apps, pulls) {
            XCTAssertEqual(pull.wait(timeout: 60), 0, app.path)  // a hang's bound, not a speed
            let after = try state(of: app.path)
            XCTAssertEqual(after.check, "ok")
            XCTAssertEqual(after.version, 3)
            XCTAssertEqual(after.records, recordsAtVersion3(from: app.records).union([999]))
        }
    }
}

/// The app: a connection of its own that records a completion at a time (one transaction
/// each, busy timeout 30 s) at random moments until stopped, and at least once; what it committed.
final class AppWriter: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var committed: Set<Int> = []
    private let done = DispatchSemaphore(value: 0)
    /// Signalled at its first commit, or when it ends without one (it could not open the database).
    private let wroteOrEnded = DispatchSemaphore(value: 0)

    init(path: String) {
        Thread { [self] in
            defer { done.signal() }
            defer { if lock.withLock({ committed.isEmpty }) { wroteOrEnded.signal() } }
            guard let db = try? SQLiteDatabase(path: path, mode: .readWrite) else { return }
            defer { db.close() }
            db.waitWhileBusy(milliseconds: 30_000)
            var next = 1_000_000
            while !lock.withLock({ stopped }) {
                if (try? db.execute("INSERT INTO completions (s_id, memo) VALUES (\(next), 'app')")) != nil {
                    let id = next
                    if lock.withLock({ () -> Bool in _ = committed.insert(id); return committed.count == 1 }) { wroteOrEnded.signal() }
                }
                next += 1
                usleep(UInt32.random(in: 500...5_000))
            }
        }.start()
    }

    /// Once it has committed a record (a loaded machine may not have let it yet; the minute only
    /// bounds the wait for one that cannot write), stops it.
    func stop() -> Set<Int> {
        _ = wroteOrEnded.wait(timeout: .now() + 60)
        lock.withLock { stopped = true }
        done.wait()
        return lock.withLock { committed }
    }
}
