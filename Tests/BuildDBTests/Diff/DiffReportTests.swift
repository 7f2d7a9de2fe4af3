import BuildDB
import StationCore
import Foundation
import XCTest

final class DiffReportTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    func testEveryKindOfChangeIsNamedAndCounted() throws {
        let (old, new) = try DiffFixtures.everyKindOfChange(in: try DiffFixtures.folder())
        let report = try DiffReport.make(oldPath: old, newPath: new)
        let d = report.difference
        func names(_ table: String, _ kind: KeyPath<TableDiff, [[SQLValue]]>, side: DiffReport.Side) -> [String] {
            let t = d[table]!
            return t[keyPath: kind].map { report.name(of: $0, in: t.shape, side: side) }
        }
        func changed(_ table: String) -> [String] {
            let t = d[table]!
            return t.changed.map { report.name(of: $0.new, in: t.shape, side: .new) + ": " + $0.changes.map(\.column).joined(separator: ",") }
        }
        XCTAssertEqual(names("operators", \.added, side: .new), ["New Rail"])
        XCTAssertEqual(names("operators", \.removed, side: .old), ["Gone Rail"])
        XCTAssertEqual(changed("operators"), ["Keisei Electric: operator"])
        XCTAssertEqual(names("lines", \.added, side: .new), ["New Line (New Rail)"])
        XCTAssertEqual(names("lines", \.removed, side: .old), ["Gone Line (Gone Rail)"], "a removed row is named from OLD")
        XCTAssertEqual(changed("lines"), ["Main (Keisei Electric): l_type"])
        XCTAssertEqual(names("stations", \.added, side: .new), ["New (New Rail)"])
        XCTAssertEqual(names("stations", \.removed, side: .old), ["上野 (JR東日本)", "Gone (Gone Rail)"])
        XCTAssertEqual(changed("stations"), ["東京 (JR東日本): weight", "Aoto (Keisei Electric): lat,enabled", "京成高砂 (Keisei Electric): station,yomi"])
        XCTAssertEqual(names("stations_lines", \.added, side: .new), ["New Line (New Rail) / New"])
        XCTAssertEqual(names("stations_lines", \.removed, side: .old), ["山手線 (JR東日本) / 上野", "Gone Line (Gone Rail) / Gone"])
        XCTAssertEqual(changed("stations_lines"), ["Main (Keisei Electric) / Aoto: s_sort"])
        XCTAssertTrue(d["renumbered_stations"]!.tableAdded)
        XCTAssertEqual(names("renumbered_stations", \.added, side: .new), ["New <- Gone"], "new s_id named from NEW, old s_id from OLD")

        let s = report.summary
        XCTAssertEqual([s.oldStations, s.stationsRemoved, s.oldEnabledStations, s.stationsDisabled, s.stationsReenabled], [5, 2, 5, 1, 0])
        XCTAssertEqual(report.difference.oldEnabledStations, 5, "counted while the stations were compared, not by a scan of its own")
        // Live in both: 100 and 201 (101 and 300 removed, 200 disabled); 100 changed weight.
        XCTAssertEqual([s.liveInBoth, s.weightChurn, s.weightChanges], [2, 1, 1])
        XCTAssertEqual(s.weightTransitions, [.init(old: 1, new: 2, stations: 1)])
        XCTAssertEqual(s.moves.map(\.stationID), [200])
        XCTAssertEqual(s.moves[0].metres, 5_559.7, accuracy: 1, "0.05 degrees of latitude")
        XCTAssertEqual(s.removedPercent, 40, accuracy: 1e-9)
        XCTAssertEqual(s.disabledPercent, 20, accuracy: 1e-9)
        XCTAssertEqual(s.weightChurnPercent, 50, accuracy: 1e-9)

