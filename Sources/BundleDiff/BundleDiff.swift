import StationModel

// BundleDiff: what changed between two station bundles, and the SQL patch that
// turns one into the other the way the Android client applies it.
//
// Public API (the core; output formats and guards belong in files of their own):
//
//   TableShape                      a table's name, columns (in schema order) and key columns.
//     .clientTables                 the four tables of bundle.md, from BundleSchema.
//     .renumbered                   the extra renumbered_stations table (from BundleSchema's DDL).
//     .all                          clientTables + [renumbered], the order everything is loaded and diffed in.
//
//   BundleContents.load(path:)      reads a bundle's tables (any SQLite file with bundle.md's tables;
//   BundleContents.load(database:)  extra tables such as completions are ignored, missing indexes do
//                                   not matter, a missing renumbered_stations reads as absent/empty).
//     .userVersion, .tables: [TableRows], [tableName] -> TableRows?, .rowCounts
//
//   BundleDifference.between(old, new)   per table: added / removed rows, changed rows with their
//     .tables: [TableDiff]               column-by-column old/new values, all sorted by key.
//     .isEmpty                           true when the tables' contents are equal (user_version is
//                                        not content: two versions with equal rows are "unchanged").
//     [tableName] -> TableDiff?
//   BundleDifference.between(oldPath:newPath:)   the same result computed inside SQLite (both files
//                                   attached, EXCEPT both ways): fast on national bundles; BuildDB uses it.
//   TableDiff: .shape, .added, .removed, .changed: [RowChange], .oldCount, .newCount,
//              .tableAdded / .tableRemoved (renumbered_stations absent on one side)
//   RowChange: .key, .old, .new, .changes: [ColumnChange(column, old, new)]
//
//   PatchWriter.patch(from: difference, toVersion: N) -> String
//                                   the line-oriented SQL patch (one statement per line, no BEGIN/COMMIT,
//                                   ends with PRAGMA user_version = N;). See PatchWriter.swift.
//   AndroidPatchRunner.apply(sql:to:) / apply(sql:toFileAt:)
//                                   runs a patch exactly as the Android client does (line joining on
//                                   an even count of ', one transaction, rollback on any error).
//   compareKeys(_:_:)               the total order used for keys (SQLite's: NULL < numbers < text < blob).

/// A table as the diff sees it: which columns to read, in which order, and which identify a row.
public struct TableShape: Hashable, Sendable {
    public var name: String
    public var columns: [String]
    /// Columns that identify a row. stations_lines is keyed by (l_id, s_id), not by rowid,
    /// so the order rows were inserted in is never a difference.
    public var key: [String]
    public var keyIndexes: [Int]

    public init(name: String, columns: [String], key: [String]) {
        self.name = name; self.columns = columns; self.key = key
        self.keyIndexes = key.map { k in columns.firstIndex(of: k)! }
    }

    public init(_ table: BundleSchema.Table) {
        self.init(name: table.name, columns: table.columns.map(\.name), key: table.key)
    }

    public static let clientTables: [TableShape] = BundleSchema.tables.map(TableShape.init)

    /// Read from BundleSchema.renumberedCreateSQL itself (through an in-memory
    /// database), so the columns are spelled in one place only.
    public static let renumbered: TableShape = {
        do {
            let db = try SQLiteDatabase(path: ":memory:", mode: .create)
            try db.execute(BundleSchema.renumberedCreateSQL)
            let name = "renumbered_stations"
            let info = try db.query("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", [.text(name)])
            let columns = info.map { $0[0].textValue ?? "" }
            let key = info.filter { ($0[1].intValue ?? 0) > 0 }.sorted { ($0[1].intValue ?? 0) < ($1[1].intValue ?? 0) }.map { $0[0].textValue ?? "" }
            return TableShape(name: name, columns: columns, key: key)
        } catch {
            fatalError("BundleSchema.renumberedCreateSQL does not create renumbered_stations: \(error)")
        }
    }()

    public static let all: [TableShape] = clientTables + [renumbered]

