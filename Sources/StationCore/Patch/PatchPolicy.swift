/// What a downloaded patch may do, judged by SQLite's own parser: while each
/// statement is prepared, the authorizer is told every table it would read or
/// write and everything else it would do. It allows only
/// - INSERT, UPDATE and DELETE on the bundle's tables, and the reads they make;
/// - CREATE TABLE of a bundle table (PatchWriter creates renumbered_stations
///   when an older bundle lacks it);
/// - PRAGMA user_version = N.
/// Anything else (the user's completions, another table, ATTACH, DROP, a
/// transaction statement, any other PRAGMA) refuses the statement before it
/// runs, and with it the patch; the caller then downloads the full database.
package enum PatchPolicy {
    /// The tables a patch may change: the bundle's, as PatchWriter writes them.
    static let bundleTables = Set(BundleSchema.tables.map(\.name))

    package static let authorizer: SQLiteAuthorizer = forbidden

    /// Why a patch may not do `action`, or nil when it may.
    static func forbidden(_ action: SQLiteAction) -> String? {
        func inBundle(_ table: String, _ database: String?) -> Bool {
            database == "main" && bundleTables.contains(table.lowercased())
        }
        // Creating a table reads and writes its row in sqlite_master; SQLite itself
        // refuses a statement that writes sqlite_master directly.
        func allowed(_ table: String, _ database: String?) -> Bool { inBundle(table, database) || table == "sqlite_master" }
        switch action {
        case .select, .function:
            // What a query reads is checked table by table (.read); char() spells line breaks.
            return nil
        case .read(let table, _, let database), .insert(let table, let database),
             .update(let table, _, let database), .delete(let table, let database):
            return allowed(table, database) ? nil : action.description
        case .createTable(let table, let database):
            return inBundle(table, database) ? nil : action.description
        case .createIndex(let index, let table, let database):
            // Only the index SQLite makes for a bundle table's own key; PatchWriter makes no others.
            return index.hasPrefix("sqlite_autoindex_") && inBundle(table, database) ? nil : action.description
        case .pragma(let name, let value):
            return name.lowercased() == "user_version" && value != nil ? nil : action.description
        case .transaction, .other:
            return action.description
        }
    }
}
