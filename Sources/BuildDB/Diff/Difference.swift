import StationCore

// Diff: what changed between two station bundles, and the SQL patch that turns one
// into the other the way the Android client applies it.
//
//   BundleDifference.between(oldPath:newPath:)   per table, rows added, removed and
//                                  changed (column by column), matched by key, each
//                                  kind found by one SQL statement over both files
//   DiffReport                     the difference with names, a summary and guards
//                                  (DiffReport.swift), printed as text, markdown,
//                                  JSON or SQL (DiffFormats.swift)
//   ChangeList, ChangeCauses       each change by name, with its cause (what plan lists)
//   PatchWriter.patch(from:toVersion:)   the line-oriented patch the Android client runs
//                                  (StationCore's Patch runs it, under its PatchPolicy)

package struct ColumnChange: Hashable, Sendable {
    package var column: String
    package var old: SQLValue
    package var new: SQLValue

    package init(column: String, old: SQLValue, new: SQLValue) { self.column = column; self.old = old; self.new = new }
}

/// A row whose key is in both bundles but whose other values differ.
package struct RowChange: Hashable, Sendable {
    package var key: [SQLValue]
    package var old: [SQLValue]
    package var new: [SQLValue]
    /// Only the columns that differ, in schema order.
    package var changes: [ColumnChange]
}

package struct TableDiff: Sendable {
    package var shape: BundleSchema.Table
    /// Whole rows (all columns, schema order), sorted by key.
    package var added: [[SQLValue]] = []
    package var removed: [[SQLValue]] = []
    package var changed: [RowChange] = []
    package var oldCount = 0
    package var newCount = 0
    /// The table exists only in the new bundle (or only in the old one); only
    /// renumbered_stations can be absent.
    package var tableAdded = false
    package var tableRemoved = false

    package var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && !tableAdded && !tableRemoved }
    package var rowChangeCount: Int { added.count + removed.count + changed.count }
}