    public func key(of row: [SQLValue]) -> [SQLValue] { keyIndexes.map { row[$0] } }
}

/// One table's rows, in key order.
public struct TableRows: Sendable {
    public var shape: TableShape
    /// False when the table does not exist in the file (only renumbered_stations may be absent).
    public var present: Bool
    public var rows: [[SQLValue]]

    public init(shape: TableShape, present: Bool, rows: [[SQLValue]]) { self.shape = shape; self.present = present; self.rows = rows }
}

/// The client-visible contents of a bundle.
public struct BundleContents: Sendable {
    public var path: String
    public var userVersion: Int
    public var tables: [TableRows]

    public init(path: String, userVersion: Int, tables: [TableRows]) { self.path = path; self.userVersion = userVersion; self.tables = tables }

    public subscript(name: String) -> TableRows? { tables.first { $0.shape.name == name } }

    /// Row count per table name (absent tables count 0).
    public var rowCounts: [String: Int] {
        var counts: [String: Int] = [:]
        for t in tables { counts[t.shape.name] = t.rows.count }
        return counts
    }

    public static func load(path: String) throws -> BundleContents {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        return try load(database: db)
    }

    public static func load(database db: SQLiteDatabase) throws -> BundleContents {
        var tables: [TableRows] = []
        for shape in TableShape.all {
            guard try db.tableExists(shape.name) else {
                if shape == TableShape.renumbered {
                    tables.append(TableRows(shape: shape, present: false, rows: []))
                    continue
                }
                throw InputError(SourceLocation(file: db.path), "not a station bundle: it has no table \(shape.name)")
            }
            let existing = Set(try db.query("SELECT name FROM pragma_table_info(?)", [.text(shape.name)]).compactMap { $0.first?.textValue })
            let missing = shape.columns.filter { !existing.contains($0) }
            if !missing.isEmpty {
                throw InputError(SourceLocation(file: db.path, field: shape.name),
                                 "not a station bundle: table \(shape.name) has no column \(missing.joined(separator: ", "))")
            }
            let sql = "SELECT \(shape.columns.joined(separator: ", ")) FROM \(shape.name) ORDER BY \(shape.key.joined(separator: ", "))"
            let st = try db.prepare(sql)
            var rows: [[SQLValue]] = []
            while try st.step() { rows.append(st.row()) }
            tables.append(TableRows(shape: shape, present: true, rows: rows))
        }
        return BundleContents(path: db.path, userVersion: try db.userVersion, tables: tables)
    }
}

/// SQLite's order of values (NULL < INTEGER/REAL < TEXT < BLOB; text by bytes),
/// so keys sort the same here as in `ORDER BY`.
public func compareValues(_ a: SQLValue, _ b: SQLValue) -> Int {
    func rank(_ v: SQLValue) -> Int {
        switch v {
        case .null: return 0
        case .integer, .real: return 1
        case .text: return 2
        case .blob: return 3
        }
    }
    let ra = rank(a), rb = rank(b)
    if ra != rb { return ra < rb ? -1 : 1 }
    switch (a, b) {
    case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
    case (.text(let x), .text(let y)): return compareBytes(Array(x.utf8), Array(y.utf8))
    case (.blob(let x), .blob(let y)): return compareBytes(x, y)
    case (.null, .null): return 0
    default:
        let x = number(a), y = number(b)
        return x == y ? 0 : (x < y ? -1 : 1)
    }
}

private func number(_ v: SQLValue) -> Double {
    switch v {
    case .integer(let i): return Double(i)
    case .real(let d): return d
    default: return 0
    }
}

private func compareBytes(_ x: [UInt8], _ y: [UInt8]) -> Int {
    for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
    return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
}

/// Lexicographic order of keys by `compareValues`.
public func compareKeys(_ a: [SQLValue], _ b: [SQLValue]) -> Int {
    for (x, y) in zip(a, b) {
        let c = compareValues(x, y)
        if c != 0 { return c }
    }
    return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
}
