import StationCore

/// What a downloaded database must be before anything of the user's goes into it:
/// a bundle as BundleSchema defines it and nothing more. SQLite runs what a
/// database file holds, not only what it is asked: a trigger fires on the
/// client's own writes (copying the user's records in), a view or a table of the
/// client's name (completions) stands in for the client's, so a file whose
/// sha256 matches a hostile or broken publication must not be trusted as data.
enum BundleCheck {
    /// A bundle from before renumbered_stations may lack it (the patch path creates it).
    static let optional: Set<String> = [BundleSchema.renumberedStations.name, "sqlite_autoindex_renumbered_stations_1"]

    /// Why the database at `path` is not a bundle, or nil when it is (BundleSchema.problems,
    /// renumbered_stations optional). A file SQLite cannot read is not one either.
    static func schemaProblem(ofBundleAt path: String) throws -> String? {
        do {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            defer { db.close() }
            return try schemaProblem(in: db)
        } catch let error as SQLiteError {
            return "not a readable SQLite database (\(error.message))"
        }
    }

    /// The same of an open database, where the objects named in `user` (the user's, as the
    /// client's database held them before a patch) and the keys SQLite made for them are not
    /// judged: a patched copy must come out the bundle plus the user's own.
    static func schemaProblem(in db: SQLiteDatabase, user: Set<String> = []) throws -> String? {
        try BundleSchema.problems(in: db, user: user, optional: optional).problems.first
    }

    /// The objects of a client's database that are the user's: its tables (completions
    /// among them) and views, and the indexes and triggers on them or on the bundle's
    /// tables (an index of the user's on stations(station, yomi)), in the order they were
    /// made. Not the bundle's, nor SQLite's own (sqlite_*, and the indexes it makes for a
    /// table's keys, which come with their table). Only a client's own database is read
    /// so: a download holding anything but the bundle is refused before (schemaProblem),
    /// so an index or trigger on a bundle table here is one the user made.
    static func userObjects(in db: SQLiteDatabase) throws -> [SQLiteRow] {
        let bundle = try BundleSchema.reference()
        return try db.rows("SELECT type, name, tbl_name, sql FROM main.sqlite_master WHERE sql IS NOT NULL ORDER BY rowid").filter {
            bundle[$0["name"].textValue ?? ""] == nil && !($0["name"].textValue ?? "").lowercased().hasPrefix("sqlite_")
        }
    }

    /// Whether `table` is one of the bundle's (renumbered_stations included).
    static func isBundleTable(_ table: String) -> Bool {
        BundleSchema.tables.contains { $0.name.lowercased() == table.lowercased() }
    }

    static func quoted(_ name: String) -> String { "\"" + name.replacing("\"", with: "\"\"") + "\"" }

    /// Replaces the bundle's tables of `db` (the user's database, in the update's transaction)
    /// with those of the bundle attached as `schema` (checked: schemaProblem): each dropped,
    /// and with it the user's indexes on it; made again as the download defines it, with its
    /// indexes, and filled from it; then the user's indexes on them made again as they were.
    /// One that no longer applies to the new version throws, naming it, and the transaction
    /// leaves the database as it was. (The caller keeps the user's triggers off meanwhile.)
    static func replaceBundleTables(in db: SQLiteDatabase, from schema: String) throws {
        let mine = try userObjects(in: db).filter { isBundleTable($0["tbl_name"].textValue ?? "") }
        for table in try db.query("SELECT name FROM main.sqlite_master WHERE type = 'table'").compactMap({ $0[0].textValue }) where isBundleTable(table) {
            try db.execute("DROP TABLE main.\(quoted(table))")
        }
        let objects = try db.rows("SELECT type, name, sql FROM \(schema).sqlite_master WHERE sql IS NOT NULL ORDER BY rowid")
        for object in objects { try db.execute(object["sql"].textValue ?? "") }
        // Into tables made just as the download's, with the same indexes: SQLite copies the rows as they are.
        for object in objects where object["type"].textValue == "table" {
            let name = quoted(object["name"].textValue ?? "")
            try db.execute("INSERT INTO main.\(name) SELECT * FROM \(schema).\(name)")
        }
        for object in mine {
            do {
                try db.execute(object["sql"].textValue ?? "")
            } catch let error as SQLiteError {
                throw StationError.environment("cannot carry the user's \(object["type"].textValue ?? "") \(shown(object["name"].textValue ?? "")) "
                                               + "into the new version (\(error.message)); the local database is left as it was")
            }
        }
    }
}
