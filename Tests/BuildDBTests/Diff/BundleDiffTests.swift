import BuildDB
import StationCore
import Foundation
import XCTest

final class BundleDiffTests: XCTestCase {
    override class func tearDown() { try? FileManager.default.removeItem(atPath: NSTemporaryDirectory() + "bundlediff-tests-\(getpid())") }

    /// A bundle made by hand from BundleSchema; `indexes: false` makes it like an old database.
    func makeBundle(_ path: String, version: Int, indexes: Bool = true, extra: [String] = [], rows: [String]) throws {
        unlink(path)
        let db = try SQLiteDatabase(path: path, mode: .create)
        for t in BundleSchema.clientTables { try db.execute(t.createSQL) }
        if indexes { for i in BundleSchema.indexes { try db.execute(i.createSQL) } }
        for sql in extra + rows { try db.execute(sql) }
        try db.execute("PRAGMA user_version = \(version)")
        db.close()
    }

    func folder() throws -> String {
        let path = NSTemporaryDirectory() + "bundlediff-tests-\(getpid())/\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    let baseRows = [
        "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei', 2, 1)",
        "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (20, 'Main', 2, 1, NULL)",
        "INSERT INTO stations VALUES (100, '東京', 'とうきょう', '東京駅', 13, '千代田区', 35681382, 139766084, 1, 1, 1)",
        "INSERT INTO stations VALUES (101, '上野', 'うえの', '上野駅', 13, '台東区', 35713768, 139777254, 1, 1, 11)",
        "INSERT INTO stations VALUES (200, 'Aoto', 'あおと', '', 13, 'Katsushika', 35745000, 139856000, 2, 1, 12)",
    ]

    func testStationsLinesAreKeyedByLineAndStationNotRowid() throws {
        let dir = try folder()
        try makeBundle(dir + "/a.sqlite", version: 1, rows: baseRows + [
            "INSERT INTO stations_lines VALUES (10, 100, 1), (10, 101, 2), (20, 200, 1)",
        ])
        try makeBundle(dir + "/b.sqlite", version: 2, rows: baseRows + [
            "INSERT INTO stations_lines VALUES (20, 200, 1), (10, 101, 2), (10, 100, 1)",
        ])
        let d = try BundleDifference.between(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite")
        XCTAssertTrue(d.isEmpty, "insertion order is no difference")
        XCTAssertTrue(try BundleDifference.between(oldPath: dir + "/b.sqlite", newPath: dir + "/a.sqlite").isEmpty)
        XCTAssertEqual(d.oldVersion, 1)
        XCTAssertEqual(d.newVersion, 2)
    }

    /// The diff attaches both files by bound path: quotes in a path need no escaping.
    func testPathsHoldingQuotes() throws {
        let dir = try folder() + "/it's \"here\""
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try makeBundle(dir + "/a'.sqlite", version: 1, rows: baseRows)
        try makeBundle(dir + "/b'.sqlite", version: 2, rows: Array(baseRows.dropLast()))
        let d = try BundleDifference.between(oldPath: dir + "/a'.sqlite", newPath: dir + "/b'.sqlite")
        XCTAssertEqual(d["stations"]?.removed.map { $0[0] }, [.integer(200)])
    }

    func testAddedRemovedChangedWithColumnValues() throws {
        let dir = try folder()
        try makeBundle(dir + "/a.sqlite", version: 1, rows: baseRows + ["INSERT INTO stations_lines VALUES (10, 100, 1), (10, 101, 2), (20, 200, 1)"])
        try makeBundle(dir + "/b.sqlite", version: 2, rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei Electric', 2, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (20, 'Main', 2, 1, NULL)",
            "INSERT INTO stations VALUES (100, '東京', 'とうきょう', '東京駅', 13, '千代田区', 35681382, 139766084, 1, 1, 2)",
            "INSERT INTO stations VALUES (200, 'Aoto', 'あおと', '', 13, 'Katsushika', 35745001, 139856000, 2, 0, 12)",
            "INSERT INTO stations VALUES (300, 'New', 'にゅー', '', 13, '', 35700000, 139700000, 2, 1, 13)",
            "INSERT INTO stations_lines VALUES (10, 100, 1), (20, 200, 5), (20, 300, 6)",
        ])
        let d = try BundleDifference.between(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite")
        XCTAssertFalse(d.isEmpty)
        XCTAssertEqual(d["operators"]?.changed.map(\.changes), [[ColumnChange(column: "operator", old: .text("Keisei"), new: .text("Keisei Electric"))]])
        let stations = try XCTUnwrap(d["stations"])
        XCTAssertEqual(stations.added.map { $0[0] }, [.integer(300)])
        XCTAssertEqual(stations.removed.map { $0[0] }, [.integer(101)])
        XCTAssertEqual(stations.changed.map(\.key), [[.integer(100)], [.integer(200)]])
        XCTAssertEqual(stations.changed[1].changes.map(\.column), ["lat", "enabled"])
        XCTAssertEqual(stations.changed[0].changes, [ColumnChange(column: "weight", old: .integer(1), new: .integer(2))])
        XCTAssertEqual([stations.oldCount, stations.newCount], [3, 3])
        let links = try XCTUnwrap(d["stations_lines"])
        XCTAssertEqual(links.removed, [[.integer(10), .integer(101), .integer(2)]])
        XCTAssertEqual(links.added, [[.integer(20), .integer(300), .integer(6)]])
        XCTAssertEqual(links.changed.map(\.key), [[.integer(20), .integer(200)]])
        XCTAssertTrue(d["lines"]!.isEmpty)
        XCTAssertTrue(d["renumbered_stations"]!.isEmpty, "absent on both sides")
    }

    func testLoadsOlderDatabasesAndIgnoresClientTables() throws {
        let dir = try folder()
        // An older database: no indexes, the client's completions table, no renumbered_stations.
        try makeBundle(dir + "/old.sqlite", version: 3, indexes: false, extra: [BundleSchema.completionsCreateSQL,
            "INSERT INTO completions VALUES (100, 5, 6, 'memo')"], rows: baseRows)
        try makeBundle(dir + "/fresh.sqlite", version: 4, rows: baseRows)
        let d = try BundleDifference.between(oldPath: dir + "/old.sqlite", newPath: dir + "/fresh.sqlite")
        XCTAssertTrue(d.isEmpty, "missing indexes and a client table are no difference")
        XCTAssertEqual([d.oldVersion, d.newVersion], [3, 4])
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: d.tables.map { ($0.shape.name, $0.oldCount) }),
                       ["operators": 2, "lines": 2, "stations": 3, "stations_lines": 0, "renumbered_stations": 0])
        XCTAssertEqual(d.tables.map(\.shape.name), ["operators", "lines", "stations", "stations_lines", "renumbered_stations"])
        let renumbered = try XCTUnwrap(d["renumbered_stations"])
        XCTAssertFalse(renumbered.tableAdded || renumbered.tableRemoved, "absent on both sides")
        XCTAssertNil(d["completions"])
        XCTAssertEqual(d.oldEnabledStations, 3)

