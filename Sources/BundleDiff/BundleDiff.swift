import StationIO
import StationModel

// BundleDiff: what changed between two station bundles, and the SQL patch that
// turns one into the other the way the Android client applies it.
//
//   BundleDifference.between(oldPath:newPath:)   per table, rows added, removed and
//                                  changed (column by column), matched by key, each
//                                  kind found by one SQL statement over both files
//   DiffReport                     the difference with names, a summary and guards
//                                  (DiffReport.swift), printed as text, markdown,
//                                  JSON or SQL (DiffFormats.swift)
//   PatchWriter.patch(from:toVersion:)   the line-oriented patch the Android client runs
//   AndroidPatchRunner             runs a patch exactly as the Android client does

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
    public static let renumbered = TableShape(BundleSchema.renumberedStations)
    /// Every table compared, in the order they are diffed and reported.
    public static let all: [TableShape] = clientTables + [renumbered]

    public func key(of row: [SQLValue]) -> [SQLValue] { keyIndexes.map { row[$0] } }
}
