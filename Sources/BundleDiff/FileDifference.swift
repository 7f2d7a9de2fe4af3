import FoundationEssentials
import Glibc
import StationModel

extension BundleDifference {
    /// The same difference as `between(load(old), load(new))`, found inside SQLite:
    /// both files are attached to a connection and only the rows that differ
    /// (`EXCEPT` both ways) come back into Swift. On a national bundle this is a few
    /// milliseconds instead of loading some 40,000 rows. A table stored in the same
    /// leaf pages in both files is not compared row by row at all (StoredTables).
    ///
    /// One nuance of SQL equality: a value whose storage class changes between
    /// INTEGER and REAL while keeping its number (5 -> 5.0) compares equal here.
    public static func between(oldPath: String, newPath: String) throws -> BundleDifference {
        try namingDamage(oldPath: oldPath, newPath: newPath) {
            let db = try attach(oldPath: oldPath, newPath: newPath)
            defer { db.close() }
            return try between(attached: db, oldPath: oldPath, newPath: newPath)
        }
    }

    /// Runs `body` (attaching the files and reading them); when SQLite finds a file
    /// damaged (cut short, overwritten), the error names that file as bad input
    /// instead of the in-memory connection both are attached to. Each file is
    /// checked on a connection of its own: a damaged schema fails every statement
    /// of a connection it is attached to.
    static func namingDamage<T>(oldPath: String, newPath: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let e as SQLiteError where e.code == 11 || e.code == 26 {   // SQLITE_CORRUPT, SQLITE_NOTADB
            for path in [oldPath, newPath] {
                let check = try? { () throws -> String? in
                    let db = try SQLiteDatabase(path: path, mode: .readOnly)
                    defer { db.close() }
                    return try db.query("PRAGMA quick_check(1)").first?.first?.textValue
                }()
                if check != "ok" {
                    throw InputError(SourceLocation(file: path),
                                     "the database is damaged (\(check ?? e.message)); expected a whole bundle, as published")
                }
            }
            throw e
        }
    }

    /// One connection with OLD attached as old_bundle and NEW as new_bundle, for the
    /// diff and for the report's name lookups after it.
    static func attach(oldPath: String, newPath: String) throws -> SQLiteDatabase {
        // ATTACH would create a missing file; a missing bundle is an error instead.
        for path in [oldPath, newPath] where !FileManager.default.fileExists(atPath: path) {
            throw EnvironmentError("cannot read \(path): no such file")
        }
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        try db.execute("ATTACH DATABASE \(SQLValue.text(oldPath).sqlLiteral) AS old_bundle")
        try db.execute("ATTACH DATABASE \(SQLValue.text(newPath).sqlLiteral) AS new_bundle")
        // Pages are read through a shared mapping of the files rather than copied
        // into page caches this process would first have to fault in: both bundles
        // are read whole, and that copying and faulting was a good part of a diff.
        let limit = SQLiteDatabase.readMappingLimit
        try db.execute("PRAGMA old_bundle.mmap_size = \(limit); PRAGMA new_bundle.mmap_size = \(limit)")
        return db
    }

    /// The tables one after another on one connection. At national size the whole
    /// comparison is a few milliseconds of one core; a connection per table and
    /// threads cost more in opening, attaching and schema parsing than they saved.
    static func between(attached db: SQLiteDatabase, oldPath: String, newPath: String) throws -> BundleDifference {
        let oldColumns = try columnFacts(db, "old_bundle"), newColumns = try columnFacts(db, "new_bundle")
        let schema = SchemaFacts(oldColumns: oldColumns, newColumns: newColumns,
                                 oldUnique: try uniqueIndexes(db, "old_bundle"), newUnique: try uniqueIndexes(db, "new_bundle"),
                                 counts: try rowCounts(db, oldColumns, newColumns),
                                 oldFile: StoredTables(path: oldPath), newFile: StoredTables(path: newPath))
        let enabled = try db.tally(named: enabledTallyFunction)
        let tables = try TableShape.all.map { shape in
            try tableDifference(shape, in: db, oldPath: oldPath, newPath: newPath, schema: schema, enabledTally: enabled)
        }
        let oldVersion = try db.scalarInt("PRAGMA old_bundle.user_version") ?? 0
        let newVersion = try db.scalarInt("PRAGMA new_bundle.user_version") ?? 0
        return BundleDifference(oldVersion: oldVersion, newVersion: newVersion, tables: tables,
                                oldEnabledStations: enabled.counting ? enabled.count : nil)
    }

