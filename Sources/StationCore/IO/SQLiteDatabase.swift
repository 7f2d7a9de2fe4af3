import CSQLite
import Glibc

// The package's one SQLite layer, split by concept as GRDB (7.10) splits its own:
// the connection and its authorizer (here), the statement, values and rows, the
// error and its ResultCode. Errors name the file and the statement; nothing else
// imports CSQLite. Not GRDB itself: it installs its own authorizer on every
// connection to track what statements touch, so a patch's authorizer would have to
// reach around it through the raw handle; and its 70,000 lines added about 75% to the
// CPU time of a clean build, debug or release (measured when this layer was written).

/// One connection, used by one thread at a time; no C handle leaves StationIO.
package final class SQLiteDatabase {
    package let path: String
    private var handle: OpaquePointer?
    /// The authorizer `authorizing` installed, while its body runs.
    private var authorizerBox: AuthorizerBox?

    package enum Mode: Sendable {
        case readOnly, readWrite, create
        /// A connection of its own in memory, to which files are attached read-only (`attachReadOnly`).
        case memoryForReading
    }

    /// An existing `path` must be a regular file (Files.openRegularFile's refusal, before
    /// SQLite opens it): a FIFO would block the open, a device never end. A regular file is
    /// not opened here: closing a descriptor of it would drop every POSIX lock this process
    /// holds on it, those of SQLite's other connections to it among them.
    package init(path: String, mode: Mode = .readOnly) throws {
        self.path = path
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG { Glibc.close(try Files.openRegularFile(path, limit: Int.max).fd) }
        let flags: Int32 = switch mode {
        case .readOnly: SQLITE_OPEN_READONLY
        case .readWrite: SQLITE_OPEN_READWRITE
        case .create: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .memoryForReading: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI | SQLITE_OPEN_MEMORY
        }
        let rc = sqlite3_open_v2(path, &handle, flags, nil)
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }  // deinit closes the handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// Attaches the database file at `path` as `schema`, read-only (a `mode=ro` URI, which a
    /// `.memoryForReading` connection understands): a published bundle is never opened for
    /// writing, so a journal left beside it can never be rolled back into it.
    package func attachReadOnly(_ path: String, as schema: String) throws {
        // A URI's path: '%', '?' and '#' would end or escape it.
        var uri = "file:"
        for c in path.unicodeScalars {
            switch c {
            case "%": uri += "%25"
            case "?": uri += "%3f"
            case "#": uri += "%23"
            default: uri.unicodeScalars.append(c)
            }
        }
        try execute("ATTACH DATABASE ? AS \(schema)", [.text(uri + "?mode=ro")])
    }

    package func close() { if let h = handle { sqlite3_close_v2(h); handle = nil } }

    /// The error of `rc`, naming the statement, cut to a length a message can show.
    func error(_ rc: Int32, sql: String?, message: String? = nil) -> SQLiteError {
        SQLiteError(path: path, code: ResultCode(rawValue: rc), message: message ?? handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open",
                    sql: sql.map { shown(String($0.drop(while: \.isWhitespace)), limit: 160) }, refusal: authorizerBox?.refusal)
    }

    /// Prepares the statement that starts at `sql` and points `tail` past its end;
    /// nil when there is none before that end (blanks, a comment).
    private func prepare(at sql: UnsafePointer<CChar>, tail: inout UnsafePointer<CChar>?) throws -> SQLiteStatement? {
        authorizerBox?.refusal = nil
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, &tail)
        guard rc == SQLITE_OK else { throw error(rc, sql: String(cString: sql)) }
        return statement.map { SQLiteStatement(db: self, statement: $0) }
    }

    /// The first statement of `sql`, and the text after it, which SQLite's parser
    /// alone can tell apart (a `;` may be inside a literal); nil for no statement.
    package func prepareFirst(_ sql: String) throws -> (statement: SQLiteStatement?, rest: String) {
        try sql.withCString { start in
            var tail: UnsafePointer<CChar>?
            let statement = try prepare(at: start, tail: &tail)
            return (statement, tail.map { String(cString: $0) } ?? "")
        }
    }

    package func prepare(_ sql: String) throws -> SQLiteStatement {
        guard let statement = try prepareFirst(sql).statement else { throw error(SQLITE_MISUSE, sql: sql, message: "no statement") }
        return statement
    }

    /// Runs each statement of `sql` to its end, in order, each bound to the next of
    /// `bindings` (a file path, say, which a literal would have to escape). Too few
    /// values stop the statement that lacks them before it runs; too many, the call
    /// after the last statement.
    package func execute(_ sql: String, _ bindings: [SQLValue] = []) throws {
        var unbound = bindings[...]
        try sql.withCString { start in
            var next: UnsafePointer<CChar>? = start
            while let at = next, at.pointee != 0 {
                guard let statement = try prepare(at: at, tail: &next) else { continue }
                let count = statement.parameterCount
                guard unbound.count >= count else { throw error(SQLITE_RANGE, sql: statement.sql, message: "\(count) parameters, \(unbound.count) values left") }
                try statement.bind(Array(unbound.prefix(count)))
                unbound = unbound.dropFirst(count)
                while try statement.step() {}
            }
        }
        guard unbound.isEmpty else { throw error(SQLITE_RANGE, sql: sql, message: "\(unbound.count) values more than parameters") }
    }

    /// Every row of a query.
    package func query(_ sql: String, _ bindings: [SQLValue] = []) throws -> [[SQLValue]] { try rows(sql, bindings).map(\.values) }

    /// Every row of a query, each readable by column name.
    package func rows(_ sql: String, _ bindings: [SQLValue] = []) throws -> [SQLiteRow] {
        let statement = try prepare(sql)
        try statement.bind(bindings)
        let columns = statement.columnNames
        var rows: [SQLiteRow] = []
        while try statement.step() { rows.append(SQLiteRow(columns: columns, values: statement.row())) }
        return rows
    }

    package func scalarInt(_ sql: String, _ bindings: [SQLValue] = []) throws -> Int? {
        try query(sql, bindings).first?.first?.intValue
    }

    /// How a transaction takes its lock (sqlite.org/lang_transaction.html): deferred
    /// at the first read or write, immediate takes the write lock at once, exclusive
    /// keeps readers of other connections out too (as Android's beginTransaction).
    package enum TransactionKind: String, Sendable {
        case deferred = "DEFERRED", immediate = "IMMEDIATE", exclusive = "EXCLUSIVE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    package func transaction<T>(_ kind: TransactionKind = .deferred, _ body: () throws -> T) throws -> T {
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

    /// Runs `body` with `authorizer` judging what each statement prepared meanwhile
    /// would do: a refusal fails the prepare before anything runs, and the error's
    /// `refusal` says why. Without an authorizer, runs `body` as it is.
    package func authorizing<T>(_ authorizer: SQLiteAuthorizer?, _ body: () throws -> T) throws -> T {
        guard let authorizer else { return try body() }
        let box = AuthorizerBox(authorizer)
        sqlite3_set_authorizer(handle, { context, code, first, second, database, _ in
            let box = Unmanaged<AuthorizerBox>.fromOpaque(context!).takeUnretainedValue()
            let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
            let action = SQLiteAction(code: code, text(first), text(second), database: text(database))
            guard let why = box.authorizer(action) else { return SQLITE_OK }
            if box.refusal == nil { box.refusal = why }
            return SQLITE_DENY
        }, Unmanaged.passUnretained(box).toOpaque())
        authorizerBox = box
        defer { sqlite3_set_authorizer(handle, nil, nil); authorizerBox = nil }
        return try body()
    }

    /// While another connection holds a lock this one needs, retry for up to `milliseconds`
    /// before failing with SQLITE_BUSY (0: fail at once, SQLite's default).
    package func waitWhileBusy(milliseconds: Int) {
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    /// Runs `body` with every statement of this connection bounded to `steps` steps of
    /// SQLite's virtual machine in all: past them, the statement running stops with
    /// SQLITE_INTERRUPT (`isInterrupted`), as if it had failed. SQLite has no other bound on
    /// what one statement may cost: a join of a table with itself three times ran for hours.
    package func limitingWork<T>(to steps: Int, _ body: () throws -> T) throws -> T {
        let budget = WorkBudget(steps)
        sqlite3_progress_handler(handle, WorkBudget.interval, { context in
            Unmanaged<WorkBudget>.fromOpaque(context!).takeUnretainedValue().spend()
        }, Unmanaged.passUnretained(budget).toOpaque())
        defer { sqlite3_progress_handler(handle, 0, nil, nil) }
        return try withExtendedLifetime(budget) { try body() }
    }

    package var userVersion: Int { get throws { try scalarInt("PRAGMA user_version") ?? 0 } }

    /// Whether `schema` (main, or an attached database) has the table.
    package func tableExists(_ name: String, schema: String = "main") throws -> Bool {
        try scalarInt("SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]) == 1
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Keeps this connection from growing the file past `bytes` (PRAGMA max_page_count;
    /// a file already larger keeps its size) or making any one value longer: the write
    /// that would fails with `isFull`, instead of SQLite filling the disk or memory first.
    package func limitSize(toBytes bytes: Int) throws {
        let pageSize = try scalarInt("PRAGMA page_size") ?? 4096
        try execute("PRAGMA max_page_count = \(max(1, bytes / pageSize))")
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: max(1, bytes)))
    }
}

/// Something a statement would do, as SQLite's authorizer is told it while the
/// statement is prepared (sqlite.org/c3ref/c_alter_table.html). `database` is
/// "main", "temp" or an attached name.
package enum SQLiteAction: Hashable, Sendable, CustomStringConvertible {
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

    package var description: String {
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
        SQLITE_CREATE_TEMP_INDEX: "CREATE TEMP INDEX", SQLITE_CREATE_TEMP_TABLE: "CREATE TEMP TABLE", SQLITE_CREATE_TEMP_TRIGGER: "CREATE TEMP TRIGGER",
        SQLITE_CREATE_TEMP_VIEW: "CREATE TEMP VIEW", SQLITE_CREATE_TRIGGER: "CREATE TRIGGER", SQLITE_CREATE_VIEW: "CREATE VIEW",
        SQLITE_CREATE_VTABLE: "CREATE VIRTUAL TABLE", SQLITE_DROP_INDEX: "DROP INDEX", SQLITE_DROP_TABLE: "DROP TABLE", SQLITE_DROP_TRIGGER: "DROP TRIGGER",
        SQLITE_DROP_VIEW: "DROP VIEW", SQLITE_DROP_VTABLE: "DROP VIRTUAL TABLE", SQLITE_DROP_TEMP_INDEX: "DROP TEMP INDEX",
        SQLITE_DROP_TEMP_TABLE: "DROP TEMP TABLE", SQLITE_DROP_TEMP_TRIGGER: "DROP TEMP TRIGGER", SQLITE_DROP_TEMP_VIEW: "DROP TEMP VIEW",
        SQLITE_ALTER_TABLE: "ALTER TABLE", SQLITE_ATTACH: "ATTACH", SQLITE_DETACH: "DETACH", SQLITE_REINDEX: "REINDEX", SQLITE_ANALYZE: "ANALYZE",
        SQLITE_SAVEPOINT: "SAVEPOINT", SQLITE_RECURSIVE: "a recursive query", SQLITE_COPY: "COPY",
    ]
}

/// Decides, for each thing a statement would do, whether it may: why `action` is
/// refused, or nil when it is allowed. SQLite's own parser reports every table and
/// column read or written, and a refusal makes the statement fail to prepare, before it runs.
package typealias SQLiteAuthorizer = @Sendable (_ action: SQLiteAction) -> String?

/// What the C callback reaches through its context pointer.
private final class AuthorizerBox {
    let authorizer: SQLiteAuthorizer
    /// The first thing refused in the statement being prepared: the reason its prepare failed.
    var refusal: String?
    init(_ authorizer: @escaping SQLiteAuthorizer) { self.authorizer = authorizer }
}

/// What `limitingWork` has left to spend, counted by SQLite's progress handler.
private final class WorkBudget {
    /// The steps between two calls of the handler.
    static let interval: Int32 = 10_000
    var left: Int
    init(_ steps: Int) { left = steps }
    /// Nonzero stops the statement.
    func spend() -> Int32 {
        left -= Int(Self.interval)
        return left < 0 ? 1 : 0
    }
}
