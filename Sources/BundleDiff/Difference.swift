import StationModel

public struct ColumnChange: Hashable, Sendable {
    public var column: String
    public var old: SQLValue
    public var new: SQLValue

    public init(column: String, old: SQLValue, new: SQLValue) { self.column = column; self.old = old; self.new = new }
}

/// A row whose key is in both bundles but whose other values differ.
public struct RowChange: Hashable, Sendable {
    public var key: [SQLValue]
    public var old: [SQLValue]
    public var new: [SQLValue]
    /// Only the columns that differ, in schema order.
    public var changes: [ColumnChange]

    public init(key: [SQLValue], old: [SQLValue], new: [SQLValue], changes: [ColumnChange]) {
        self.key = key; self.old = old; self.new = new; self.changes = changes
    }
}

public struct TableDiff: Sendable {
    public var shape: TableShape
    /// Whole rows (all columns, schema order), sorted by key.
    public var added: [[SQLValue]]
    public var removed: [[SQLValue]]
    public var changed: [RowChange]
    public var oldCount: Int
    public var newCount: Int
    /// The table exists only in the new bundle (or only in the old one); only
    /// renumbered_stations can be absent.
    public var tableAdded: Bool
    public var tableRemoved: Bool

    public var isEmpty: Bool { added.isEmpty && removed.isEmpty && changed.isEmpty && !tableAdded && !tableRemoved }
    public var rowChangeCount: Int { added.count + removed.count + changed.count }
}

public struct BundleDifference: Sendable {
    public var oldVersion: Int
    public var newVersion: Int
    /// One entry per TableShape.all, in that order.
    public var tables: [TableDiff]
    /// OLD's stations with enabled = 1, when counted while comparing the stations.
    public var oldEnabledStations: Int?

    public var isEmpty: Bool { tables.allSatisfy(\.isEmpty) }

    public subscript(name: String) -> TableDiff? { tables.first { $0.shape.name == name } }

    public static func between(_ old: BundleContents, _ new: BundleContents) -> BundleDifference {
        var diffs: [TableDiff] = []
        for shape in TableShape.all {
            let o = old[shape.name] ?? TableRows(shape: shape, present: false, rows: [])
            let n = new[shape.name] ?? TableRows(shape: shape, present: false, rows: [])
            diffs.append(diff(shape: shape, old: o, new: n))
        }
        return BundleDifference(oldVersion: old.userVersion, newVersion: new.userVersion, tables: diffs)
    }

    static func diff(shape: TableShape, old: TableRows, new: TableRows) -> TableDiff {
        var oldByKey: [[SQLValue]: [SQLValue]] = [:]
        oldByKey.reserveCapacity(old.rows.count)
        for row in old.rows { oldByKey[shape.key(of: row)] = row }

        var added: [[SQLValue]] = []
        var changed: [RowChange] = []
        var seen = Set<[SQLValue]>()
        seen.reserveCapacity(new.rows.count)
        for row in new.rows {
            let key = shape.key(of: row)
            seen.insert(key)
            guard let before = oldByKey[key] else { added.append(row); continue }
            if before == row { continue }
            var changes: [ColumnChange] = []
            for (i, column) in shape.columns.enumerated() where before[i] != row[i] {
                changes.append(ColumnChange(column: column, old: before[i], new: row[i]))
            }
            changed.append(RowChange(key: key, old: before, new: row, changes: changes))
        }
        var removed = old.rows.filter { !seen.contains(shape.key(of: $0)) }

        // Rows arrive in SQLite's key order already; sort anyway so the result
        // does not depend on how the caller built its TableRows.
        added.sort { compareKeys(shape.key(of: $0), shape.key(of: $1)) < 0 }
        removed.sort { compareKeys(shape.key(of: $0), shape.key(of: $1)) < 0 }
        changed.sort { compareKeys($0.key, $1.key) < 0 }
        return TableDiff(shape: shape, added: added, removed: removed, changed: changed,
                         oldCount: old.rows.count, newCount: new.rows.count,
                         tableAdded: new.present && !old.present, tableRemoved: old.present && !new.present)
    }
}
