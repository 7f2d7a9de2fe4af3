import CSQLite

// A minimal wrapper over the SQLite C API: enough for the staging file, the
// bundle, diffs and patches, with errors that name the database file.

private let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
private let SQLITE_STATIC = unsafeBitCast(0, to: sqlite3_destructor_type.self)
/// Lives in the binary's constant data for the whole run.
private let emptyText: StaticString = "\0"

public enum SQLValue: Hashable, Sendable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let s): return s
        case .blob(let b): return "x'" + b.map { String(format2hex: $0) }.joined() + "'"
        }
    }

    public var intValue: Int? {
        switch self {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(v)
        case .text(let s): return Int(s)
        default: return nil
        }
    }

    public var textValue: String? {
        switch self {
        case .text(let s): return s
        case .null: return nil
        default: return description
        }
    }

    /// The value as an SQL literal on one line: quotes doubled, and no raw
    /// newline (the Android client splits statements at line ends), so CR and
    /// LF inside text are spelled with char().
    public var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v):
            return v.isFinite ? "\(v)" : "NULL"
        case .blob(let b): return "X'" + b.map { String(format2hex: $0) }.joined() + "'"
        case .text(let s):
            if !s.contains(where: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
                return "'" + s.replacingAll("'", with: "''") + "'"
            }
            // Split around CR/LF and rejoin with char(13)/char(10).
            var parts: [String] = []
            var current = ""
            for scalar in s.unicodeScalars {
                if scalar == "\n" || scalar == "\r" {
                    parts.append("'" + current.replacingAll("'", with: "''") + "'")
                    parts.append(scalar == "\n" ? "char(10)" : "char(13)")
                    current = ""
                } else {
                    current.unicodeScalars.append(scalar)
                }
            }
            parts.append("'" + current.replacingAll("'", with: "''") + "'")
            return "(" + parts.joined(separator: "||") + ")"
        }
    }
}

extension String {
    init(format2hex byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        out.reserveCapacity(count + 4)
        for c in self {
            if c == target { out += replacement } else { out.append(c) }
        }
        return out
    }
}

public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var code: Int32
    public var message: String
    public var description: String { "\(path): SQLite error \(code): \(message)" }
}

public final class SQLiteDatabase {
    public let path: String
    public private(set) var handle: OpaquePointer?

    public enum Mode { case readOnly, readWrite, create }

    /// Process-wide settings, made before the first connection (SQLite takes
    /// them only before it initialises; later they are refused, harmlessly).
    private static let configured: Void = { _ = stationdb_sqlite3_disable_memstatus() }()

    public init(path: String, mode: Mode = .readOnly) throws {
        self.path = path
        var flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .create: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        _ = SQLiteDatabase.configured
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        if rc != SQLITE_OK {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(path: path, code: rc, message: msg)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // A file opened to be read is read through a shared mapping, not copied
        // page by page into a cache this process must first fault in. Files here
        // are replaced by rename, never rewritten in place, so a mapping stays valid.
        if mode == .readOnly { try execute("PRAGMA mmap_size = \(SQLiteDatabase.readMappingLimit)") }
    }

    /// The most of a file read through a mapping (a national bundle is 2 MB).
    public static let readMappingLimit = 1 << 30

    deinit { close() }

    public func close() {
        if let h = handle { sqlite3_close_v2(h); handle = nil }
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(path: path, code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var err: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &err)
        if rc != SQLITE_OK {
            let msg = err.map { String(cString: $0) } ?? "error"
            sqlite3_free(err)
            throw SQLiteError(path: path, code: rc, message: msg)
        }
    }

    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &stmt, nil)
        if rc != SQLITE_OK { throw error(rc) }
        return SQLiteStatement(db: self, stmt: stmt)
    }

    /// All rows of a query as values.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] {
        let st = try prepare(sql)
        try st.bind(bindings)
        var rows: [[SQLValue]] = []
        while try st.step() { rows.append(st.row()) }
        return rows
    }

    public func scalarInt(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int? {
        try query(sql, bindings).first?.first?.intValue
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let v = try body()
            try execute("COMMIT")
            return v
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var userVersion: Int {
        get throws { try scalarInt("PRAGMA user_version") ?? 0 }
    }

    public func tableExists(_ name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?", [.text(name)]) == 1
    }

    public var changes: Int { Int(sqlite3_changes(handle)) }
}

public final class SQLiteStatement {
    unowned let db: SQLiteDatabase
    var stmt: OpaquePointer?

    init(db: SQLiteDatabase, stmt: OpaquePointer?) { self.db = db; self.stmt = stmt }
    deinit { sqlite3_finalize(stmt) }

    public func bind(_ values: [SQLValue]) throws {
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    public func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(stmt, index)
        case .integer(let v): rc = sqlite3_bind_int64(stmt, index, v)
        case .real(let v): rc = sqlite3_bind_double(stmt, index, v)
        case .text(let s): rc = sqlite3_bind_text(stmt, index, s, -1, SQLITE_TRANSIENT)
        case .blob(let b): rc = b.withUnsafeBytes { sqlite3_bind_blob(stmt, index, $0.baseAddress, Int32(b.count), SQLITE_TRANSIENT) }
        }
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: Int, at index: Int32) throws {
        let rc = sqlite3_bind_int64(stmt, index, Int64(v))
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: String, at index: Int32) throws {
        var v = v
        let rc = v.withUTF8 { b -> Int32 in
            // An empty buffer has no address, and a NULL pointer would bind NULL, not ''.
            // '' from the binary's constant data, which SQLite need not copy: a copied
            // value costs an allocation even when empty, and yomi, wiki and address often are.
            if b.isEmpty {
                return emptyText.withUTF8Buffer { e in
                    e.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(stmt, index, $0.baseAddress, 0, SQLITE_STATIC) }
                }
            }
            return b.withMemoryRebound(to: CChar.self) { sqlite3_bind_text(stmt, index, $0.baseAddress, Int32($0.count), SQLITE_TRANSIENT) }
        }
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: Int?, at index: Int32) throws {
        if let v { try bind(v, at: index) } else { try bind(.null, at: index) }
    }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw db.error(rc)
    }

    public func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    /// Binds, runs to completion and resets: for INSERT/UPDATE/DELETE in a loop.
    public func run(_ values: [SQLValue]) throws {
        try bind(values)
        try step()
        reset()
    }

    public var columnCount: Int { Int(sqlite3_column_count(stmt)) }

    public func columnName(_ i: Int) -> String { String(cString: sqlite3_column_name(stmt, Int32(i))) }

    public func int(_ i: Int) -> Int { Int(sqlite3_column_int64(stmt, Int32(i))) }

    public func optionalInt(_ i: Int) -> Int? {
        sqlite3_column_type(stmt, Int32(i)) == SQLITE_NULL ? nil : int(i)
    }

    public func text(_ i: Int) -> String {
        guard let p = sqlite3_column_text(stmt, Int32(i)) else { return "" }
        // SQLite knows the length: no strlen. Text this project binds never holds NUL.
        let n = Int(sqlite3_column_bytes(stmt, Int32(i)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func value(_ i: Int) -> SQLValue {
        let c = Int32(i)
        switch sqlite3_column_type(stmt, c) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(stmt, c))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(stmt, c))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(stmt, c))
            guard n > 0, let p = sqlite3_column_blob(stmt, c) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }

    public func row() -> [SQLValue] { (0..<columnCount).map(value) }
}

