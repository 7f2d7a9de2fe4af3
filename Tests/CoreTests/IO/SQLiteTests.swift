import XCTest
import StationCore

/// The small SQLite wrapper: values in and out, literals for patches, errors naming the file and the statement.
final class SQLiteTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws { folder = try temporaryFolder("SQLiteTests") }
    override func tearDownWithError() throws { Files.remove(folder) }

    private func path(_ name: String) -> String { joinPath(folder, name) }

    func testValuesRoundTripThroughBindingsAndQueries() throws {
        let db = try SQLiteDatabase(path: path("a.sqlite"), mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v)")
        XCTAssertTrue(try db.tableExists("t"))
        XCTAssertFalse(try db.tableExists("u"))
        let values: [SQLValue] = [.null, .integer(Int64.min), .integer(42), .real(2.5), .text(""), .text("東京 'quoted'\nline"),
                                  .blob([]), .blob([0, 1, 0xFF])]
        let insert = try db.prepare("INSERT INTO t (k, v) VALUES (?, ?)")
        for (k, v) in values.enumerated() { try insert.run([.integer(Int64(k)), v]) }
        XCTAssertEqual(db.changes, 1)
        let rows = try db.query("SELECT k, v FROM t ORDER BY k")
        XCTAssertEqual(rows.map { $0[1] }, values)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t WHERE k >= ?", [.integer(3)]), 5)
        XCTAssertNil(try db.scalarInt("SELECT v FROM t WHERE k = 99"))

        // The typed binds and reads.
        let st = try db.prepare("SELECT ?, ?, ?, ?, ?")
        try st.bind(7, at: 1); try st.bind(nil as Int?, at: 2); try st.bind("x", at: 3); try st.bind(true, at: 4); try st.bind(.real(0.5), at: 5)
        XCTAssertTrue(try st.step())
        XCTAssertEqual(st.columnCount, 5)
        XCTAssertEqual(st.int(0), 7)
        XCTAssertEqual(st.value(1), .null)
        XCTAssertEqual(st.text(2), "x")
        XCTAssertEqual(st.int(3), 1)
        XCTAssertEqual(st.row(), [.integer(7), .null, .text("x"), .integer(1), .real(0.5)])
        XCTAssertFalse(try st.step())

        try db.execute("PRAGMA user_version = 12")
        XCTAssertEqual(try db.userVersion, 12)
    }

    /// A file attached for reading cannot be written through the attachment, whatever its
    /// name holds ('?', '#', '%' and a space are a URI's to escape).
    func testAFileAttachedForReadingIsNeverWritten() throws {
        let file = path("v 1?#%.sqlite")
        let writer = try SQLiteDatabase(path: file, mode: .create)
        try writer.execute("CREATE TABLE t (k INTEGER PRIMARY KEY); INSERT INTO t VALUES (1)")
        writer.close()
        let before = try Files.read(file)
        let db = try SQLiteDatabase(path: ":memory:", mode: .memoryForReading)
        try db.attachReadOnly(file, as: "published")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM published.t"), 1)
        XCTAssertThrowsError(try db.execute("INSERT INTO published.t VALUES (2)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code.primaryResultCode, .SQLITE_READONLY, "\(error)")
        }
        db.close()
        XCTAssertEqual(try Files.read(file), before)
        XCTAssertEqual(Files.names(in: folder).sorted(), ["v 1?#%.sqlite"], "no journal, no other file")
    }

    func testTransactionRollsBackOnError() throws {
        let db = try SQLiteDatabase(path: path("t.sqlite"), mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
        struct Stop: Error {}
        XCTAssertThrowsError(try db.transaction { try db.execute("INSERT INTO t VALUES (1)"); throw Stop() }) { XCTAssertTrue($0 is Stop, "\($0)") }
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 0)
        XCTAssertEqual(try db.transaction { try db.execute("INSERT INTO t VALUES (1), (2)"); return 5 }, 5)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 2)
        // A constraint violation names the file.
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (1)")) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.path, self.path("t.sqlite"))
            XCTAssertTrue(e?.description.hasPrefix("\(self.path("t.sqlite")): SQLite error ") == true, "\(error)")
            XCTAssertEqual(e?.isDamage, false)
        }
        XCTAssertThrowsError(try db.prepare("SELECT * FROM nowhere")) { error in
            XCTAssertTrue((error as? SQLiteError)?.message.contains("no such table: nowhere") == true, "\(error)")
        }
    }

    func testOpeningWhatIsNotADatabase() throws {
        XCTAssertThrowsError(try SQLiteDatabase(path: path("missing.sqlite"), mode: .readOnly)) { error in
            XCTAssertEqual((error as? SQLiteError)?.path, self.path("missing.sqlite"))
        }
        XCTAssertFalse(Files.exists(path("missing.sqlite")), "read-only never creates")
        try Files.write([UInt8](repeating: 0x41, count: 4096), to: path("text.sqlite"))
        XCTAssertThrowsError(try SQLiteDatabase(path: path("text.sqlite")).query("SELECT * FROM sqlite_master")) { error in
            XCTAssertEqual((error as? SQLiteError)?.isDamage, true, "\(error)")
        }
    }

    /// Literals as the Android patch writes them: one line each, read back by SQLite as the same value.
    func testLiteralsAreOneLineAndMeanTheValue() throws {
        XCTAssertEqual(SQLValue.null.sqlLiteral, "NULL")
        XCTAssertEqual(SQLValue.integer(-3).sqlLiteral, "-3")
        XCTAssertEqual(SQLValue.text("it's").sqlLiteral, "'it''s'")
        XCTAssertEqual(SQLValue.text("a\nb\rc").sqlLiteral, "('a'||char(10)||'b'||char(13)||'c')")
        XCTAssertEqual(SQLValue.blob([0x0A, 0xFF]).sqlLiteral, "X'0aff'")
        XCTAssertEqual(SQLValue.real(.nan).sqlLiteral, "NULL")
        let db = try SQLiteDatabase(path: path("l.sqlite"), mode: .create)
        for v: SQLValue in [.null, .integer(Int64.max), .real(-0.25), .text(""), .text("\n"), .text("駅 'x'\r\n'y'\n"), .blob([1, 2])] {
            XCTAssertFalse(v.sqlLiteral.contains("\n") || v.sqlLiteral.contains("\r"), v.sqlLiteral)
            XCTAssertEqual(try db.query("SELECT \(v.sqlLiteral)").first?.first, v, v.sqlLiteral)
        }
    }

    func testValueConversionsAndSameness() {
        XCTAssertTrue(SQLValue.integer(5).isSame(as: .real(5)))
        XCTAssertTrue(SQLValue.real(5).isSame(as: .integer(5)))
        XCTAssertTrue(SQLValue.null.isSame(as: .null))
        XCTAssertFalse(SQLValue.integer(5).isSame(as: .text("5")))
        XCTAssertFalse(SQLValue.null.isSame(as: .integer(0)))
        XCTAssertEqual(SQLValue.real(3.9).intValue, 3)
        XCTAssertEqual(SQLValue.text("12").intValue, 12)
        XCTAssertNil(SQLValue.null.intValue)
        XCTAssertNil(SQLValue.null.textValue)
        XCTAssertEqual(SQLValue.integer(4).textValue, "4")
        XCTAssertEqual(SQLValue.blob([0xAB]).description, "x'ab'")
    }

    func testRowsByColumnName() throws {
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        let rows = try db.rows("SELECT 1 AS s_id, 'x' AS memo UNION ALL SELECT 2, NULL")
        XCTAssertEqual(rows.map { $0["s_id"] }, [.integer(1), .integer(2)])
        XCTAssertEqual(rows.map { $0["memo"] }, [.text("x"), .null])
        XCTAssertEqual(rows[0][1], .text("x"))
        XCTAssertEqual(rows[0].columns, ["s_id", "memo"])
    }

    /// Each kind takes its lock when it begins: a second connection sees it at once.
    func testTransactionKindsTakeTheirLocks() throws {
        let file = path("k.sqlite")
        let db = try SQLiteDatabase(path: file, mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY)")
        let other = try SQLiteDatabase(path: file, mode: .readWrite)
        func otherCanRead() -> Bool { (try? other.scalarInt("SELECT count(*) FROM t")) != nil }
        func otherCanWrite() -> Bool { (try? other.execute("INSERT INTO t VALUES (99); DELETE FROM t WHERE k = 99")) != nil }
        try db.transaction(.deferred) { XCTAssertTrue(otherCanWrite(), "deferred: no lock before the first statement") }
        try db.transaction(.immediate) {
            XCTAssertTrue(otherCanRead())
            XCTAssertFalse(otherCanWrite(), "immediate: the write lock at once")
        }
        try db.transaction(.exclusive) { XCTAssertFalse(otherCanRead(), "exclusive: no reader either") }
        XCTAssertTrue(otherCanWrite(), "every lock is released")
    }

    /// The authorizer judges what each statement would do before it runs, and is
    /// gone once its body has run; a refused statement's error says why.
    func testStatementsRunUnderAnAuthorizer() throws {
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE open (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE closed (k INTEGER PRIMARY KEY)")
        let seen = Box()
        let onlyOpen: SQLiteAuthorizer = { action in
            seen.add(action)
            switch action {
            case .insert(let table, _), .update(let table, _, _), .read(let table, _, _):
                return table == "open" ? nil : action.description
            case .select, .function: return nil
            default: return action.description
            }
        }
        try db.authorizing(onlyOpen) { try db.execute("INSERT INTO open VALUES (1, 'a'); UPDATE open SET v = upper(v) WHERE k = 1") }
        XCTAssertEqual(try db.query("SELECT v FROM open"), [[.text("A")]])
        XCTAssertTrue(seen.actions.contains(.update(table: "open", column: "v", database: "main")), "\(seen.actions)")
        XCTAssertTrue(seen.actions.contains(.function("upper")), "\(seen.actions)")

        let refused = "INSERT INTO open SELECT k + 10, NULL FROM closed"
        XCTAssertThrowsError(try db.authorizing(onlyOpen) { try db.execute("INSERT INTO open VALUES (2, 'b');\n" + refused) }) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.refusal, "reads closed.k")
            XCTAssertEqual(e?.code, .SQLITE_AUTH)
            XCTAssertEqual(e?.sql, refused, "the statement that failed, not the one before it")
            XCTAssertEqual("\(error)", ":memory:: SQLite error 23: access to closed.k is prohibited (refused: reads closed.k) in: \(refused)")
        }
        // No transaction of its own: the first statement stays. The authorizer does
        // not: it would refuse this read of closed.
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM open"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM closed"), 0)
    }

    func testLimitSizeStopsAWriteBeforeItHappens() throws {
        let db = try SQLiteDatabase(path: path("s.sqlite"), mode: .create)
        try db.execute("CREATE TABLE t (v)")
        try db.limitSize(toBytes: 256 << 10)
        try db.execute("INSERT INTO t VALUES (zeroblob(100000))")
        for (sql, code) in [("INSERT INTO t VALUES (randomblob(300000))", ResultCode.SQLITE_TOOBIG),                // one value too long
                            ("INSERT INTO t SELECT randomblob(200000) FROM (SELECT 1 UNION SELECT 2)", .SQLITE_FULL)] { // the file too large
            XCTAssertThrowsError(try db.execute(sql)) { error in
                XCTAssertEqual((error as? SQLiteError)?.isFull, true, "\(error)")
                XCTAssertEqual((error as? SQLiteError)?.code, code, "\(error)")
            }
        }
        XCTAssertLessThanOrEqual(Files.size(of: path("s.sqlite")) ?? 0, 256 << 10)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 1)
    }

    /// An error names the statement that failed, whether preparing or stepping it,
    /// cut short when long, and its code matches as a pattern: a primary code
    /// matches its extended codes, an extended code only itself.
    func testAFailingStatementNamesItsSQLAndItsCode() throws {
        let file = path("e.sqlite")
        let db = try SQLiteDatabase(path: file, mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v UNIQUE); INSERT INTO t VALUES (1, 'a')")
        XCTAssertThrowsError(try db.execute("INSERT INTO t VALUES (2, 'b'); INSERT INTO t VALUES (1, 'c')")) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.sql, "INSERT INTO t VALUES (1, 'c')")
            XCTAssertEqual("\(error)", "\(file): SQLite error 1555: UNIQUE constraint failed: t.k in: INSERT INTO t VALUES (1, 'c')")
            guard let code = e?.code else { return XCTFail("\(error)") }
            switch code {
            case .SQLITE_CONSTRAINT: break
            default: XCTFail("\(code) is SQLITE_CONSTRAINT_PRIMARYKEY, an extended SQLITE_CONSTRAINT")
            }
            XCTAssertEqual(code.primaryResultCode, .SQLITE_CONSTRAINT)
            XCTAssertNotEqual(code, .SQLITE_CONSTRAINT, "extended codes are on")
            XCTAssertFalse(ResultCode(rawValue: 2067) ~= code, "SQLITE_CONSTRAINT_UNIQUE is another extended code")
            XCTAssertFalse(ResultCode.SQLITE_ERROR ~= code)
        }
        let query = "SELECT k FROM t WHERE v = '" + String(repeating: "駅", count: 300) + "' AND w = 1"
        XCTAssertThrowsError(try db.query(query)) { error in
            let e = error as? SQLiteError
            XCTAssertEqual(e?.code, .SQLITE_ERROR)
            XCTAssertEqual(e?.message, "no such column: w")
            XCTAssertLessThanOrEqual(e?.sql?.count ?? .max, 200, "\(error)")
            XCTAssertTrue(e?.sql?.hasPrefix("SELECT k FROM t WHERE v = '駅駅") == true, "\(error)")
        }

        // Another connection holds the write lock: without a busy timeout, a write is SQLITE_BUSY at once.
        let other = try SQLiteDatabase(path: file, mode: .readWrite)
        try db.transaction(.exclusive) {
            XCTAssertThrowsError(try other.execute("DELETE FROM t")) { error in
                let e = error as? SQLiteError
                switch e?.code {
                case .SQLITE_BUSY?: XCTAssertEqual(e?.sql, "DELETE FROM t")
                default: XCTFail("\(error)")
                }
                XCTAssertFalse(ResultCode.SQLITE_LOCKED ~= (e?.code ?? .SQLITE_OK))
            }
        }
        // Values and parameters must agree in number: a statement short of values does not run.
        XCTAssertThrowsError(try db.execute("DELETE FROM t WHERE k = ?; DELETE FROM t WHERE k = ?", [.integer(1)])) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .SQLITE_RANGE, "\(error)")
            XCTAssertEqual((error as? SQLiteError)?.sql, "DELETE FROM t WHERE k = ?")
        }
        XCTAssertEqual(try db.query("SELECT k FROM t"), [[.integer(2)]], "the first ran, the second did not")
        XCTAssertThrowsError(try db.execute("DELETE FROM t WHERE k = ?", [.integer(1), .integer(2)])) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .SQLITE_RANGE, "\(error)")
        }
    }

    /// ATTACH and VACUUM INTO take the file as a bound value: a path holding quotes
    /// (and SQL) is a path, with no escaping.
    func testAttachAndVacuumIntoTakeAPathHoldingQuotes() throws {
        let odd = path("it's \"odd\"; DROP TABLE t; --")
        try Files.createFolder(odd)
        let source = joinPath(odd, "a'b.sqlite"), copy = joinPath(odd, "c'd.sqlite")
        let db = try SQLiteDatabase(path: source, mode: .create)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'it''s')")
        try db.execute("VACUUM INTO ?", [.text(copy)])
        let reader = try SQLiteDatabase(path: ":memory:", mode: .create)
        try reader.execute("ATTACH DATABASE ? AS a; ATTACH DATABASE ? AS c", [.text(source), .text(copy)])
        XCTAssertEqual(try reader.query("SELECT a.t.v, c.t.v FROM a.t JOIN c.t USING (k)"), [[.text("it's"), .text("it's")]])
        XCTAssertEqual(try reader.query("SELECT file FROM pragma_database_list WHERE name = 'c'"), [[.text(copy)]])
    }
}

/// What the authorizer was told, gathered from SQLite's callback.
private final class Box: @unchecked Sendable {
    var actions: [SQLiteAction] = []
    func add(_ action: SQLiteAction) { actions.append(action) }
}
