import CSQLite
import Glibc

// The package's one SQLite layer: enough for bundles, diffs and patches, with
// errors that name the database file. Nothing else imports CSQLite.
//
// Not GRDB (7.10, the model for its API: transaction kinds, rows by column name):
// GRDB installs its own authorizer on every connection to track what statements
// touch, so a patch's authorizer would have to reach around it through the raw
// handle; it has no Android statement splitting; and its 70,000 lines added
// about 75% to the CPU time of a clean build, debug or release (measured when
// this layer was written).

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

    /// A write went past `limitSize(toBytes:)` (SQLITE_FULL, SQLITE_TOOBIG), or the disk is full.
    public var isFull: Bool { code & 0xFF == SQLITE_FULL || code & 0xFF == SQLITE_TOOBIG }
}

/// One connection; used by one thread at a time. The rest of the package reaches
/// SQLite only through it, so the C handle never leaves this file.
public final class SQLiteDatabase {
    public let path: String
    private var handle: OpaquePointer?

    public enum Mode: Sendable { case readOnly, readWrite, create }

    /// An existing `path` must be a regular file (Files.openRegularFile's check, before
    /// SQLite opens it): a FIFO would block the open, a device never end.
    public init(path: String, mode: Mode = .readOnly) throws {
        self.path = path
        var info = stat()
        if stat(path, &info) == 0 { Glibc.close(try Files.openRegularFile(path, limit: Int.max).fd) }
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

    /// Every row of a query, each readable by column name.
    public func rows(_ sql: String, _ bindings: [SQLValue] = []) throws -> [SQLiteRow] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        let columns = statement.columnNames
        var rows: [SQLiteRow] = []
        while try statement.step() { rows.append(SQLiteRow(columns: columns, values: statement.row())) }
        return rows
    }

    public func scalarInt(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int? {
        try query(sql, bindings).first?.first?.intValue
    }

    /// How a transaction takes its lock (sqlite.org/lang_transaction.html): deferred
    /// at the first read or write, immediate takes the write lock at once, exclusive
    /// keeps readers of other connections out too (as Android's beginTransaction).
    public enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED", immediate = "IMMEDIATE", exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(kind.rawValue)")
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

    /// Keeps this connection from growing the file past `bytes` (PRAGMA max_page_count;
    /// a file already larger keeps its size) or making any one value longer: the write
    /// that would fails with `isFull`, instead of SQLite filling the disk or memory first.
    public func limitSize(toBytes bytes: Int) throws {
        let pageSize = try scalarInt("PRAGMA page_size") ?? 4096
        try execute("PRAGMA max_page_count = \(max(1, bytes / pageSize))")
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: max(1, bytes)))
    }

    /// Runs each statement of `script` to its end, in order, with `authorizer` judging
    /// what each would do while it is prepared. Opens no transaction: wrap the call in
    /// `transaction` to have all or nothing.
    public func run(_ script: SQLScript, authorizer: SQLiteAuthorizer? = nil) throws {
        guard let authorizer else {
            for statement in script.statements { try run(statement, of: script, refusal: { nil }) }
            return
        }
        let box = AuthorizerBox(authorizer)
        sqlite3_set_authorizer(handle, { context, code, first, second, database, _ in
            let box = Unmanaged<AuthorizerBox>.fromOpaque(context!).takeUnretainedValue()
            let action = SQLiteAction(code: code, text(first), text(second), database: text(database))
            guard let why = box.authorizer.refusal(action) else { return SQLITE_OK }
            if box.refusal == nil { box.refusal = why }
            return SQLITE_DENY
        }, Unmanaged.passUnretained(box).toOpaque())
        defer { sqlite3_set_authorizer(handle, nil, nil) }
        try withExtendedLifetime(box) {
            for statement in script.statements {
                box.refusal = nil
                try run(statement, of: script, refusal: { box.refusal })
            }
        }
    }

    /// One statement of a script: exactly one SQL statement (a second would be
    /// ignored by the Android client, an empty one is a mistake), stepped to its end.
    private func run(_ statement: SQLScript.Statement, of script: SQLScript, refusal: () -> String?) throws {
        func failure(_ problem: String, code: Int32? = nil) -> SQLScript.Failure {
            SQLScript.Failure(location: SourceLocation(file: script.file, line: statement.line), statement: statement.text,
                              problem: problem, refusal: refusal(), code: code)
        }
        var prepared: OpaquePointer?
        var rest = ""
        let rc = statement.text.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(handle, start, -1, &prepared, &tail)
            if let tail { rest = String(cString: tail) }
            return rc
        }
        defer { sqlite3_finalize(prepared) }
        guard rc == SQLITE_OK else { throw failure(String(cString: sqlite3_errmsg(handle)), code: sqlite3_extended_errcode(handle)) }
        guard prepared != nil else { throw failure("no statement (a blank or comment-only line): the client would run an empty statement") }
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw failure("more than one statement on one line; the Android client runs only the first")
        }
        while true {
            let step = sqlite3_step(prepared)
            if step == SQLITE_DONE { return }
            if step != SQLITE_ROW { throw failure(String(cString: sqlite3_errmsg(handle)), code: sqlite3_extended_errcode(handle)) }
        }
    }
}