extension SQLiteDatabase {
    /// Inserts `count` rows into `table`, `rowsPerStep` at a time through one
    /// multi-row `INSERT ... VALUES (...), (...)`: SQLite runs a statement's
    /// program (its start, halt and reset) once per step, and with one row per
    /// step that was about a fifth of writing a national file. Rows go in in
    /// the order given, so the file is the same as with one row per step.
    /// `bindRow(i, slot)` binds row i's values through `slot`, by column (1-based).
    public func insertRows(into table: String, columns: [String], count: Int, rowsPerStep: Int = 64,
                           _ bindRow: (Int, SQLiteRowSlot) throws -> Void) throws {
        let head = "INSERT INTO \(table) (\(columns.joined(separator: ", "))) VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ",") + ")"
        let width = Int32(columns.count)
        var row = 0
        if count >= rowsPerStep {
            let batch = try prepare(head + Array(repeating: tuple, count: rowsPerStep).joined(separator: ","))
            while count - row >= rowsPerStep {
                for k in 0..<rowsPerStep { try bindRow(row + k, SQLiteRowSlot(statement: batch, base: Int32(k) * width)) }
                try batch.step()
                sqlite3_reset(batch.stmt)
                row += rowsPerStep
            }
        }
        if row < count {
            let single = try prepare(head + tuple)
            while row < count {
                try bindRow(row, SQLiteRowSlot(statement: single, base: 0))
                try single.step()
                sqlite3_reset(single.stmt)
                row += 1
            }
        }
    }
}

/// One row's parameters within a multi-row INSERT (see `insertRows`).
public struct SQLiteRowSlot {
    let statement: SQLiteStatement
    let base: Int32

    @inline(__always) public func bind(_ v: Int, at column: Int32) throws { try statement.bind(v, at: base + column) }
    @inline(__always) public func bind(_ v: Int?, at column: Int32) throws { try statement.bind(v, at: base + column) }
    @inline(__always) public func bind(_ v: String, at column: Int32) throws { try statement.bind(v, at: base + column) }
    @inline(__always) public func bind(_ v: Bool, at column: Int32) throws { try statement.bind(v ? 1 : 0, at: base + column) }
}

/// Rows counted by an SQL function as a query passes them (`SQLiteDatabase.tally`).
public final class RowTally {
    /// Counted through a pointer of its own: a class property costs an
    /// exclusivity check on every row SQLite calls the function for.
    fileprivate let counter = UnsafeMutablePointer<Int>.allocate(capacity: 1)
    public var count: Int { counter.pointee }
    /// Set by whoever puts the function in a query whose rows it should count.
    public var counting = false

    init() { counter.initialize(to: 0) }
    deinit { counter.deallocate() }
}

extension SQLiteDatabase {
    /// Registers `name(x)` on this connection: counts the rows on which it is
    /// called with a true x, and is always true itself, so `name(...) AND ...`
    /// in a WHERE counts, in the same pass, rows a query otherwise filters out
    /// (a second scan of a national table was a tenth of a diff).
    public func tally(named name: String) throws -> RowTally {
        let tally = RowTally()
        let rc = sqlite3_create_function_v2(handle, name, 1, SQLITE_UTF8, Unmanaged.passRetained(tally).toOpaque(), { context, count, values in
            if count == 1, let value = values?[0], sqlite3_value_int64(value) != 0 {
                Unmanaged<RowTally>.fromOpaque(sqlite3_user_data(context)!)._withUnsafeGuaranteedRef { $0.counter.pointee += 1 }
            }
            sqlite3_result_int(context, 1)
        }, nil, nil, { Unmanaged<RowTally>.fromOpaque($0!).release() })
        guard rc == SQLITE_OK else { throw SQLiteError(path: path, code: rc, message: "cannot register \(name): \(String(cString: sqlite3_errmsg(handle)))") }
        return tally
    }
}