    /// One column of a table as pragma_table_info gives it.
    struct ColumnFact {
        var name: String; var type: String; var notNull: Bool; var primaryKey: Int; var tableCollates: Bool; var withoutRowid: Bool
        /// The table's: where its b-tree starts, and the statement that made it.
        var rootPage: Int; var createSQL: String
    }

    /// What the comparing needs to know of both files, each found in one statement
    /// for all tables: a statement prepared is some 40,000 instructions, and a diff
    /// of national bundles prepared some sixty.
    struct SchemaFacts {
        var oldColumns, newColumns: [String: [ColumnFact]]
        /// Each table's unique indexes, as the set of their columns.
        var oldUnique, newUnique: [String: [Set<String>]]
        /// Rows per "schema.table", for the tables of TableShape.all that exist.
        var counts: [String: Int]
        /// The files' pages, where they can be read as SQLite reads them.
        var oldFile, newFile: StoredTables?
    }

    /// Every table's unique indexes (the INTEGER PRIMARY KEY is not one).
    private static func uniqueIndexes(_ db: SQLiteDatabase, _ schema: String) throws -> [String: [Set<String>]] {
        var columns: [String: [String: Set<String>]] = [:]
        for row in try db.query("""
            SELECT m.name, i.name, c.name
            FROM \(schema).sqlite_master AS m JOIN pragma_index_list(m.name, ?1) AS i JOIN pragma_index_info(i.name, ?1) AS c
            WHERE m.type = 'table' AND i."unique" = 1
            """, [.text(schema)]) {
            guard let table = row[0].textValue, let index = row[1].textValue, let column = row[2].textValue else { continue }
            columns[table, default: [:]][index, default: []].insert(column)
        }
        return columns.mapValues { Array($0.values) }
    }

    /// The row count of each table of TableShape.all that exists, on both sides.
    private static func rowCounts(_ db: SQLiteDatabase, _ oldColumns: [String: [ColumnFact]], _ newColumns: [String: [ColumnFact]]) throws -> [String: Int] {
        let tables = TableShape.all.flatMap { shape in
            [("old_bundle", oldColumns), ("new_bundle", newColumns)].compactMap { schema, facts in
                facts[shape.name] == nil ? nil : "\(schema).\(shape.name)"
            }
        }
        guard !tables.isEmpty else { return [:] }
        let row = try db.query("SELECT " + tables.map { "(SELECT count(*) FROM \($0))" }.joined(separator: ", "))[0]
        var counts: [String: Int] = [:]
        for (table, count) in zip(tables, row) { counts[table] = count.intValue ?? 0 }
        return counts
    }

    /// Every table's columns in one query (instead of a few pragma queries per table).
    private static func columnFacts(_ db: SQLiteDatabase, _ schema: String) throws -> [String: [ColumnFact]] {
        var facts: [String: [ColumnFact]] = [:]
        // The statement's text is searched once a table, not once a column.
        let rows = try db.query("""
            WITH m AS MATERIALIZED (SELECT name, instr(upper(sql), 'COLLATE') > 0 AS collates,
                                           instr(upper(sql), 'WITHOUT ROWID') > 0 AS withoutRowid, rootpage, sql
                                    FROM \(schema).sqlite_master WHERE type = 'table')
            SELECT m.name, p.name, p.type, p."notnull", p.pk, m.collates, m.withoutRowid, m.rootpage, m.sql
            FROM m JOIN pragma_table_info(m.name, ?) AS p ORDER BY m.name, p.cid
            """, [.text(schema)])
        for row in rows {
            guard let table = row[0].textValue else { continue }
            facts[table, default: []].append(ColumnFact(name: row[1].textValue ?? "", type: row[2].textValue ?? "",
                                                        notNull: row[3].intValue == 1, primaryKey: row[4].intValue ?? 0,
                                                        tableCollates: row[5].intValue == 1, withoutRowid: row[6].intValue == 1,
                                                        rootPage: row[7].intValue ?? 0, createSQL: row[8].textValue ?? ""))
        }
        return facts
    }

