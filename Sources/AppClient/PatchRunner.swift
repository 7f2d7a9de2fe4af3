import BundleDiff
import CSQLite
import StationIO
import Transfer
import StationModel

/// Runs a published patch on the copy of the user's database as the Android
/// client does (AndroidPatchRunner's statements: lines joined until the count
/// of ' is even, all in one transaction), but only what a patch may do.
///
/// SQLite's own parser says what each statement does: while a statement is
/// prepared, an authorizer is told every table it would read or write and
/// everything else it would do. It allows only
/// - INSERT, UPDATE and DELETE on the bundle's tables, and the reads they make;
/// - CREATE TABLE of a bundle table (PatchWriter creates renumbered_stations
///   when an older bundle lacks it);
/// - PRAGMA user_version = N.
/// Anything else (the user's completions, another table, ATTACH, DROP, a
/// transaction statement, any other PRAGMA) refuses the statement before it
/// runs, and with it the patch; the caller then downloads the full database.
enum PatchRunner {
    /// The tables a patch may change: the bundle's, as PatchWriter writes them.
    static let bundleTables = Set(BundleSchema.tables.map(\.name) + [BundleSchema.renumberedStations.name])

    /// Applies `sql` to `db` in one transaction; `file` is how messages name the patch.
    static func apply(sql: String, to db: SQLiteDatabase, file: String) throws {
        let statements = try AndroidPatchRunner.statements(in: sql, file: file)
        try db.execute("BEGIN EXCLUSIVE")
        do {
            try runChecked(statements, on: db, file: file)
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Runs the statements with the authorizer in place, and removes it after.
    private static func runChecked(_ statements: [AndroidPatchRunner.Statement], on db: SQLiteDatabase, file: String) throws {
        let authorizer = PatchAuthorizer()
        sqlite3_set_authorizer(db.handle, { context, action, first, second, database, _ in
            let authorizer = Unmanaged<PatchAuthorizer>.fromOpaque(context!).takeUnretainedValue()
            return authorizer.decide(action, text(first), text(second), text(database))
        }, Unmanaged.passUnretained(authorizer).toOpaque())
        defer { sqlite3_set_authorizer(db.handle, nil, nil) }
        try withExtendedLifetime(authorizer) {
            for statement in statements {
                try run(statement, on: db, file: file, authorizer: authorizer)
            }
        }
    }

    private static func run(_ statement: AndroidPatchRunner.Statement, on db: SQLiteDatabase, file: String,
                            authorizer: PatchAuthorizer) throws {
        authorizer.refusal = nil
        var prepared: OpaquePointer?
        var rest = ""
        let rc = statement.text.withCString { start -> Int32 in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(db.handle, start, -1, &prepared, &tail)
            if let tail { rest = String(cString: tail) }
            return rc
        }
        defer { sqlite3_finalize(prepared) }

        func failure(_ problem: String) -> TransferError {
            if let refusal = authorizer.refusal {
                return .corrupt(what: file, reason: "line \(statement.line): refused: \(refusal); a patch may only change the bundle's tables"
                                + " and set PRAGMA user_version (in: \(shown(statement.text)))")
            }
            return .corrupt(what: file, reason: "line \(statement.line): \(problem) (in: \(shown(statement.text)))")
        }
        guard rc == SQLITE_OK else { throw failure(String(cString: sqlite3_errmsg(db.handle))) }
        guard prepared != nil else { throw failure("no statement (a blank or comment-only line)") }
        guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else {
            throw failure("more than one statement on one line; the Android client runs only the first")
        }
        while true {
            let step = sqlite3_step(prepared)
            if step == SQLITE_DONE { return }
            if step != SQLITE_ROW { throw failure(String(cString: sqlite3_errmsg(db.handle))) }
        }
    }
}

private func text(_ pointer: UnsafePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// SQLite's authorizer for one patch: says yes or no to each thing a statement
/// would do, and remembers the first thing it refused.
final class PatchAuthorizer {
    var refusal: String?

    func decide(_ action: Int32, _ first: String?, _ second: String?, _ database: String?) -> Int32 {
        guard let why = Self.forbidden(action, first, second, database) else { return SQLITE_OK }
        if refusal == nil { refusal = why }
        return SQLITE_DENY
    }

    /// Why a patch may not do `action`, or nil when it may. What `first` and
    /// `second` hold depends on the action (sqlite.org/c3ref/c_alter_table.html):
    /// a table and a column, an index and its table, a pragma and its value.
    static func forbidden(_ action: Int32, _ first: String?, _ second: String?, _ database: String?) -> String? {
        let object = first ?? ""
        let inBundle = database == "main" && PatchRunner.bundleTables.contains(object.lowercased())
        // Creating or dropping a table or an index reads and writes its row in
        // sqlite_master (the DROP itself is then refused below); SQLite itself
        // refuses a statement that writes sqlite_master directly.
        let isSchema = object == "sqlite_master"
        switch action {
        case SQLITE_SELECT, SQLITE_FUNCTION:
            // What a query reads is checked table by table (SQLITE_READ); char() spells line breaks.
            return nil
        case SQLITE_READ:
            return inBundle || isSchema ? nil : "reads \(object)"
        case SQLITE_INSERT:
            return inBundle || isSchema ? nil : "INSERT INTO \(object)"
        case SQLITE_UPDATE:
            return inBundle || isSchema ? nil : "UPDATE \(object)"
        case SQLITE_DELETE:
            return inBundle || isSchema ? nil : "DELETE FROM \(object)"
        case SQLITE_CREATE_TABLE:
            return inBundle ? nil : "CREATE TABLE \(object)"
        case SQLITE_CREATE_INDEX:
            // Only the index SQLite makes for a bundle table's own key; PatchWriter makes no others.
            let table = second ?? ""
            let ownKey = object.hasPrefix("sqlite_autoindex_") && database == "main" && PatchRunner.bundleTables.contains(table.lowercased())
            return ownKey ? nil : "CREATE INDEX \(object) ON \(table)"
        case SQLITE_PRAGMA:
            if object.lowercased() == "user_version", second != nil { return nil }
            return "PRAGMA \(object)" + (second.map { " = \(shown($0))" } ?? "")
        case SQLITE_TRANSACTION:
            return "a transaction statement (\(object))"
        default:
            let name = actionNames[action] ?? "SQLite action \(action)"
            return ([name] + [first, second].compactMap { $0 }).joined(separator: " ")
        }
    }

    static let actionNames: [Int32: String] = [
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
        SQLITE_RECURSIVE: "a recursive query",
    ]
}