private func text(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// What the C callback reaches through its context pointer.
private final class AuthorizerBox {
    let authorizer: SQLiteAuthorizer
    /// The first thing refused in the statement being prepared: the reason its prepare failed.
    var refusal: String?
    init(_ authorizer: SQLiteAuthorizer) { self.authorizer = authorizer }
}

/// A row of `SQLiteDatabase.rows`: its values by position or by column name.
public struct SQLiteRow: Hashable, Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public subscript(_ index: Int) -> SQLValue { values[index] }

    /// The value of the column `name`; a name the query does not return is a mistake in the query.
    public subscript(_ name: String) -> SQLValue {
        guard let index = columns.firstIndex(of: name) else { preconditionFailure("no column \(name) in \(columns)") }
        return values[index]
    }
}

/// Something a statement would do, as SQLite's authorizer is told it while the
/// statement is prepared (sqlite.org/c3ref/c_alter_table.html). `database` is
/// "main", "temp" or an attached name.
public enum SQLiteAction: Hashable, Sendable, CustomStringConvertible {
    case select
    case function(String)
    case read(table: String, column: String, database: String?)
    case insert(table: String, database: String?)
    case update(table: String, column: String, database: String?)
    case delete(table: String, database: String?)
    case createTable(String, database: String?)
    case createIndex(String, table: String, database: String?)
    case pragma(String, value: String?)
    case transaction(String)
    /// Everything else (triggers, views, DROP, ALTER, ATTACH, savepoints...), as SQLite names it.
    case other(String)

    init(code: Int32, _ first: String?, _ second: String?, database: String?) {
        let a = first ?? "", b = second ?? ""
        switch code {
        case SQLITE_SELECT: self = .select
        case SQLITE_FUNCTION: self = .function(b)
        case SQLITE_READ: self = .read(table: a, column: b, database: database)
        case SQLITE_INSERT: self = .insert(table: a, database: database)
        case SQLITE_UPDATE: self = .update(table: a, column: b, database: database)
        case SQLITE_DELETE: self = .delete(table: a, database: database)
        case SQLITE_CREATE_TABLE: self = .createTable(a, database: database)
        case SQLITE_CREATE_INDEX: self = .createIndex(a, table: b, database: database)
        case SQLITE_PRAGMA: self = .pragma(a, value: second)
        case SQLITE_TRANSACTION: self = .transaction(a)
        default:
            let name = Self.otherNames[code] ?? "SQLite action \(code)"
            self = .other(([name] + [first, second].compactMap { $0 }).joined(separator: " "))
        }
    }

    public var description: String {
        switch self {
        case .select: return "SELECT"
        case .function(let name): return "the function \(name)"
        case .read(let table, let column, _): return "reads \(table).\(column)"
        case .insert(let table, _): return "INSERT INTO \(table)"
        case .update(let table, let column, _): return "UPDATE \(table) SET \(column)"
        case .delete(let table, _): return "DELETE FROM \(table)"
        case .createTable(let name, _): return "CREATE TABLE \(name)"
        case .createIndex(let name, let table, _): return "CREATE INDEX \(name) ON \(table)"
        case .pragma(let name, let value): return "PRAGMA \(name)" + (value.map { " = \(shown($0))" } ?? "")
        case .transaction(let operation): return "a transaction statement (\(operation))"
        case .other(let text): return text
        }
    }