    /// The same rows as `merge`, with the comparing done by SQLite: OLD is scanned in
    /// key order and each row looked up by key in NEW, and only the rows that are
    /// missing from NEW or differ in a column (IS NOT) come back. No equal row crosses
    /// into Swift, which is most of the cost of streaming both tables. Rows only in NEW
    /// are looked for only when the counts say there are some (keys are unique on both
    /// sides, so NEW's rows less the matched ones are exactly those). No ORDER BY:
    /// OLD is read in storage order (for stations_lines that spares a walk of its
    /// index), and `diff(shape:old:new:)` sorts what comes back by key.
    ///
    /// With `sameRowidFirst`, an OLD row equal in every column to NEW's row of the same
    /// rowid is passed over before the lookup by key: it cannot be in the result (keys
    /// are unique, so that row is its match), and only the rest are looked up by key.
    /// (`IS NOT` differs from NULL too, so a rowid missing from NEW is a candidate.)
    /// Counts OLD's enabled stations as the stations are joined (RowTally).
    static let enabledTallyFunction = "stationdb_old_enabled"

    /// With `enabledTally`, OLD's stations with enabled = 1 are counted on the way
    /// (the summary's disabled share needs them; a scan of its own was ~5 M instructions).
    private static func join(_ shape: TableShape, in db: SQLiteDatabase, sameRowidFirst: Bool, counts: [String: Int],
                             enabledTally: RowTally?) throws -> (oldOnly: [[SQLValue]], newOnly: [[SQLValue]], oldCount: Int, newCount: Int) {
        let width = shape.columns.count
        let oldColumns = shape.columns.map { "o.\($0)" }.joined(separator: ", ")
        let newColumns = shape.columns.map { "n.\($0)" }.joined(separator: ", ")
        let matches = shape.key.map { "n.\($0) = o.\($0)" }.joined(separator: " AND ")
        // The key's columns are equal in every joined pair (`=` on them), so only the rest are compared.
        let differs = shape.columns.filter { !shape.key.contains($0) }.map { "o.\($0) IS NOT n.\($0)" }.joined(separator: " OR ")
        // The OLD rows not equal to NEW's row of the same rowid, as a plain LEFT JOIN
        // on rowid: a correlated NOT EXISTS per row took twice as long.
        let candidates = shape.columns.map { "c.\($0)" }.joined(separator: ", ")
        let differsAtRowid = shape.columns.map { "c.\($0) IS NOT r.\($0)" }.joined(separator: " OR ")
        let withOldSide = sameRowidFirst
            ? """
              WITH candidate AS (SELECT \(candidates) FROM old_bundle.\(shape.name) AS c
                 LEFT JOIN new_bundle.\(shape.name) AS r ON r.rowid = c.rowid WHERE r.rowid IS NULL OR \(differsAtRowid))
              """
            : ""
        let oldSide = sameRowidFirst ? "candidate" : "old_bundle.\(shape.name)"
        // Called once per OLD row (its only column is OLD's), before the test that keeps the row.
        let tally = enabledTally != nil && !sameRowidFirst ? "\(enabledTallyFunction)(o.enabled = 1) AND " : ""
        let st = try db.prepare("""
            \(withOldSide)
            SELECT \(oldColumns), n.\(shape.key[0]) IS NOT NULL, \(newColumns)
            FROM \(oldSide) AS o LEFT JOIN new_bundle.\(shape.name) AS n ON \(matches)
            WHERE \(tally)(n.\(shape.key[0]) IS NULL\(differs.isEmpty ? "" : " OR " + differs))
            """)
        if !tally.isEmpty { enabledTally?.counting = true }
        var oldOnly: [[SQLValue]] = [], newOnly: [[SQLValue]] = []
        var removed = 0
        while try st.step() {
            let row = st.row()
            oldOnly.append(Array(row[0..<width]))
            if row[width].intValue == 1 {
                newOnly.append(Array(row[(width + 1)...]))
            } else {
                removed += 1
            }
        }
        let oldCount = counts["old_bundle.\(shape.name)"] ?? 0, newCount = counts["new_bundle.\(shape.name)"] ?? 0
        if newCount > oldCount - removed {
            let keyMatch = shape.key.map { "o.\($0) = n.\($0)" }.joined(separator: " AND ")
            let added = try db.prepare("""
                SELECT \(newColumns) FROM new_bundle.\(shape.name) AS n
                WHERE NOT EXISTS (SELECT 1 FROM old_bundle.\(shape.name) AS o WHERE \(keyMatch))
                """)
            while try added.step() { newOnly.append(added.row()) }
        }
        return (oldOnly, newOnly, oldCount, newCount)
    }

