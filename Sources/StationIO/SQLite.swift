import CSQLite

// A small wrapper over SQLite's C API: enough for bundles, diffs and patches,
// with errors that name the database file.

/// SQLite copies bound text and blobs at once (SQLITE_TRANSIENT).
private var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

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
        case .blob(let b): return "x'" + hex(b) + "'"
        }
    }

    public var intValue: Int? {
        switch self {
        case .integer(let v): return Int(v)
        case .real(let v): return Int(exactly: v.rounded(.towardZero))
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

    /// Whether SQL's IS would call the two equal: NULL IS NULL, 5 IS 5.0, text and blobs by bytes.
    public func isSame(as other: SQLValue) -> Bool {
        switch (self, other) {
        case (.integer(let a), .real(let b)): return Double(a) == b
        case (.real(let a), .integer(let b)): return a == Double(b)
        default: return self == other
        }
    }

    /// The value as an SQL literal on one line: quotes doubled, and CR and LF
    /// spelled with char(), because the Android client splits statements at line ends.
    public var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return v.isFinite ? "\(v)" : "NULL"
        case .blob(let b): return "X'" + hex(b) + "'"
        case .text(let s):
            var parts: [String] = []
            var current = ""
            for scalar in s.unicodeScalars {
                if scalar == "\n" || scalar == "\r" {
                    parts.append(Self.quoted(current))
                    parts.append(scalar == "\n" ? "char(10)" : "char(13)")
                    current = ""
                } else {
                    current.unicodeScalars.append(scalar)
                }
            }
            if parts.isEmpty { return Self.quoted(current) }
            parts.append(Self.quoted(current))
            return "(" + parts.joined(separator: "||") + ")"
        }
    }

    private static func quoted(_ s: String) -> String {
        var out = "'"
        for scalar in s.unicodeScalars {
            if scalar == "'" { out += "''" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "'"
    }
}

private func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

public struct SQLiteError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var code: Int32
    public var message: String
    public var description: String { "\(path): SQLite error \(code): \(message)" }

    /// The file is damaged or not SQLite at all (SQLITE_CORRUPT, SQLITE_NOTADB).
    public var isDamage: Bool { code & 0xFF == SQLITE_CORRUPT || code & 0xFF == SQLITE_NOTADB }
}

/// One connection; used by one thread at a time.
public final class SQLiteDatabase {
    public let path: String
    public private(set) var handle: OpaquePointer?

    public enum Mode: Sendable { case readOnly, readWrite, create }

    public init(path: String, mode: Mode = .readOnly) throws {
        self.path = path
        let flags: Int32
        switch mode {
        case .readOnly: flags = SQLITE_OPEN_READONLY
        case .readWrite: flags = SQLITE_OPEN_READWRITE
        case .create: flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        if rc != SQLITE_OK {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(db)
            throw SQLiteError(path: path, code: rc, message: message)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit { close() }

    public func close() {
        if let h = handle { sqlite3_close_v2(h); handle = nil }
    }

    func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(path: path, code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(path: path, code: rc, message: text)
        }
    }

    public func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        if rc != SQLITE_OK { throw error(rc) }
        return SQLiteStatement(db: self, statement: statement)
    }

    /// Every row of a query.
    public func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        var rows: [[SQLValue]] = []
        while try statement.step() { rows.append(statement.row()) }
        return rows
    }

    public func scalarInt(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int? {
        try query(sql, bindings).first?.first?.intValue
    }

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    public var userVersion: Int {
        get throws { try scalarInt("PRAGMA user_version") ?? 0 }
    }

    /// Whether `schema` (main, or an attached database) has the table.
    public func tableExists(_ name: String, schema: String = "main") throws -> Bool {
        try scalarInt("SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) == 1
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }
}

public final class SQLiteStatement {
    let db: SQLiteDatabase
    let statement: OpaquePointer?

    init(db: SQLiteDatabase, statement: OpaquePointer?) { self.db = db; self.statement = statement }
    deinit { sqlite3_finalize(statement) }

    public func bind(_ values: [SQLValue]) throws {
        for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) }
    }

    public func bind(_ value: SQLValue, at index: Int32) throws {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(statement, index)
        case .integer(let v): rc = sqlite3_bind_int64(statement, index, v)
        case .real(let v): rc = sqlite3_bind_double(statement, index, v)
        case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, transient)
        case .blob(let b): rc = b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32(b.count), transient) }
        }
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: Int, at index: Int32) throws {
        let rc = sqlite3_bind_int64(statement, index, Int64(v))
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: Int?, at index: Int32) throws {
        if let v { try bind(v, at: index) } else { try bind(.null, at: index) }
    }

    public func bind(_ v: String, at index: Int32) throws {
        let rc = sqlite3_bind_text(statement, index, v, -1, transient)
        if rc != SQLITE_OK { throw db.error(rc) }
    }

    public func bind(_ v: Bool, at index: Int32) throws { try bind(v ? 1 : 0, at: index) }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw db.error(rc)
    }

    /// Ready to run again; bindings are kept until bound anew.
    public func reset() {
        sqlite3_reset(statement)
    }

    /// Binds, runs to completion and resets: an INSERT, UPDATE or DELETE in a loop.
    public func run(_ values: [SQLValue]) throws {
        try bind(values)
        try step()
        reset()
    }

    public var columnCount: Int { Int(sqlite3_column_count(statement)) }

    public func int(_ i: Int) -> Int { Int(sqlite3_column_int64(statement, Int32(i))) }

    public func text(_ i: Int) -> String {
        guard let p = sqlite3_column_text(statement, Int32(i)) else { return "" }
        let n = Int(sqlite3_column_bytes(statement, Int32(i)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    public func value(_ i: Int) -> SQLValue {
        let c = Int32(i)
        switch sqlite3_column_type(statement, c) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, c))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, c))
        case SQLITE_TEXT: return .text(text(i))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(statement, c))
            guard n > 0, let p = sqlite3_column_blob(statement, c) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }

    public func row() -> [SQLValue] { (0..<columnCount).map(value) }
}
