import BundleDiff
import Foundation
import StationModel
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

    /// Bundles with their unique keys are streamed side by side; an older database
    /// without stations_lines_unique_index goes the EXCEPT way: same answer.
    func testStreamedAndExceptWaysAgree() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        let indexed = dir + "/indexed.sqlite"
        try FileManager.default.copyItem(atPath: old, toPath: indexed)
        let db = try SQLiteDatabase(path: indexed, mode: .readWrite)
        for i in BundleSchema.indexes { try db.execute(i.createSQL) }
        db.close()
        for (a, b) in [(old, new), (indexed, new), (new, old), (new, indexed)] { try assertSQLAgreesWithRows(a, b) }
    }

    /// The difference found in SQL (and from the files' pages) is the one the rows in memory give.
    func assertSQLAgreesWithRows(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let viaSQL = try BundleDifference.between(oldPath: a, newPath: b)
        let inMemory = BundleDifference.between(try BundleContents.load(path: a), try BundleContents.load(path: b))
        for (x, y) in zip(viaSQL.tables, inMemory.tables) {
            XCTAssertEqual(x.added, y.added, x.shape.name, file: file, line: line)
            XCTAssertEqual(x.removed, y.removed, x.shape.name, file: file, line: line)
            XCTAssertEqual(x.changed, y.changed, x.shape.name, file: file, line: line)
            XCTAssertEqual([x.oldCount, x.newCount], [y.oldCount, y.newCount], x.shape.name, file: file, line: line)
        }
    }

    /// An older database whose stations compare names under a collation and whose
    /// stations_lines is a WITHOUT ROWID table cannot be compared in SQL as ours are
    /// (IS would follow the collation; there is no rowid to try first): the diff
    /// must notice from the schema and still agree with comparing the rows in memory.
    func testCollatedAndWithoutRowidTablesAgreeWithTheRows() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        let odd = dir + "/odd.sqlite"
        let db = try SQLiteDatabase(path: odd, mode: .create)
        try db.execute("""
            CREATE TABLE operators (o_id INTEGER PRIMARY KEY NOT NULL, operator TEXT NOT NULL, type INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1);
            CREATE TABLE lines (l_id INTEGER PRIMARY KEY NOT NULL, line TEXT NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, l_type INTEGER);
            CREATE TABLE stations (s_id INTEGER PRIMARY KEY NOT NULL, station TEXT NOT NULL COLLATE NOCASE, yomi TEXT NOT NULL, wiki TEXT NOT NULL,
                                   pref INTEGER NOT NULL, address TEXT NOT NULL, lat INTEGER NOT NULL, lng INTEGER NOT NULL,
                                   o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, weight INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE stations_lines (l_id INTEGER NOT NULL, s_id INTEGER NOT NULL, s_sort INTEGER NOT NULL, PRIMARY KEY (l_id, s_id)) WITHOUT ROWID;
            ATTACH DATABASE \(SQLValue.text(old).sqlLiteral) AS source;
            INSERT INTO operators SELECT * FROM source.operators;
            INSERT INTO lines SELECT * FROM source.lines;
            INSERT INTO stations SELECT * FROM source.stations;
            INSERT INTO stations_lines SELECT l_id, s_id, s_sort FROM source.stations_lines;
            DETACH DATABASE source;
            PRAGMA user_version = 3;
            """)
        // A name that differs only in case: equal under NOCASE, a change all the same.
        try db.execute("UPDATE stations SET station = lower(station) || 'X' WHERE s_id = (SELECT min(s_id) FROM stations)")
        db.close()
        for (a, b) in [(odd, new), (new, odd), (odd, old)] { try assertSQLAgreesWithRows(a, b) }
        XCTAssertEqual(try BundleDifference.between(oldPath: odd, newPath: old)["stations"]?.changed.count, 1)
    }

    /// The SQL way first passes over rows equal to the other side's row of the same
    /// rowid; rows stored in another order (other rowids, and rowids that now hold
    /// other keys) must still be matched by key.
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
        for (a, b) in [(variants[0], new), (old, variants[1]), (variants[1], old), (variants[0], variants[1]), (variants[1], new)] {
            let viaSQL = try BundleDifference.between(oldPath: a, newPath: b)
            let inMemory = BundleDifference.between(try BundleContents.load(path: a), try BundleContents.load(path: b))
            for (x, y) in zip(viaSQL.tables, inMemory.tables) {
                XCTAssertEqual(x.added, y.added, x.shape.name)
                XCTAssertEqual(x.removed, y.removed, x.shape.name)
                XCTAssertEqual(x.changed, y.changed, x.shape.name)
                XCTAssertEqual([x.oldCount, x.newCount], [y.oldCount, y.newCount], x.shape.name)
            }
        }
        XCTAssertTrue(try BundleDifference.between(oldPath: variants[1], newPath: new).isEmpty)
    }

    func testSQLOutputTurnsOldIntoNew() throws {
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: dir)
        let report = try DiffReport.make(oldPath: old, newPath: new)
        let patched = dir + "/patched.sqlite"
        try FileManager.default.copyItem(atPath: old, toPath: patched)
        try AndroidPatchRunner.apply(sql: report.sql(), toFileAt: patched)
        XCTAssertTrue(try BundleDifference.between(oldPath: patched, newPath: new).isEmpty)
        XCTAssertEqual(try SQLiteDatabase(path: patched).userVersion, 4)
        XCTAssertEqual(try SQLiteDatabase(path: patched).scalarInt("SELECT count(*) FROM completions"), 1, "the client's own table is left alone")
    }

    func testOlderDatabaseWithExtraTableAgainstItself() throws {
        let (old, _) = try DiffFixtures.everyKindOfChange(in: try DiffFixtures.folder())
        let report = try DiffReport.make(oldPath: old, newPath: old)
        XCTAssertTrue(report.difference.isEmpty)
        XCTAssertEqual(report.summary, DiffSummary(difference: report.difference, oldEnabledStations: 5))
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
        XCTAssertEqual(report.json().components(separatedBy: "\"name\": \"S").count - 1, 12)
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

        XCTAssertEqual(try DiffSide.resolve(v1), DiffSide(argument: v1, databasePath: v1, kind: .file))
        XCTAssertEqual(try DiffSide.resolve(dist), DiffSide(argument: dist, databasePath: dist + "/1/stations.sqlite", kind: .dist))
        XCTAssertEqual(try DiffSide.resolve(dist + "/1"), DiffSide(argument: dist + "/1", databasePath: dist + "/1/stations.sqlite", kind: .version))

        func assertInputError(_ path: String, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try DiffSide.resolve(path), line: line) { error in
                XCTAssertTrue(error is InputError, "\(error)", line: line)
                XCTAssertTrue("\(error)".contains(message), "\(error)", line: line)
            }
        }
        assertInputError(dir + "/missing.sqlite", "no such file or folder")
        assertInputError(dir, "not a bundle: a folder without latest.json")
        try "not sqlite".write(toFile: dir + "/text.sqlite", atomically: true, encoding: .utf8)
        assertInputError(dir + "/text.sqlite", "not an SQLite database")
        try "{\"version\": 1}".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)
        assertInputError(dist, "latest.json: database: missing")
        try "{\"database\": \"9/stations.sqlite\"}".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)
        assertInputError(dist, "names 9/stations.sqlite, which does not exist")

        // An SQLite file without the bundle's tables is bad input too, from the core.
        let other = dir + "/other.sqlite"
        let db = try SQLiteDatabase(path: other, mode: .create)
        try db.execute("CREATE TABLE completions (s_id INTEGER PRIMARY KEY)")
        db.close()
        XCTAssertThrowsError(try DiffReport.make(oldPath: v1, newPath: try DiffSide.resolve(other).databasePath)) { error in
            XCTAssertTrue(error is InputError, "\(error)")
            XCTAssertTrue("\(error)".contains("not a station bundle"), "\(error)")
        }
    }
}