    /// Both tables read in key order side by side; a row equal in every column on
    /// both sides is skipped without ever becoming Swift values. Returns the rows
    /// `EXCEPT` would give each way. Needs unique keys on both sides.
    private static func merge(_ shape: TableShape, in db: SQLiteDatabase) throws -> (oldOnly: [[SQLValue]], newOnly: [[SQLValue]], oldCount: Int, newCount: Int) {
        let columns = shape.columns.joined(separator: ", ")
        let order = shape.key.joined(separator: ", ")
        let old = try db.prepare("SELECT \(columns) FROM old_bundle.\(shape.name) ORDER BY \(order)")
        let new = try db.prepare("SELECT \(columns) FROM new_bundle.\(shape.name) ORDER BY \(order)")
        var oldOnly: [[SQLValue]] = [], newOnly: [[SQLValue]] = []
        var hasOld = try old.step(), hasNew = try new.step()
        // Counted while streaming, which saves a count(*) scan of each side.
        var oldCount = hasOld ? 1 : 0, newCount = hasNew ? 1 : 0
        let width = shape.columns.count
        let keys = shape.keyIndexes
        while hasOld && hasNew {
            var c: Int
            if let integers = old.compareIntegerKey(keys, with: new) {
                c = integers
            } else {
                c = 0
                for k in keys {
                    if old.sameValue(k, as: new, k) { continue }
                    c = compareValues(old.value(k), new.value(k))
                    if c != 0 { break }
                }
            }
            if c < 0 {
                oldOnly.append(old.row()); hasOld = try old.step(); if hasOld { oldCount += 1 }
            } else if c > 0 {
                newOnly.append(new.row()); hasNew = try new.step(); if hasNew { newCount += 1 }
            } else {
                if !old.sameRow(as: new, width: width) { oldOnly.append(old.row()); newOnly.append(new.row()) }
                hasOld = try old.step(); hasNew = try new.step()
                if hasOld { oldCount += 1 }
                if hasNew { newCount += 1 }
            }
        }
        while hasOld { oldOnly.append(old.row()); hasOld = try old.step(); if hasOld { oldCount += 1 } }
        while hasNew { newOnly.append(new.row()); hasNew = try new.step(); if hasNew { newCount += 1 } }
        return (oldOnly, newOnly, oldCount, newCount)
    }

