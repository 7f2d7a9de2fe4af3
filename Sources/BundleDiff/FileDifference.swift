import Foundation
import StationModel

extension BundleDifference {
    /// The same difference as `between(load(old), load(new))`, found inside SQLite:
    /// both files are attached to one connection and only the rows that differ
    /// (`EXCEPT` both ways) come back into Swift. On a national bundle this is a few
    /// milliseconds instead of loading some 40,000 rows.
    ///
    /// One nuance of SQL equality: a value whose storage class changes between
    /// INTEGER and REAL while keeping its number (5 -> 5.0) compares equal here.
    public static func between(oldPath: String, newPath: String) throws -> BundleDifference {
        // ATTACH would create a missing file; a missing bundle is an error instead.
        for path in [oldPath, newPath] where !FileManager.default.fileExists(atPath: path) {
            throw EnvironmentError("cannot read \(path): no such file")
        }
                let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        defer { db.close() }
        try db.execute("ATTACH DATABASE \(SQLValue.text(oldPath).sqlLiteral) AS old_bundle")
        try db.execute("ATTACH DATABASE \(SQLValue.text(newPath).sqlLiteral) AS new_bundle")
        let oldVersion = try db.scalarInt("PRAGMA old_bundle.user_version") ?? 0
        let newVersion = try db.scalarInt("PRAGMA new_bundle.user_version") ?? 0

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

        var tables: [TableDiff] = []
        for shape in TableShape.all {
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
            tables.append(diff)
        }
        return BundleDifference(oldVersion: oldVersion, newVersion: newVersion, tables: tables)
    }
}
