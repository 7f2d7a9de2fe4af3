import StationIO
import StationModel

/// What a downloaded database must be before anything of the user's goes into it:
/// a bundle as BundleSchema defines it and nothing more. SQLite runs what a
/// database file holds, not only what it is asked: a trigger fires on the
/// client's own writes (copying the user's records in), a view or a table of the
/// client's name (completions) stands in for the client's, so a file whose
/// sha256 matches a hostile or broken publication must not be trusted as data.
enum BundleCheck {
    /// The schema objects (tables and indexes, and the index SQLite makes for
    /// renumbered_stations' key), as SQLite stores them for BundleSchema's statements.
    static func reference() throws -> [String: SQLiteRow] {
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        defer { db.close() }
        // renumbered_stations once, whether createStatements lists it or not.
        let renumbered = BundleSchema.renumberedStations.createSQL
        let statements = BundleSchema.createStatements.filter { $0 != renumbered } + [renumbered]
        for sql in statements { try db.execute(sql) }
        return try objects(in: db)
    }

    /// What sqlite_master lists, by name (tables, indexes, views and triggers share one namespace).
    static func objects(in db: SQLiteDatabase) throws -> [String: SQLiteRow] {
        var out: [String: SQLiteRow] = [:]
        for row in try db.rows("SELECT type, name, tbl_name, sql FROM sqlite_master") {
            out[row["name"].textValue ?? ""] = row
        }
        return out
    }

    /// A bundle from before renumbered_stations may lack it (the patch path creates it).
    static let optional: Set<String> = [BundleSchema.renumberedStations.name, "sqlite_autoindex_renumbered_stations_1"]

    /// Why the database at `path` is not a bundle, or nil when it is: every object
    /// must be one of BundleSchema's, spelled as SQLite stores BundleSchema's own
    /// statements (columns, types, constraints, index columns), and every one but
    /// renumbered_stations must be there. A file SQLite cannot read is not one either.
    static func schemaProblem(ofBundleAt path: String) throws -> String? {
        do {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            defer { db.close() }
            return try schemaProblem(in: db)
        } catch let error as SQLiteError {
            return "not a readable SQLite database (\(error.message))"
        }
    }

    /// The same of an open database, where the tables named in `userTables` and
    /// their indexes are the user's and not judged: a patched copy of the client's
    /// database, which must come out of the patch the bundle plus the user's records
    /// (a trigger a client before this check took in with a download is refused
    /// here, and the full download replaces the database).
    static func schemaProblem(in db: SQLiteDatabase, userTables: Set<String> = []) throws -> String? {
        let want = try reference()
        var have = try objects(in: db)
        have = have.filter { name, object in
            let kind = object["type"].textValue ?? ""
            return !((kind == "table" || kind == "index") && userTables.contains(object["tbl_name"].textValue ?? ""))
        }
        for name in have.keys.sorted() {
            let object = have[name]!
            let kind = object["type"].textValue ?? "object"
            guard let expected = want[name] else {
                return "holds \(kind) \(shown(name)), which is not part of the bundle (bundle.md: its four tables, their indexes and renumbered_stations only)"
            }
            if object != expected {
                return "\(kind) \(shown(name)) is not as bundle.md defines it: \(shown(object["sql"].textValue ?? "no SQL"))"
            }
        }
        for name in want.keys.sorted() where have[name] == nil && !optional.contains(name) {
            return "lacks \(want[name]!["type"].textValue ?? "") \(name)"
        }
        return nil
    }
}