    private static func tableDifference(_ shape: TableShape, in db: SQLiteDatabase, oldPath: String, newPath: String,
                                        schema known: SchemaFacts, enabledTally: RowTally) throws -> TableDiff {
        func facts(_ schema: String) -> [ColumnFact]? { (schema == "old_bundle" ? known.oldColumns : known.newColumns)[shape.name] }
        func present(_ schema: String, _ shape: TableShape) throws -> Bool {
            guard let columns = facts(schema) else {
                if shape == TableShape.renumbered { return false }
                let path = schema == "old_bundle" ? oldPath : newPath
                throw InputError(SourceLocation(file: path), "not a station bundle: it has no table \(shape.name)")
            }
            let existing = Set(columns.map(\.name))
            let missing = shape.columns.filter { !existing.contains($0) }
            if !missing.isEmpty {
                let path = schema == "old_bundle" ? oldPath : newPath
                throw InputError(SourceLocation(file: path, field: shape.name),
                                 "not a station bundle: table \(shape.name) has no column \(missing.joined(separator: ", "))")
            }
            return true
        }

        let inOld = try present("old_bundle", shape), inNew = try present("new_bundle", shape)
        let columns = shape.columns.joined(separator: ", ")
        let order = shape.key.joined(separator: ", ")
        /// A key no two rows can share: the INTEGER PRIMARY KEY, or NOT NULL columns
        /// under a unique index (stations_lines_unique_index). An older database
        /// without that index goes the slower EXCEPT way, which needs no such promise.
        func uniqueKey(_ schema: String) throws -> Bool {
            let info = facts(schema) ?? []
            let pk = info.filter { $0.primaryKey > 0 }
            if shape.key.count == 1, pk.count == 1, pk[0].name == shape.key[0], pk[0].type.uppercased() == "INTEGER" {
                return true
            }
            let notNull = Set(info.filter(\.notNull).map(\.name))
            guard shape.key.allSatisfy(notNull.contains) else { return false }
            let unique = (schema == "old_bundle" ? known.oldUnique : known.newUnique)[shape.name] ?? []
            return unique.contains(Set(shape.key))
        }
        /// SQL's IS between two columns agrees with sameValue when both columns have one
        /// declared type (no affinity conversion between them) and no collation.
        func comparableInSQL() -> Bool {
            guard let old = facts("old_bundle"), let new = facts("new_bundle"),
                  !old.contains(where: \.tableCollates), !new.contains(where: \.tableCollates) else { return false }
            func types(_ facts: [ColumnFact]) -> [String?] {
                shape.columns.map { column in facts.first { $0.name == column }?.type.uppercased() }
            }
            return types(old) == types(new)
        }
        /// A rowid table keyed by other columns (stations_lines): two builds of it
        /// usually give an unchanged row the same rowid, and a rowid lookup is much
        /// cheaper than a lookup through the key's index.
        func sameRowidFirst() -> Bool {
            guard let old = facts("old_bundle"), let new = facts("new_bundle"),
                  !old.contains(where: \.withoutRowid), !new.contains(where: \.withoutRowid) else { return false }
            let shadowing: Set<String> = ["rowid", "oid", "_rowid_"]
            guard !(old + new).contains(where: { shadowing.contains($0.name.lowercased()) }) else { return false }
            let pk = old.filter { $0.primaryKey > 0 }
            let integerKey = shape.key.count == 1 && pk.count == 1 && pk[0].name == shape.key[0] && pk[0].type.uppercased() == "INTEGER"
            return !integerKey
        }
        /// Both tables made by the same statement and stored in the same leaf pages.
        func storedAlike() -> Bool {
            guard let oldFile = known.oldFile, let newFile = known.newFile,
                  let o = facts("old_bundle")?.first, let n = facts("new_bundle")?.first,
                  !o.withoutRowid, !n.withoutRowid, o.createSQL == n.createSQL else { return false }
            return oldFile.sameRows(root: o.rootPage, as: newFile, root: n.rootPage)
        }
        func count(_ schema: String) -> Int { known.counts["\(schema).\(shape.name)"] ?? 0 }
        func rows(_ sql: String) throws -> [[SQLValue]] {
            let st = try db.prepare(sql)
            var out: [[SQLValue]] = []
            while try st.step() { out.append(st.row()) }
            return out
        }
        let oldOnly: [[SQLValue]], newOnly: [[SQLValue]]
        var counted: (old: Int, new: Int)?
        switch (inOld, inNew) {
        case (true, true) where storedAlike():
            // Same rows, same rowids (see StoredTables): nothing to compare row by row.
            // (Nor are OLD's enabled stations tallied: DiffSummary counts them itself then.)
            (oldOnly, newOnly) = ([], [])
        case (true, true) where try uniqueKey("old_bundle") && uniqueKey("new_bundle") && comparableInSQL():
            let countsEnabled = shape.name == "stations" && (facts("old_bundle") ?? []).contains { $0.name == "enabled" }
            let joined = try join(shape, in: db, sameRowidFirst: sameRowidFirst(), counts: known.counts,
                                  enabledTally: countsEnabled ? enabledTally : nil)
            (oldOnly, newOnly) = (joined.oldOnly, joined.newOnly)
            counted = (joined.oldCount, joined.newCount)
        case (true, true) where try uniqueKey("old_bundle") && uniqueKey("new_bundle"):
            let merged = try merge(shape, in: db)
            (oldOnly, newOnly) = (merged.oldOnly, merged.newOnly)
            counted = (merged.oldCount, merged.newCount)
        case (true, true):
            oldOnly = try rows("SELECT \(columns) FROM old_bundle.\(shape.name) EXCEPT SELECT \(columns) FROM new_bundle.\(shape.name) ORDER BY \(order)")
            newOnly = try rows("SELECT \(columns) FROM new_bundle.\(shape.name) EXCEPT SELECT \(columns) FROM old_bundle.\(shape.name) ORDER BY \(order)")
        case (true, false):
            oldOnly = try rows("SELECT \(columns) FROM old_bundle.\(shape.name) ORDER BY \(order)"); newOnly = []
        case (false, true):
            oldOnly = []; newOnly = try rows("SELECT \(columns) FROM new_bundle.\(shape.name) ORDER BY \(order)")
        case (false, false):
            oldOnly = []; newOnly = []
        }
        // Rows on both sides of the EXCEPTs with one key are changes; the rest were added or removed.
        var diff = diff(shape: shape, old: TableRows(shape: shape, present: inOld, rows: oldOnly),
                        new: TableRows(shape: shape, present: inNew, rows: newOnly))
        diff.oldCount = counted?.old ?? (inOld ? count("old_bundle") : 0)
        diff.newCount = counted?.new ?? (inNew ? count("new_bundle") : 0)
        return diff
    }
}
