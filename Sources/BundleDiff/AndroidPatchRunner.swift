import StationIO

/// Runs a patch exactly as the Android client does, so tests see what users' phones
/// see, and the reference client runs a downloaded one the same way: the statements
/// of an `SQLScript` (lines joined until the count of `'` is even), all inside one
/// exclusive transaction (as Android's beginTransaction), everything rolled back on
/// any error.
///
/// It is stricter than the phone where the phone would silently do the wrong thing:
/// a blank line, a comment-only line, or a second statement after the first `;` on a
/// line (Android's execSQL ignores it) are errors here. With an authorizer, a
/// statement that would do anything the authorizer refuses fails before it runs.
public enum AndroidPatchRunner {
    /// Applies `sql` to an open database, in one transaction; `file` is how messages
    /// name the patch. Throws an `SQLScript.Failure` for the statement that failed.
    public static func apply(sql: String, to db: SQLiteDatabase, file: String = "patch",
                             authorizer: SQLiteAuthorizer? = nil) throws {
        let script = try SQLScript(sql, file: file)
        try db.transaction(.exclusive) { try db.run(script, authorizer: authorizer) }
    }

    /// Applies `sql` to the database file at `path`.
    public static func apply(sql: String, toFileAt path: String, file: String = "patch") throws {
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        defer { db.close() }
        try apply(sql: sql, to: db, file: file)
    }
}