package struct BundleDifference: Sendable {
    package var oldVersion: Int
    package var newVersion: Int
    /// One entry per BundleSchema.tables, in that order.
    package var tables: [TableDiff]
    /// OLD's stations with enabled = 1 (the summary's share of disabled stations).
    package var oldEnabledStations: Int
    /// OLD's lines and operators with enabled = 1.
    package var oldEnabledLines = 0
    package var oldEnabledOperators = 0

    /// True when the tables' contents are equal: user_version is not content, so
    /// two versions with equal rows are "unchanged".
    package var isEmpty: Bool { tables.allSatisfy(\.isEmpty) }

    package subscript(name: String) -> TableDiff? { tables.first { $0.shape.name == name } }

    /// The difference between two bundle files. Rows are matched by key; a value
    /// that changes storage class but keeps its number (5 -> 5.0) is no change,
    /// as SQL's IS sees it; text is compared byte for byte.
    package static func between(oldPath: String, newPath: String) throws -> BundleDifference {
        try namingDamage(oldPath: oldPath, newPath: newPath) {
            let db = try attach(oldPath: oldPath, newPath: newPath)
            defer { db.close() }
            return try between(attached: db, oldPath: oldPath, newPath: newPath)
        }
    }

    /// On a connection with OLD as the schema `old` (attached as old_bundle) and NEW as `new`
    /// (new_bundle): a client's database is its own connection's main.
    package static func between(attached db: SQLiteDatabase, oldPath: String, newPath: String,
                                old: String = "old_bundle", new: String = "new_bundle") throws -> BundleDifference {
        var tables: [TableDiff] = []
        for shape in BundleSchema.tables {
            tables.append(try difference(shape, in: db, oldPath: oldPath, newPath: newPath, old: old, new: new))
        }
        func enabled(_ table: String) throws -> Int { try db.scalarInt("SELECT count(*) FROM \(old).\(table) WHERE enabled = 1") ?? 0 }
        return BundleDifference(oldVersion: try db.scalarInt("PRAGMA \(old).user_version") ?? 0,
                                newVersion: try db.scalarInt("PRAGMA \(new).user_version") ?? 0,
                                tables: tables, oldEnabledStations: try enabled("stations"),
                                oldEnabledLines: try enabled("lines"), oldEnabledOperators: try enabled("operators"))
    }

    /// One connection with OLD attached as old_bundle and NEW as new_bundle, for
    /// the diff and for the report's name lookups after it.
    static func attach(oldPath: String, newPath: String) throws -> SQLiteDatabase {
        // ATTACH would create a missing file; a missing bundle is an error instead.
        for path in [oldPath, newPath] where !Files.exists(path) {
            throw StationError.environment("cannot read \(path): no such file")
        }
        let db = try SQLiteDatabase(path: ":memory:", mode: .memoryForReading)
        try db.attachReadOnly(oldPath, as: "old_bundle")
        try db.attachReadOnly(newPath, as: "new_bundle")
        // Both bundles are read through and through: mapped, their pages need no read() each.
        try db.execute("PRAGMA old_bundle.mmap_size = 268435456; PRAGMA new_bundle.mmap_size = 268435456")
        return db
    }

    /// Runs `body`; when SQLite finds a file damaged (cut short, overwritten), the
    /// error names that file as bad input instead of the in-memory connection both
    /// are attached to. Each file is checked on a connection of its own.
    static func namingDamage<T>(oldPath: String, newPath: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SQLiteError where e.isDamage {
            for path in [oldPath, newPath] {
                let check = try? { () throws -> String? in
                    let db = try SQLiteDatabase(path: path, mode: .readOnly)
                    return try db.query("PRAGMA quick_check(1)").first?.first?.textValue
                }()
                if check != "ok" {
                    throw StationError.badInput(SourceLocation(file: path),
                                     "the database is damaged (\(check ?? e.message)); expected a whole bundle, as published")
                }
            }
            throw e
        }
    }

    /// One table: rows only in OLD, rows only in NEW and rows whose values differ, in
    /// key order. With the table on both sides, one FULL JOIN on the key finds all three
    /// (each side read once); a table on one side only is all added or all removed.
    static func difference(_ shape: BundleSchema.Table, in db: SQLiteDatabase, oldPath: String, newPath: String,
                           old: String = "old_bundle", new: String = "new_bundle") throws -> TableDiff {
        let inOld = try present(shape, old, db, oldPath), inNew = try present(shape, new, db, newPath)
        var diff = TableDiff(shape: shape)
        diff.tableAdded = inNew && !inOld
        diff.tableRemoved = inOld && !inNew
        func columns(_ alias: String) -> String { shape.columns.map { "\(alias).\($0)" }.joined(separator: ", ") }
        func all(_ schema: String) throws -> [[SQLValue]] {
            try db.query("SELECT \(columns("t")) FROM \(schema).\(shape.name) AS t ORDER BY \(shape.key.map { "t.\($0)" }.joined(separator: ", "))")
        }
        if inOld { diff.oldCount = try db.scalarInt("SELECT count(*) FROM \(old).\(shape.name)") ?? 0 }
        if inNew { diff.newCount = try db.scalarInt("SELECT count(*) FROM \(new).\(shape.name)") ?? 0 }
        guard inOld && inNew else {
            if inOld { diff.removed = try all(old) }
            if inNew { diff.added = try all(new) }
            return diff
        }
        let sameKey = shape.key.map { "u.\($0) = t.\($0)" }.joined(separator: " AND ")
        // Key columns are NOT NULL in a bundle: a NULL one on a side means the row is not there.
        let first = shape.key[0]
        let differs = shape.columns.filter { !shape.key.contains($0) }.map { "t.\($0) IS NOT u.\($0) COLLATE BINARY" }
        let condition = (["t.\(first) IS NULL", "u.\(first) IS NULL"] + differs).joined(separator: " OR ")
        let order = shape.key.map { "coalesce(t.\($0), u.\($0))" }.joined(separator: ", ")
        let width = shape.columns.count
        for row in try db.query("""
            SELECT \(columns("t")), \(columns("u")) FROM \(old).\(shape.name) AS t
            FULL JOIN \(new).\(shape.name) AS u ON \(sameKey) WHERE \(condition) ORDER BY \(order)
            """) {
            let old = Array(row[..<width]), new = Array(row[width...])
            if old[shape.keyIndexes[0]] == .null {
                diff.added.append(new)
            } else if new[shape.keyIndexes[0]] == .null {
                diff.removed.append(old)
            } else {
                let changes = shape.columns.indices.filter { !old[$0].isSame(as: new[$0]) }
                    .map { ColumnChange(column: shape.columns[$0], old: old[$0], new: new[$0]) }
                diff.changed.append(RowChange(key: shape.key(of: new), old: old, new: new, changes: changes))
            }
        }
        return diff
    }

    /// Whether the table is in the bundle with every column the diff reads, and
    /// its key unique; only renumbered_stations may be missing.
    static func present(_ shape: BundleSchema.Table, _ schema: String, _ db: SQLiteDatabase, _ path: String) throws -> Bool {
        guard try db.tableExists(shape.name, schema: schema) else {
            if shape == BundleSchema.renumberedStations { return false }
            throw StationError.badInput(SourceLocation(file: path), "not a station bundle: it has no table \(shape.name)")
        }
        let existing = Set(try db.query("SELECT name FROM pragma_table_info(?, ?)", [.text(shape.name), .text(schema)]).compactMap { $0.first?.textValue })
        let missing = shape.columns.filter { !existing.contains($0) }
        if !missing.isEmpty {
            throw StationError.badInput(SourceLocation(file: path, field: shape.name),
                             "not a station bundle: table \(shape.name) has no column \(missing.joined(separator: ", "))")
        }
        // A key of several columns is unique only by an index an old bundle may lack; rows match by key.
        if shape.key.count > 1, try !hasUniqueIndex(on: shape, schema, db) {
            let key = shape.key.joined(separator: ", ")
            if let row = try db.query("SELECT \(key) FROM \(schema).\(shape.name) GROUP BY \(key) HAVING count(*) > 1 LIMIT 1").first {
                throw StationError.badInput(SourceLocation(file: path, field: shape.name),
                                 "not a station bundle: (\(key)) = (\(row.map(\.description).joined(separator: ", "))) appears twice in \(shape.name)")
            }
        }
        return true
    }

    /// Whether a unique index (or the primary key) of the table covers exactly its key columns.
    static func hasUniqueIndex(on shape: BundleSchema.Table, _ schema: String, _ db: SQLiteDatabase) throws -> Bool {
        for index in try db.query("SELECT name FROM pragma_index_list(?, ?) WHERE \"unique\" = 1", [.text(shape.name), .text(schema)]) {
            let columns = try db.query("SELECT name FROM pragma_index_info(?, ?)", [index[0], .text(schema)]).compactMap { $0.first?.textValue }
            if Set(columns) == Set(shape.key) { return true }
        }
        return false
    }
}
