import CSQLite

/// SQLite copies bound text and blobs at once (SQLITE_TRANSIENT).
private var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

/// One prepared statement of a connection, finalized with its last reference.
package final class SQLiteStatement {
    let db: SQLiteDatabase
    let statement: OpaquePointer

    init(db: SQLiteDatabase, statement: OpaquePointer) { self.db = db; self.statement = statement }
    deinit { sqlite3_finalize(statement) }

    /// The statement's text, as its errors name it.
    package var sql: String { String(cString: sqlite3_sql(statement)) }

    private func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw db.error(rc, sql: sql) }
    }

    package func bind(_ values: [SQLValue]) throws { for (i, v) in values.enumerated() { try bind(v, at: Int32(i + 1)) } }

    package func bind(_ value: SQLValue, at index: Int32) throws {
        switch value {
        case .null: try check(sqlite3_bind_null(statement, index))
        case .integer(let v): try check(sqlite3_bind_int64(statement, index, v))
        case .real(let v): try check(sqlite3_bind_double(statement, index, v))
        case .text(let s): try bind(s, at: index)
        case .blob(let b): try check(b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32(b.count), transient) })
        }
    }

    package func bind(_ v: Int, at index: Int32) throws { try check(sqlite3_bind_int64(statement, index, Int64(v))) }

    package func bind(_ v: Int?, at index: Int32) throws { if let v { try bind(v, at: index) } else { try bind(.null, at: index) } }

    package func bind(_ v: String, at index: Int32) throws { try check(sqlite3_bind_text(statement, index, v, -1, transient)) }

    package func bind(_ v: Bool, at index: Int32) throws { try bind(v ? 1 : 0, at: index) }

    /// How many `?` the statement has.
    package var parameterCount: Int { Int(sqlite3_bind_parameter_count(statement)) }

    /// Steps once: true when a row is available, false when done.
    @discardableResult
    package func step() throws -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw db.error(rc, sql: sql)
    }

    /// Ready to run again; bindings are kept until bound anew.
    package func reset() { sqlite3_reset(statement) }

    /// Binds, runs to completion and resets: an INSERT, UPDATE or DELETE in a loop.
    package func run(_ values: [SQLValue]) throws {
        try bind(values)
        try step()
        reset()
    }

    package var columnCount: Int { Int(sqlite3_column_count(statement)) }

    /// The result's column names, as the query's AS clauses or SQLite name them.
    package var columnNames: [String] {
        (0..<Int32(columnCount)).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
    }

    package func int(_ i: Int) -> Int { Int(sqlite3_column_int64(statement, Int32(i))) }

    package func text(_ i: Int) -> String {
        guard let p = sqlite3_column_text(statement, Int32(i)) else { return "" }
        let n = Int(sqlite3_column_bytes(statement, Int32(i)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    package func value(_ i: Int) -> SQLValue {
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

    package func row() -> [SQLValue] { (0..<columnCount).map(value) }
}