        let notBundle = dir + "/other.sqlite"
        let db = try SQLiteDatabase(path: notBundle, mode: .create)
        try db.execute("CREATE TABLE stations (s_id INTEGER)")
        db.close()
        XCTAssertThrowsError(try BundleDifference.between(oldPath: notBundle, newPath: dir + "/fresh.sqlite")) { error in
            XCTAssertTrue(error.station(.badInput) != nil, "\(error)")
            XCTAssertTrue("\(error)".contains("\(notBundle): not a station bundle: it has no table operators"), "\(error)")
        }

        // Without the unique index an old database may hold a (l_id, s_id) twice: rows are matched by key, so that is bad input.
        try makeBundle(dir + "/twice.sqlite", version: 2, indexes: false, rows: baseRows + ["INSERT INTO stations_lines VALUES (10, 100, 1), (10, 100, 2)"])
        XCTAssertThrowsError(try BundleDifference.between(oldPath: dir + "/fresh.sqlite", newPath: dir + "/twice.sqlite")) { error in
            XCTAssertTrue(error.station(.badInput) != nil, "\(error)")
            XCTAssertTrue("\(error)".contains("twice.sqlite: stations_lines: not a station bundle: (l_id, s_id) = (10, 100) appears twice in stations_lines"), "\(error)")
        }
    }

    func testRenumberedShapeComesFromBundleSchema() {
        XCTAssertEqual(BundleSchema.renumberedStations.name, "renumbered_stations")
        XCTAssertEqual(BundleSchema.renumberedStations.columns, ["new_s_id", "old_s_id", "version"])
        XCTAssertEqual(BundleSchema.renumberedStations.key, ["new_s_id", "old_s_id"])
        XCTAssertEqual(BundleSchema.clientTables.first { $0.name == "stations_lines" }?.key, ["l_id", "s_id"])
    }

    func testPatchAppliesToOldBundleWithoutRenumberedTable() throws {
        let dir = try folder()
        let old = dir + "/old.sqlite", new = dir + "/new.sqlite"
        try makeBundle(old, version: 1, indexes: false, rows: baseRows + ["INSERT INTO stations_lines VALUES (10, 100, 1)"])
        let tricky = "It's, \"quoted\"\nand 日本語 'twice'' \r end"
        try makeBundle(new, version: 2, extra: [BundleSchema.renumberedStations.createSQL, "INSERT INTO renumbered_stations VALUES (200, 199, 2)"], rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei', 2, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (20, 'Main', 2, 1, 1)",
            "INSERT INTO stations VALUES (100, \(SQLValue.text(tricky).sqlLiteral), 'とうきょう', '東京駅', 13, '千代田区', 35681382, 139766084, 1, 1, 1)",
            "INSERT INTO stations VALUES (200, 'Aoto', 'あおと', '', 13, 'Katsushika', 35745000, 139856000, 2, 1, 12)",
            "INSERT INTO stations_lines VALUES (20, 200, 1), (10, 100, 1)",
        ])
        let d = try BundleDifference.between(oldPath: old, newPath: new)
        XCTAssertTrue(d["renumbered_stations"]!.tableAdded)
        let patch = PatchWriter.patch(from: d, toVersion: 2)
        XCTAssertTrue(patch.hasPrefix("CREATE TABLE IF NOT EXISTS renumbered_stations ("), patch)
        XCTAssertEqual(patch.split(separator: "\n").count, patch.filter { $0 == "\n" }.count, "no blank lines")
        XCTAssertFalse(patch.contains("BEGIN"))
        XCTAssertFalse(patch.contains("\r"))

        try AndroidPatchRunner.apply(sql: patch, to: SQLiteDatabase(path: old, mode: .readWrite))
        let after = try BundleDifference.between(oldPath: old, newPath: new)
        XCTAssertTrue(after.isEmpty)
        XCTAssertEqual(try SQLiteDatabase(path: old).userVersion, 2)
        XCTAssertEqual(try SQLiteDatabase(path: old).query("SELECT station FROM stations WHERE s_id = 100")[0][0], .text(tricky))
    }

    func testPatchOrderDeletesBeforeInsertsAndChildrenBeforeParents() throws {
        let dir = try folder()
        try makeBundle(dir + "/a.sqlite", version: 1, rows: baseRows + ["INSERT INTO stations_lines VALUES (20, 200, 1)"])
        try makeBundle(dir + "/b.sqlite", version: 2, rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (3, 'Other', 5, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (30, 'Other line', 3, 1, NULL)",
            "INSERT INTO stations VALUES (100, '東京', 'とうきょう', '東京駅', 13, '千代田区', 35681382, 139766084, 1, 1, 1)",
            "INSERT INTO stations VALUES (300, 'X', 'x', '', 13, '', 35745000, 139856000, 3, 1, 12)",
            "INSERT INTO stations_lines VALUES (30, 300, 1)",
        ])
        let patch = PatchWriter.patch(from: try BundleDifference.between(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite"), toVersion: 2)
        XCTAssertEqual(patch, """
            DELETE FROM stations_lines WHERE l_id = 20 AND s_id = 200;
            DELETE FROM stations WHERE s_id = 101;
            DELETE FROM stations WHERE s_id = 200;
            DELETE FROM lines WHERE l_id = 20;
            DELETE FROM operators WHERE o_id = 2;
            INSERT OR IGNORE INTO operators (o_id, operator, type, enabled) VALUES (3, 'Other', 5, 1);
            INSERT OR IGNORE INTO lines (l_id, line, o_id, enabled, l_type) VALUES (30, 'Other line', 3, 1, NULL);
            INSERT OR IGNORE INTO stations (s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled, weight) VALUES (300, 'X', 'x', '', 13, '', 35745000, 139856000, 3, 1, 12);
            INSERT OR IGNORE INTO stations_lines (l_id, s_id, s_sort) VALUES (30, 300, 1);
            PRAGMA user_version = 2;

            """)
    }
}

final class AndroidPatchRunnerTests: XCTestCase {
    func database() throws -> SQLiteDatabase {
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        try db.execute("INSERT INTO t VALUES (1, 'one')")
        return db
    }

    func testJoinsLinesUntilQuotesBalance() throws {
        // A raw newline inside a literal: the client drops it while joining.
        let sql = "INSERT INTO t VALUES (2, 'a\nb');\r\nUPDATE t SET v = 'it''s' WHERE k = 1;\nPRAGMA user_version = 4;"
        let statements = try SQLScript(sql).statements
        XCTAssertEqual(statements.map(\.line), [1, 3, 4])
        XCTAssertEqual(statements[0].text, "INSERT INTO t VALUES (2, 'ab');")
        let db = try database()
        try AndroidPatchRunner.apply(sql: sql, to: db)
        XCTAssertEqual(try db.query("SELECT v FROM t ORDER BY k").map { $0[0] }, [.text("it's"), .text("ab")])
        XCTAssertEqual(try db.userVersion, 4)
    }

    func testAnyErrorRollsBackEverything() throws {
        let db = try database()
        XCTAssertThrowsError(try AndroidPatchRunner.apply(sql: "INSERT INTO t VALUES (2, 'x');\nPRAGMA user_version = 9;\nINSERT INTO t VALUES (1, 'dup');\n", to: db)) { error in
            XCTAssertNotNil(error.station(.badInput), "\(error)")
            XCTAssertTrue("\(error)".contains("patch:3"), "\(error)")
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
        XCTAssertEqual(try db.userVersion, 0, "user_version rolls back too")

        // What a phone would get wrong is an error here.
        for bad in ["BEGIN;\nINSERT INTO t VALUES (3, 'x');\nCOMMIT;\n",          // nested transaction
                    "INSERT INTO t VALUES (3, 'x');\n\nINSERT INTO t VALUES (4, 'y');\n",  // blank line
                    "INSERT INTO t VALUES (3, 'x'); INSERT INTO t VALUES (4, 'y');\n",    // two statements on a line
                    "-- a comment\n",
                    "INSERT INTO t VALUES (3, 'x);\n"] {                                 // unbalanced quote
            XCTAssertThrowsError(try AndroidPatchRunner.apply(sql: bad, to: db), bad) { XCTAssertNotNil($0.station(.badInput), "\(bad): \($0)") }
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1, bad)
        }
    }

    /// Under an authorizer, a statement that would do what it refuses fails before it
    /// runs, named by its line; the statements before it roll back with it.
    func testAPatchRunsUnderAnAuthorizer() throws {
        let db = try database()
        try db.execute("CREATE TABLE closed (k INTEGER PRIMARY KEY)")
        let onlyT: SQLiteAuthorizer = { action in
            switch action {
            case .insert(let table, _), .read(let table, _, _): return table == "t" ? nil : action.description
            case .select, .function: return nil
            default: return action.description
            }
        }
        try AndroidPatchRunner.apply(sql: "INSERT INTO t VALUES (2, 'b');\n", to: db, authorizer: onlyT)
        let sql = "INSERT INTO t VALUES (3, 'c');\nINSERT INTO t SELECT k + 10, NULL FROM closed;\n"
        XCTAssertThrowsError(try AndroidPatchRunner.apply(sql: sql, to: db, file: "p.sql", authorizer: onlyT)) { error in
            let failure = error.station(.badInput)?.statement
            XCTAssertEqual(failure?.location, SourceLocation(file: "p.sql", line: 2))
            XCTAssertEqual(failure?.refusal, "reads closed.k")
            XCTAssertEqual(failure?.error?.code, .SQLITE_AUTH)
            XCTAssertEqual("\(error)", "error: p.sql:2: refused: reads closed.k in: INSERT INTO t SELECT k + 10, NULL FROM closed;")
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM closed"), 0, "the authorizer is gone with the patch")
    }

    /// A statement that writes past the connection's size limit fails as full.
    func testAPatchPastTheSizeLimitIsFull() throws {
        let db = try database()
        try db.limitSize(toBytes: 64 << 10)
        XCTAssertThrowsError(try AndroidPatchRunner.apply(sql: "INSERT INTO t VALUES (5, randomblob(100000));\n", to: db)) { error in
            XCTAssertEqual(error.station(.badInput)?.statement?.isFull, true, "\(error)")
        }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
    }

    func testLiteralsSurviveTheClient() throws {
        let db = try database()
        let values = ["O'Hare, \"x\"", "日本語、テスト", "a\nb\r\nc\rd", "''", "", "🚃 emoji", "semi;colon -- not a comment"]
        var sql = ""
        for (i, v) in values.enumerated() { sql += "INSERT OR IGNORE INTO t (k, v) VALUES (\(i + 10), \(SQLValue.text(v).sqlLiteral));\n" }
        XCTAssertEqual(sql.filter { $0 == "\n" }.count, values.count, "one line per statement")
        try AndroidPatchRunner.apply(sql: sql, to: db)
        XCTAssertEqual(try db.query("SELECT v FROM t WHERE k >= 10 ORDER BY k").map { $0[0] }, values.map { .text($0) })
    }
}
