import Foundation
import StationIO
import StationModel
import XCTest
@testable import AppClient
@testable import Transfer

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
        try assertFailsUntouched(client()) { error in XCTAssertEqual(error.exitStatus, .environment, "\(error)") }
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