        let text = report.text(limit: 50)
        XCTAssertTrue(text.contains("~ s_id 200 Aoto (Keisei Electric): lat 35.745000 -> 35.795000 (moved 5559."), text)
        XCTAssertTrue(text.contains("~ s_id 201 京成高砂 (Keisei Electric): station \"Keisei Takasago\" -> \"京成高砂\", yomi \"えき\" -> \"けいせいたかさご\""), text)
        XCTAssertTrue(text.contains("renumbered_stations: table added, 1 added"), text)
    }

    /// The same rows give the same difference whatever indexes a bundle has: an older
    /// database without the bundle's indexes (stations_lines_unique_index included)
    /// compares exactly like one with them, in both directions.
    func testIndexesDoNotChangeTheDifference() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        let indexed = dir + "/indexed.sqlite"
        try FileManager.default.copyItem(atPath: old, toPath: indexed)
        let db = try SQLiteDatabase(path: indexed, mode: .readWrite)
        for i in BundleSchema.indexes { try db.execute(i.createSQL) }
        db.close()
        XCTAssertFalse(try BundleDifference.between(oldPath: old, newPath: new).isEmpty)
        try assertSameDifference(indexed, new, as: old, new)
        try assertSameDifference(new, indexed, as: new, old)
        XCTAssertTrue(try BundleDifference.between(oldPath: old, newPath: indexed).isEmpty)
    }

    /// The difference between `a` and `b` is exactly the one between `c` and `d`
    /// (files with the same rows, stored differently).
    func assertSameDifference(_ a: String, _ b: String, as c: String, _ d: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let x = try BundleDifference.between(oldPath: a, newPath: b)
        let y = try BundleDifference.between(oldPath: c, newPath: d)
        XCTAssertEqual(x.tables.map(\.shape), y.tables.map(\.shape), file: file, line: line)
        for (p, q) in zip(x.tables, y.tables) {
            XCTAssertEqual(p.added, q.added, p.shape.name, file: file, line: line)
            XCTAssertEqual(p.removed, q.removed, p.shape.name, file: file, line: line)
            XCTAssertEqual(p.changed, q.changed, p.shape.name, file: file, line: line)
            XCTAssertEqual([p.oldCount, p.newCount], [q.oldCount, q.newCount], p.shape.name, file: file, line: line)
            XCTAssertEqual([p.tableAdded, p.tableRemoved], [q.tableAdded, q.tableRemoved], p.shape.name, file: file, line: line)
        }
        XCTAssertEqual(x.oldEnabledStations, y.oldEnabledStations, file: file, line: line)
    }

    /// An older database whose stations compare names under a collation and whose
    /// stations_lines is a WITHOUT ROWID table: values are still compared byte for
    /// byte (IS would follow the column's collation), and rows matched by key, so it
    /// compares exactly like a plain bundle with the same rows.
    func testCollatedAndWithoutRowidTablesCompareLikePlainOnes() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        // A name that differs only in case: equal under NOCASE, a change all the same.
        let caseOnly = "UPDATE stations SET station = upper(station) WHERE s_id = 200"
        let odd = dir + "/odd.sqlite"
        let db = try SQLiteDatabase(path: odd, mode: .create)
        try db.execute("""
            CREATE TABLE operators (o_id INTEGER PRIMARY KEY NOT NULL, operator TEXT NOT NULL, type INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1);
            CREATE TABLE lines (l_id INTEGER PRIMARY KEY NOT NULL, line TEXT NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, l_type INTEGER);
            CREATE TABLE stations (s_id INTEGER PRIMARY KEY NOT NULL, station TEXT NOT NULL COLLATE NOCASE, yomi TEXT NOT NULL, wiki TEXT NOT NULL,
                                   pref INTEGER NOT NULL, address TEXT NOT NULL, lat INTEGER NOT NULL, lng INTEGER NOT NULL,
                                   o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, weight INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE stations_lines (l_id INTEGER NOT NULL, s_id INTEGER NOT NULL, s_sort INTEGER NOT NULL, PRIMARY KEY (l_id, s_id)) WITHOUT ROWID;
            ATTACH DATABASE ? AS source;
            INSERT INTO operators SELECT * FROM source.operators;
            INSERT INTO lines SELECT * FROM source.lines;
            INSERT INTO stations SELECT * FROM source.stations;
            INSERT INTO stations_lines SELECT l_id, s_id, s_sort FROM source.stations_lines;
            DETACH DATABASE source;
            PRAGMA user_version = 3;
            """, [.text(old)])
        try db.execute(caseOnly)
        db.close()
        // The same rows in a bundle of the usual shape.
        let plain = dir + "/plain.sqlite"
        try FileManager.default.copyItem(atPath: old, toPath: plain)
        let p = try SQLiteDatabase(path: plain, mode: .readWrite)
        try p.execute(caseOnly)
        p.close()

        for (a, b, c, d) in [(odd, new, plain, new), (new, odd, new, plain), (odd, old, plain, old), (old, odd, old, plain)] {
            try assertSameDifference(a, b, as: c, d)
        }
        let stations = try XCTUnwrap(try BundleDifference.between(oldPath: odd, newPath: old)["stations"])
        XCTAssertEqual(stations.changed.map(\.changes), [[ColumnChange(column: "station", old: .text("AOTO"), new: .text("Aoto"))]])
        XCTAssertTrue(try BundleDifference.between(oldPath: odd, newPath: plain).isEmpty)
    }

    /// Rows stored in another order (other rowids, and rowids that now hold other
    /// keys) are still matched by key: the difference is the one of the rows.
    func testRowsStoredInAnotherOrderAreMatchedByKey() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        var variants: [String] = []
        for (name, source) in [("old-reversed", old), ("new-reversed", new)] {
            let path = dir + "/\(name).sqlite"
            try FileManager.default.copyItem(atPath: source, toPath: path)
            let db = try SQLiteDatabase(path: path, mode: .readWrite)
            try db.execute("""
                CREATE TEMP TABLE kept AS SELECT * FROM stations_lines ORDER BY rowid DESC;
                DELETE FROM stations_lines;
                INSERT INTO stations_lines SELECT * FROM kept;
                """)
            for i in BundleSchema.indexes where i.table == "stations_lines" { try db.execute(i.createSQL.replacingOccurrences(of: "INDEX ", with: "INDEX IF NOT EXISTS ")) }
            db.close()
            variants.append(path)
        }
        let (oldReversed, newReversed) = (variants[0], variants[1])
        for (a, b, c, d) in [(oldReversed, new, old, new), (old, newReversed, old, new), (newReversed, old, new, old),
                             (oldReversed, newReversed, old, new), (newReversed, new, new, new)] {
            try assertSameDifference(a, b, as: c, d)
        }
        XCTAssertTrue(try BundleDifference.between(oldPath: newReversed, newPath: new).isEmpty)
        XCTAssertTrue(try BundleDifference.between(oldPath: old, newPath: oldReversed).isEmpty)
    }

    func testSQLOutputTurnsOldIntoNew() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        let report = try DiffReport.make(oldPath: old, newPath: new)
        let patched = dir + "/patched.sqlite"
        try FileManager.default.copyItem(atPath: old, toPath: patched)
        try AndroidPatchRunner.apply(sql: report.sql(), to: SQLiteDatabase(path: patched, mode: .readWrite))
        XCTAssertTrue(try BundleDifference.between(oldPath: patched, newPath: new).isEmpty)
        XCTAssertEqual(try SQLiteDatabase(path: patched).userVersion, 4)
        XCTAssertEqual(try SQLiteDatabase(path: patched).scalarInt("SELECT count(*) FROM completions"), 1, "the client's own table is left alone")
    }

    func testOlderDatabaseWithExtraTableAgainstItself() throws {
        let (old, _) = try DiffFixtures.everyKindOfChange(in: try DiffFixtures.folder())
        let report = try DiffReport.make(oldPath: old, newPath: old)
        XCTAssertTrue(report.difference.isEmpty)
        XCTAssertEqual(report.difference.oldEnabledStations, 5)
        XCTAssertEqual(report.summary, DiffSummary(difference: report.difference))
        XCTAssertEqual([report.summary.oldStations, report.summary.oldEnabledStations, report.summary.liveInBoth], [5, 5, 5])
        XCTAssertTrue(report.text(limit: 5).hasSuffix("same contents: no row added, removed or changed\n"))
    }

    func testTextAndMarkdownCutLongListsButJSONAndSQLDoNot() throws {
        let dir = try DiffFixtures.folder()
        let base = ["INSERT INTO operators VALUES (1, 'JR', 1, 1)", "INSERT INTO lines VALUES (10, 'L', 1, 1, NULL)"]
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: base)
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: base + (1...12).map { DiffFixtures.station($0, "S\($0)") })
        let report = try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite")
        let text = report.text(limit: 5)
        XCTAssertEqual(text.components(separatedBy: "\n  + s_id ").count - 1, 5)
        XCTAssertTrue(text.contains("\n  ... and 7 more\n"), text)
        XCTAssertTrue(report.markdown(limit: 5).contains("| added | … and 7 more | | |\n"))
        let document = try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any]
        let stations = (document?["tables"] as? [[String: Any]])?.first { $0["table"] as? String == "stations" }
        XCTAssertEqual((stations?["added"] as? [Any])?.count, 12, "JSON is never cut")
        XCTAssertEqual(report.sql().components(separatedBy: "INSERT OR IGNORE INTO stations ").count - 1, 12)
    }

    // MARK: - Sides

    func testSidesResolveFilesDistAndVersionFolders() throws {
        let dir = try DiffFixtures.folder()
        let (v1, _) = try DiffFixtures.formatsPair(in: dir)
        let dist = dir + "/dist"
        try FileManager.default.createDirectory(atPath: dist + "/1", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: v1, toPath: dist + "/1/stations.sqlite")
        try "{}\n".write(toFile: dist + "/1/manifest.json", atomically: true, encoding: .utf8)
        try "{\"database\": \"1/stations.sqlite\", \"version\": 1}\n".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)

        XCTAssertEqual(try BundleLocation.resolve(v1), BundleLocation(argument: v1, databasePath: v1, kind: .file))
        XCTAssertEqual(try BundleLocation.resolve(dist), BundleLocation(argument: dist, databasePath: dist + "/1/stations.sqlite", kind: .dist))
        XCTAssertEqual(try BundleLocation.resolve(dist + "/1"), BundleLocation(argument: dist + "/1", databasePath: dist + "/1/stations.sqlite", kind: .version))

        func assertInputError(_ path: String, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try BundleLocation.resolve(path), line: line) { error in
                XCTAssertTrue(error.station(.badInput) != nil, "\(error)", line: line)
                XCTAssertTrue("\(error)".contains(message), "\(error)", line: line)
            }
        }
        assertInputError(dir + "/missing.sqlite", "no such file or folder")
        assertInputError(dir, "not a bundle: a folder without latest.json")
        try "not sqlite".write(toFile: dir + "/text.sqlite", atomically: true, encoding: .utf8)
        assertInputError(dir + "/text.sqlite", "not an SQLite database")
        try "{\"version\": 1}".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)
        assertInputError(dist, "latest.json: database: missing")
        // A dist whose latest.json names a database that is not there is damaged (exit 3), not bad input.
        try "{\"database\": \"9/stations.sqlite\"}".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try BundleLocation.resolve(dist)) { XCTAssertTrue($0.station(.damaged) != nil, "\($0)") }

        // An SQLite file without the bundle's tables is bad input too, from the core.
        let other = dir + "/other.sqlite"
        let db = try SQLiteDatabase(path: other, mode: .create)
        try db.execute("CREATE TABLE completions (s_id INTEGER PRIMARY KEY)")
        db.close()
        XCTAssertThrowsError(try DiffReport.make(oldPath: v1, newPath: try BundleLocation.resolve(other).databasePath)) { error in
            XCTAssertTrue(error.station(.badInput) != nil, "\(error)")
            XCTAssertTrue("\(error)".contains("not a station bundle"), "\(error)")
        }
    }
}