    private static let otherNames: [Int32: String] = [
        SQLITE_CREATE_TEMP_INDEX: "CREATE TEMP INDEX", SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE",
        SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER", SQLITE_CREATE_TEMP_VIEW: "CREATE TEMP VIEW",
        SQLITE_CREATE_TRIGGER: "CREATE TRIGGER", SQLITE_CREATE_VIEW: "CREATE VIEW",
        SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE",
        SQLITE_DROP_INDEX: "DROP INDEX", SQLITE_DROP_TABLE: "DROP TABLE", SQLITE_DROP_TRIGGER: "DROP TRIGGER",
        SQLITE_DROP_VIEW: "DROP VIEW", SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE",
        SQLITE_DROP_TEMP_INDEX: "DROP TEMP INDEX", SQLITE_DROP_TEMP_TABLE: "DROP TEMP TABLE",
        SQLITE_DROP_TEMP_TRIGGER: "DROP TEMP TRIGGER", SQLITE_DROP_TEMP_VIEW: "DROP TEMP VIEW",
        SQLITE_ALTER_TABLE: "ALTER TABLE", SQLITE_ATTACH: "ATTACH", SQLITE_DETACH: "DETACH",
        SQLITE_REINDEX: "REINDEX", SQLITE_ANALYZE: "ANALYZE", SQLITE_SAVEPOINT: "SAVEPOINT",
        SQLITE_RECURSIVE: "a recursive query", SQLITE_COPY: "COPY",
    ]
}

/// Decides, for each thing a statement would do, whether it may: SQLite's own
/// parser reports every table and column read or written, and a refusal makes
/// the statement fail to prepare, before it runs.
public struct SQLiteAuthorizer: Sendable {
    /// Why `action` is refused, or nil when it is allowed.
    public let refusal: @Sendable (SQLiteAction) -> String?

    public init(refusal: @escaping @Sendable (SQLiteAction) -> String?) { self.refusal = refusal }
}

/// SQL statements in a text, split as the Android client splits a patch (bundle.md,
/// "Incremental patches"): lines as Java's BufferedReader reads them (ending at LF,
/// CR or CRLF) are joined, without the line break, until the text holds an even
/// number of `'`; that text is one statement.
public struct SQLScript: Sendable {
    public struct Statement: Hashable, Sendable {
        /// The line the statement starts on (1-based).
        public var line: Int
        public var text: String
    }

    /// How messages name the text.
    public let file: String
    public let statements: [Statement]

    /// A quote left open at the end is an error: the client would never run that statement.
    public init(_ text: String, file: String = "patch") throws {
        self.file = file
        var result: [Statement] = []
        var buffer = ""
        var bufferLine = 0
        var quotes = 0
        for (index, line) in Self.javaLines(text).enumerated() {
            if buffer.isEmpty && quotes == 0 { bufferLine = index + 1 }
            buffer += line
            quotes += line.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "'") ? 1 : 0) }
            if quotes % 2 == 0 {
                result.append(Statement(line: bufferLine, text: buffer))
                buffer = ""
                quotes = 0
            }
        }
        if quotes % 2 != 0 {
            throw InputError(SourceLocation(file: file, line: bufferLine), "a quoted literal opened here is never closed")
        }
        statements = result
    }

    /// Lines as BufferedReader.readLine gives them: split at LF, CR or CRLF, with no
    /// empty line after a final line break.
    static func javaLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        var previousWasCR = false
        for byte in text.utf8 {
            if byte == 0x0A {
                if previousWasCR { previousWasCR = false; continue }
                lines.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true)
            } else if byte == 0x0D {
                lines.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true)
                previousWasCR = true
                continue
            } else {
                current.append(byte)
            }
            previousWasCR = false
        }
        if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
        return lines
    }

    /// A statement of a script that failed: where, which, and why.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var location: SourceLocation
        public var statement: String
        /// SQLite's message, or why the statement is not one statement.
        public var problem: String
        /// The authorizer's reason, when a refusal is what made the statement fail.
        public var refusal: String?
        /// SQLite's extended result code, when SQLite failed it.
        public var code: Int32?

        /// The statement wrote past `limitSize(toBytes:)`.
        public var isFull: Bool { code.map { $0 & 0xFF == SQLITE_FULL || $0 & 0xFF == SQLITE_TOOBIG } ?? false }

        public var description: String {
            "\(location): \(refusal.map { "refused: \($0)" } ?? problem) in: \(shown(statement))"
        }
    }
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

    /// The result's column names, as the query's AS clauses or SQLite name them.
    public var columnNames: [String] {
        (0..<Int32(columnCount)).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" }
    }

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
