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
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            var position = worker
            while position < order.count {
                let index = order[position]
                let result = Result { () throws -> TableDiff in
                    let db = try attached()
                    defer { db.close() }
                    return try tableDifference(shapes[index], in: db, oldPath: oldPath, newPath: newPath)
                }
                lock.lock(); results[index] = result; lock.unlock()
                position += 2
            }
        }
        let tables = try results.map { try $0!.get() }
        let versions = try attached()
        defer { versions.close() }
        let oldVersion = try versions.scalarInt("PRAGMA old_bundle.user_version") ?? 0
        let newVersion = try versions.scalarInt("PRAGMA new_bundle.user_version") ?? 0
        return BundleDifference(oldVersion: oldVersion, newVersion: newVersion, tables: tables)
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
        func count(_ schema: String) throws -> Int { try db.scalarInt("SELECT count(*) FROM \(schema).\(shape.name)") ?? 0 }
        func rows(_ sql: String) throws -> [[SQLValue]] {
            let st = try db.prepare(sql)
            var out: [[SQLValue]] = []
            while try st.step() { out.append(st.row()) }
            return out
        }
        let oldOnly: [[SQLValue]], newOnly: [[SQLValue]]
        switch (inOld, inNew) {
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
