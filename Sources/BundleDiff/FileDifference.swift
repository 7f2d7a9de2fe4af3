import Foundation
import StationModel

extension BundleDifference {
    /// The same difference as `between(load(old), load(new))`, found inside SQLite:
    /// both files are attached to a connection and only the rows that differ
    /// (`EXCEPT` both ways) come back into Swift. On a national bundle this is a few
    /// milliseconds instead of loading some 40,000 rows; tables are compared two at
    /// a time, each on its own connection.
    ///
    /// One nuance of SQL equality: a value whose storage class changes between
    /// INTEGER and REAL while keeping its number (5 -> 5.0) compares equal here.
    public static func between(oldPath: String, newPath: String) throws -> BundleDifference {
        // ATTACH would create a missing file; a missing bundle is an error instead.
        for path in [oldPath, newPath] where !FileManager.default.fileExists(atPath: path) {
            throw EnvironmentError("cannot read \(path): no such file")
        }
        // Each table is compared on a connection of its own, two at a time: on a
        // national bundle stations and stations_lines cost about the same, so the
        // two cores finish together. The result is assembled in TableShape.all order.
        func attached() throws -> SQLiteDatabase {
            let db = try SQLiteDatabase(path: ":memory:", mode: .create)
            try db.execute("ATTACH DATABASE \(SQLValue.text(oldPath).sqlLiteral) AS old_bundle")
            try db.execute("ATTACH DATABASE \(SQLValue.text(newPath).sqlLiteral) AS new_bundle")
            return db
        }
        let shapes = TableShape.all
        // Largest first, so the small tables fill in behind them.
        let order = shapes.indices.sorted { rank(shapes[$0]) < rank(shapes[$1]) }
        var results = [Result<TableDiff, Error>?](repeating: nil, count: shapes.count)
        let lock = NSLock()
        let workers = 2
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var position = worker
            while position < order.count {
                let index = order[position]
                let result = Result { () throws -> TableDiff in
                    let db = try attached()
                    defer { db.close() }
                    return try tableDifference(shapes[index], in: db, oldPath: oldPath, newPath: newPath)
                }
                lock.lock(); results[index] = result; lock.unlock()
                position += workers
            }
        }
        let tables = try results.map { try $0!.get() }
        let versions = try attached()
        defer { versions.close() }
        let oldVersion = try versions.scalarInt("PRAGMA old_bundle.user_version") ?? 0
        let newVersion = try versions.scalarInt("PRAGMA new_bundle.user_version") ?? 0
        return BundleDifference(oldVersion: oldVersion, newVersion: newVersion, tables: tables)
    }

    /// Both tables read in key order side by side; a row equal in every column on
    /// both sides is skipped without ever becoming Swift values. Returns the rows
    /// `EXCEPT` would give each way. Needs unique keys on both sides.
    private static func merge(_ shape: TableShape, in db: SQLiteDatabase) throws -> (oldOnly: [[SQLValue]], newOnly: [[SQLValue]]) {
        let columns = shape.columns.joined(separator: ", ")
        let order = shape.key.joined(separator: ", ")
        let old = try db.prepare("SELECT \(columns) FROM old_bundle.\(shape.name) ORDER BY \(order)")
        let new = try db.prepare("SELECT \(columns) FROM new_bundle.\(shape.name) ORDER BY \(order)")
        var oldOnly: [[SQLValue]] = [], newOnly: [[SQLValue]] = []
        var hasOld = try old.step(), hasNew = try new.step()
        let width = shape.columns.count
        while hasOld && hasNew {
            var c = 0
            for k in shape.keyIndexes {
                if old.sameValue(k, as: new, k) { continue }
                c = compareValues(old.value(k), new.value(k))
                if c != 0 { break }
            }
            if c < 0 {
                oldOnly.append(old.row()); hasOld = try old.step()
            } else if c > 0 {
                newOnly.append(new.row()); hasNew = try new.step()
            } else {
                var same = true
                for i in 0..<width where !old.sameValue(i, as: new, i) { same = false; break }
                if !same { oldOnly.append(old.row()); newOnly.append(new.row()) }
                hasOld = try old.step(); hasNew = try new.step()
            }
        }
        while hasOld { oldOnly.append(old.row()); hasOld = try old.step() }
        while hasNew { newOnly.append(new.row()); hasNew = try new.step() }
        return (oldOnly, newOnly)
    }

    /// stations and stations_lines are the big ones.
    private static func rank(_ shape: TableShape) -> Int {
        switch shape.name {
        case "stations": return 0
        case "stations_lines": return 1
        default: return 2
        }
    }

    private static func tableDifference(_ shape: TableShape, in db: SQLiteDatabase, oldPath: String, newPath: String) throws -> TableDiff {
        func present(_ schema: String, _ shape: TableShape) throws -> Bool {
            guard try db.scalarInt("SELECT count(*) FROM \(schema).sqlite_master WHERE type = 'table' AND name = ?", [.text(shape.name)]) == 1 else {
                if shape == TableShape.renumbered { return false }
                let path = schema == "old_bundle" ? oldPath : newPath
                throw InputError(SourceLocation(file: path), "not a station bundle: it has no table \(shape.name)")
            }
            let existing = Set(try db.query("SELECT name FROM pragma_table_info(?, ?)", [.text(shape.name), .text(schema)]).compactMap { $0.first?.textValue })
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
            let info = try db.query("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?, ?)", [.text(shape.name), .text(schema)])
            let pk = info.filter { ($0[3].intValue ?? 0) > 0 }
            if shape.key.count == 1, pk.count == 1, pk[0][0].textValue == shape.key[0], pk[0][1].textValue?.uppercased() == "INTEGER" {
                return true
            }
            let notNull = Set(info.filter { $0[2].intValue == 1 }.compactMap { $0[0].textValue })
            guard shape.key.allSatisfy(notNull.contains) else { return false }
            for index in try db.query("SELECT name FROM pragma_index_list(?, ?) WHERE \"unique\" = 1", [.text(shape.name), .text(schema)]) {
                let columns = try db.query("SELECT name FROM pragma_index_info(?, ?)", [index[0], .text(schema)]).compactMap { $0[0].textValue }
                if Set(columns) == Set(shape.key) { return true }
            }
            return false
        }
        func count(_ schema: String) throws -> Int { try db.scalarInt("SELECT count(*) FROM \(schema).\(shape.name)") ?? 0 }
        func rows(_ sql: String) throws -> [[SQLValue]] {
            let st = try db.prepare(sql)
            var out: [[SQLValue]] = []
            while try st.step() { out.append(st.row()) }
            return out
        }
        let oldOnly: [[SQLValue]], newOnly: [[SQLValue]]
        switch (inOld, inNew) {
        case (true, true) where try uniqueKey("old_bundle") && uniqueKey("new_bundle"):
            (oldOnly, newOnly) = try merge(shape, in: db)
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
        diff.oldCount = inOld ? try count("old_bundle") : 0
        diff.newCount = inNew ? try count("new_bundle") : 0
        return diff
    }
}
