import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// What a pull must never lose or make up: everything of the user's in the client's
/// database, whichever way the new version arrives; records only where the bundle
/// itself says a station was renumbered; and the file a --db link leads to.
extension BundleClientTests {
    /// The user's objects (not the bundle's, nor SQLite's) as sqlite_master lists them.
    func usersObjects(_ path: String) throws -> [[SQLValue]] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        return try db.query("""
            SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL
            AND tbl_name NOT IN ('operators', 'lines', 'stations', 'stations_lines', 'renumbered_stations') ORDER BY name
            """)
    }

    func rows(_ sql: String, in path: String? = nil) throws -> [[SQLValue]] {
        let db = try SQLiteDatabase(path: path ?? local, mode: .readOnly)
        defer { db.close() }
        return try db.query(sql)
    }

    func execute(_ sql: String) throws {
        let db = try SQLiteDatabase(path: local, mode: .readWrite)
        defer { db.close() }
        try db.execute(sql)
    }

    func testAFullDownloadCarriesEverythingOfTheUsersOver() throws {
        try fixture.publish(1)
        _ = try client().pull()
        // completions with columns of the app's own and no key (two records of 102), a
        // table of the user's with an AUTOINCREMENT key, its index, trigger and a view.
        try execute("""
            DROP TABLE completions;
            CREATE TABLE completions (s_id INTEGER, comp_date INTEGER, update_date INTEGER, memo TEXT, photo BLOB, rating REAL, tags TEXT);
            INSERT INTO completions VALUES (100, 1, 2, 'first', x'00FF10', 4.5, 'a,b'), (102, 3, 4, 'one', NULL, 1, NULL), (102, 5, 6, 'two', x'01', 2, 'c');
            CREATE TABLE favorites (id INTEGER PRIMARY KEY AUTOINCREMENT, s_id INTEGER NOT NULL, note TEXT);
            INSERT INTO favorites (s_id, note) VALUES (100, 'home'), (101, 'work'), (103, 'gone soon');
            DELETE FROM favorites WHERE s_id = 103;
            CREATE INDEX favorites_s_id ON favorites(s_id);
            CREATE TABLE log (what TEXT);
            CREATE TRIGGER favorites_logged AFTER INSERT ON favorites BEGIN INSERT INTO log VALUES ('added ' || NEW.s_id); END;
            CREATE VIEW favorite_names AS SELECT f.note, s.station FROM favorites f JOIN stations s USING (s_id);
            """)
        let objects = try usersObjects(local)
        let before = try rows("SELECT rowid, * FROM completions ORDER BY rowid")
        let favorites = try rows("SELECT * FROM favorites ORDER BY id")
        try fixture.publish(3) // a jump of two versions: the full download
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/3/stations.sqlite"))
        XCTAssertEqual(try usersObjects(local), objects, "every table, index, trigger and view of the user's, defined as it was")
        XCTAssertEqual(Array(try rows("SELECT rowid, * FROM completions ORDER BY rowid").prefix(3)), before, "every record, every column")
        XCTAssertEqual(try rows("SELECT * FROM favorites ORDER BY id"), favorites)
        XCTAssertEqual(try rows("SELECT seq FROM sqlite_sequence WHERE name = 'favorites'"), [[.integer(3)]], "the next favorite is 4, as before")
        // 102 -> 202 -> 302: both records of 102 follow the renumbering, every column with them.
        XCTAssertEqual(report.recordsCopied, 4)
        XCTAssertEqual(try rows("SELECT memo, photo, tags FROM completions WHERE s_id = 302 ORDER BY memo"),
                       [[.text("one"), .null, .null], [.text("two"), .blob([1]), .text("c")]])
        // The trigger came over working, after the copy (it did not fire on it).
        XCTAssertEqual(try rows("SELECT count(*) FROM log"), [[.integer(0)]])
        try execute("INSERT INTO favorites (s_id) VALUES (302)")
        XCTAssertEqual(try rows("SELECT what FROM log"), [[.text("added 302")]])
        XCTAssertEqual(try rows("SELECT station FROM favorite_names ORDER BY station"), [[.text("東京")], [.text("神田 (JR)")], [.text("秋葉原")]])
    }

    /// A client with `CREATE INDEX my_station_name_idx ON stations(station, yomi)` or a
    /// trigger on stations: the patch was refused as not the bundle's, the full download
    /// exited 0, and both were gone. They are the user's: carried over by the patch and by
    /// the full download alike, as they were, and a trigger fires on neither.
    func testTheUsersIndexesAndTriggersOnBundleTablesAreCarriedOver() throws {
        try fixture.publish(1)
        _ = try client().pull()
        try execute("""
            CREATE INDEX my_station_name_idx ON stations(station, yomi);
            CREATE TABLE renamed (s_id INTEGER, was TEXT);
            CREATE TRIGGER my_renames AFTER UPDATE OF station ON stations BEGIN INSERT INTO renamed VALUES (OLD.s_id, OLD.station); END;
            INSERT INTO completions VALUES (101, 1, 2, 'kanda');
            """)
        let objects = try usersObjects(local) + (try rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name LIKE 'my_%' ORDER BY name"))
        XCTAssertEqual(objects.count, 4, "completions, renamed, and the index and trigger on stations")
        func mine() throws -> [[SQLValue]] {
            try usersObjects(local) + (try rows("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name LIKE 'my_%' ORDER BY name"))
        }

        try fixture.publish(2)
        var report = try client().pull()
        XCTAssertEqual(report.kind, .patched, report.patchProblem ?? "")
        XCTAssertEqual(try mine(), objects)
        XCTAssertEqual(try rows("SELECT count(*) FROM renamed"), [[.integer(0)]], "the patch's own updates fired no trigger of the user's")

        try fixture.publish(3)
        try execute("DELETE FROM stations WHERE s_id = 103")   // not the published 2: the patch cannot apply, the full download comes
        report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/3/stations.sqlite"))
        XCTAssertEqual(try mine(), objects)
        XCTAssertEqual(try rows("SELECT count(*) FROM renamed"), [[.integer(0)]])
        XCTAssertEqual(try rows("SELECT s_id, memo FROM completions ORDER BY s_id"), [[.integer(101), .text("kanda")]])
        // Both work as the user made them.
        XCTAssertEqual(try rows("SELECT name FROM pragma_index_list('stations') WHERE name = 'my_station_name_idx'"), [[.text("my_station_name_idx")]])
        try execute("UPDATE stations SET station = 'x' WHERE s_id = 100")
        XCTAssertEqual(try rows("SELECT s_id, was FROM renamed"), [[.integer(100), .text("東京")]])
    }

    /// An object of the user's that no longer applies to the new version (here an index on a
    /// column the user added to stations, which the new version's stations lacks) cannot be
    /// carried over: the pull refuses, and the database is left as it was.
    func testAUsersObjectThatNoLongerAppliesRefusesThePull() throws {
        try fixture.publish(1)
        _ = try client().pull()
        try execute("ALTER TABLE stations ADD COLUMN visited INTEGER; CREATE INDEX my_visited ON stations(visited);")
        try fixture.publish(3)
        let before = try appFolderSnapshot()
        XCTAssertThrowsError(try client().pull()) { error in
            guard let message = error.station(.environment)?.message else { return XCTFail("expected an I/O failure (exit 3), got \(error)") }
            XCTAssertTrue(message.contains("my_visited"), message)
            XCTAssertTrue(message.contains("left as it was"), message)
        }
        XCTAssertEqual(try appFolderSnapshot(), before)
        XCTAssertEqual(try rows("SELECT user_version FROM pragma_user_version"), [[.integer(1)]])
    }

    /// A completion the app wrote while pull ran was lost: pull read the user's data, the app
    /// wrote, pull put a new file in place. Pull now updates the database in place, in one
    /// SQLite transaction: an app's write in progress when the update begins (here committed
    /// 300 ms later, on a thread of its own) makes the update wait for it, and is kept, by the
    /// patch and by the full download alike.
    func testAWriteInProgressWhenPullBeginsItsUpdateIsKept() throws {
        for (version, kind) in [(2, PullReport.Kind.patched), (3, .replaced)] {
            Files.remove(local)
            try fixture.publish(1)
            _ = try client().pull()
            try fixture.publish(version)
            let local = self.local, started = DispatchSemaphore(value: 0), finished = DispatchSemaphore(value: 0)
            let report = try Events.sending(to: { event in
                guard event is PullUpdating else { return }
                Thread {
                    defer { finished.signal() }
                    guard let app = try? SQLiteDatabase(path: local, mode: .readWrite) else { started.signal(); return }
                    defer { app.close() }
                    try? app.execute("BEGIN IMMEDIATE; INSERT INTO completions VALUES (\(version * 1000), 1, 1, 'while pulling')")
                    started.signal()
                    usleep(300_000)
                    try? app.execute("COMMIT")
                }.start()
                started.wait()
            }) { try client().pull() }
            finished.wait()
            XCTAssertEqual(report.kind, kind)
            XCTAssertEqual(try rows("SELECT count(*) FROM completions WHERE s_id = \(version * 1000)"), [[.integer(1)]], "version \(version): the app's write was lost")
            XCTAssertEqual(try rows("SELECT user_version FROM pragma_user_version"), [[.integer(Int64(version))]])
        }
        // A connection the app opened before the pull goes on working: the same file, at the new version.
        try fixture.publish(1)
        Files.remove(local)
        _ = try client().pull()
        let app = try SQLiteDatabase(path: local, mode: .readWrite)
        defer { app.close() }
        XCTAssertEqual(try app.userVersion, 1)
        try fixture.publish(3)
        XCTAssertEqual(try client().pull().kind, .replaced)
        try app.execute("INSERT INTO completions VALUES (7, 1, 1, 'old handle')")
        XCTAssertEqual(try app.userVersion, 3)
        XCTAssertEqual(try app.query("SELECT station FROM stations WHERE s_id = 302"), [[.text("秋葉原")]])
        XCTAssertEqual(try rows("SELECT memo FROM completions WHERE s_id = 7"), [[.text("old handle")]])
    }

    /// A first pull (no database yet) never replaces one an app made while it ran: the
    /// app's database takes the bundle's tables, and keeps its own.
    func testAFirstPullKeepsADatabaseAnAppMadeMeanwhile() throws {
        try fixture.publish(1)
        let local = self.local
        let report = try Events.sending(to: { event in
            guard event is PullUpdating, !Files.exists(local) else { return }
            guard let app = try? SQLiteDatabase(path: local, mode: .create) else { return }
            defer { app.close() }
            try? app.execute("CREATE TABLE completions (s_id INTEGER PRIMARY KEY, memo TEXT); INSERT INTO completions VALUES (1, 'made by the app')")
        }) { try client().pull() }
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/1/stations.sqlite"))
        XCTAssertEqual(try rows("SELECT memo FROM completions"), [[.text("made by the app")]])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch + "/app"), ["stations.sqlite"], "nothing left beside it")
    }

    func testCompletionsAsAViewOfTheUsersTableAreKept() throws {
        try fixture.publish(1)
        _ = try client().pull()
        try execute("""
            DROP TABLE completions;
            CREATE TABLE my_records (s_id INTEGER PRIMARY KEY, comp_date INTEGER, update_date INTEGER, memo TEXT, mood TEXT);
            INSERT INTO my_records VALUES (100, 1, 2, 'first', 'happy'), (101, 3, 4, NULL, NULL);
            CREATE VIEW completions AS SELECT s_id, comp_date, update_date, memo FROM my_records;
            """)
        let objects = try usersObjects(local)
        try fixture.publish(3)
        XCTAssertEqual(try client().pull().kind, .replaced)
        XCTAssertEqual(try usersObjects(local), objects)
        XCTAssertEqual(try rows("SELECT * FROM my_records ORDER BY s_id"),
                       [[.integer(100), .integer(1), .integer(2), .text("first"), .text("happy")], [.integer(101), .integer(3), .integer(4), .null, .null]])
        XCTAssertEqual(try rows("SELECT count(*) FROM completions"), [[.integer(2)]])

        // A record on a renumbered station, which the view cannot take a copy of: refused, nothing touched.
        for suffix in ["", "-journal", "-wal"] { unlink(local + suffix) }
        try fixture.publish(1)
        _ = try client().pull()
        try execute("""
            DROP TABLE completions;
            CREATE TABLE my_records (s_id INTEGER PRIMARY KEY, comp_date INTEGER, update_date INTEGER, memo TEXT);
            INSERT INTO my_records VALUES (102, 1, 2, 'Akihabara');
            CREATE VIEW completions AS SELECT * FROM my_records;
            """)
        try fixture.publish(3)
        let before = try appFolderSnapshot()
        XCTAssertThrowsError(try client().pull()) { XCTAssertNotNil($0.station(.environment), "\($0)") }
        XCTAssertEqual(try appFolderSnapshot(), before, "the local folder changed after a failed pull")
    }

    func testARenumberingOnlyLatestJSONStatesCopiesNoRecord() throws {
        // The patch (v1 -> v2) and the full download (v1 -> v3) alike.
        for version in [2, 3] {
            for suffix in ["", "-journal", "-wal"] { unlink(local + suffix) }
            try installVersion1WithCompletions() // records on 100 and 102
            try fixture.publish(version)
            // latest.json claims 100 became 101; the bundle says no such thing, and 100 is still there.
            let path = scratch + "/dist/latest.json"
            var latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
            latest["renumbered"] = (latest["renumbered"] as! [Any]) + [["new_s_id": 101, "old_s_id": 100, "version": version]]
            try JSONSerialization.data(withJSONObject: latest).write(to: URL(fileURLWithPath: path))
            let report = try client().pull()
            XCTAssertEqual(report.kind, version == 2 ? .patched : .replaced)
            XCTAssertEqual(report.recordsCopied, version - 1, "only what renumbered_stations states: 102 -> 202 (-> 302)")
            XCTAssertFalse(try completions().contains { $0[0] == .integer(101) }, "a record made up for 101")
        }
    }

    func testADatabaseThatIsALinkIsUpdatedWhereItLeads() throws {
        try fixture.publish(1)
        let real = scratch + "/data/real.sqlite"
        try Files.createFolder(scratch + "/data")
        _ = try BundleClient(baseURL: server.baseURL, databasePath: real, http: HTTPClient(options: Self.fastOptions)).pull()
        try FileManager.default.createSymbolicLink(atPath: local, withDestinationPath: real)
        try fixture.publish(3)
        XCTAssertEqual(try client().pull().kind, .replaced)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: local), real, "the link is still the link")
        XCTAssertEqual(try DistFixture.dump(real), try DistFixture.dump(scratch + "/dist/3/stations.sqlite"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch + "/data"), ["real.sqlite"], "temporary files left behind")
    }
}
