import StationIO
import StationModel

/// What a new version changes, one entry per thing a maintainer reviews: a station
/// moved (and how far), renamed, given another weight, added, disabled; a line or
/// an operator added, renamed or switched off; a station joining or leaving a line.
/// One changed row can give several entries (moved and renamed). `stationdb plan`
/// prints it; the guards and the counts stay in DiffSummary.
public struct ChangeList: Sendable {
    public enum Kind: String, Sendable, CaseIterable, Codable {
        case added, removed, moved, renamed, weight, disabled, reenabled, changed
    }

    public struct Entry: Sendable, Equatable, Codable {
        /// stations, lines, operators, stations_lines or renumbered_stations.
        public var table: String
        public var kind: Kind
        /// s_id, l_id or o_id (for stations_lines the s_id, for renumbered_stations the new s_id).
        public var id: Int
        /// The row's name as published after the change (before it, for a removed row).
        public var name: String
        /// The old and new value, as a reader wants them (coordinates as "lat lng" in degrees).
        public var old: String?
        public var new: String?
        /// How far a moved station went.
        public var metres: Double?
    }

    public var entries: [Entry]

    public static let tableOrder = BundleSchema.reviewOrder

    public init(_ report: DiffReport) {
        var entries: [Entry] = []
        let d = report.difference
        for name in Self.tableOrder {
            guard let t = d[name] else { continue }
            let shape = t.shape
            func id(_ row: [SQLValue]) -> Int { shape.key(of: row).last?.intValue ?? 0 }
            func entry(_ kind: Kind, _ row: [SQLValue], side: DiffReport.Side, old: String? = nil, new: String? = nil, metres: Double? = nil) -> Entry {
                Entry(table: name, kind: kind, id: name == "renumbered_stations" ? (row[0].intValue ?? 0) : id(row),
                      name: report.name(of: row, in: shape, side: side), old: old, new: new, metres: metres)
            }
            for row in t.added { entries.append(entry(.added, row, side: .new)) }
            for row in t.removed { entries.append(entry(.removed, row, side: .old)) }
            let nameColumn = ["stations": "station", "lines": "line", "operators": "operator"][name]
            for change in t.changed {
                var rest: [ColumnChange] = []
                var moved = false
                for c in change.changes {
                    switch c.column {
                    case "lat" where name == "stations", "lng" where name == "stations":
                        moved = true
                    case nameColumn:
                        entries.append(entry(.renamed, change.new, side: .new, old: c.old.textValue, new: c.new.textValue))
                    case "weight" where name == "stations":
                        entries.append(entry(.weight, change.new, side: .new, old: c.old.description, new: c.new.description))
                    case "enabled":
                        entries.append(entry(c.new.intValue == 1 ? .reenabled : .disabled, change.new, side: .new))
                    default:
                        rest.append(c)
                    }
                }
                if moved, let lat = shape.columns.firstIndex(of: "lat"), let lng = shape.columns.firstIndex(of: "lng") {
                    func place(_ row: [SQLValue]) -> String {
                        MicroDegrees.format(row[lat].intValue ?? 0) + " " + MicroDegrees.format(row[lng].intValue ?? 0)
                    }
                    entries.append(entry(.moved, change.new, side: .new, old: place(change.old), new: place(change.new),
                                         metres: report.summary.move(of: change.key.first?.intValue ?? 0)))
                }
                if !rest.isEmpty {
                    entries.append(entry(.changed, change.new, side: .new,
                                         old: rest.map { "\($0.column) \(DiffReport.display($0.old, column: $0.column))" }.joined(separator: ", "),
                                         new: rest.map { "\($0.column) \(DiffReport.display($0.new, column: $0.column))" }.joined(separator: ", ")))
                }
            }
        }
        let kindOrder = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        let tableRank = Dictionary(uniqueKeysWithValues: Self.tableOrder.enumerated().map { ($1, $0) })
        // Stable: within a table and kind, rows keep the diff's key order.
        self.entries = entries.enumerated().sorted {
            let a = $0.element, b = $1.element
            return (tableRank[a.table]!, kindOrder[a.kind]!, $0.offset) < (tableRank[b.table]!, kindOrder[b.kind]!, $1.offset)
        }.map(\.element)
    }

    public func entries(_ table: String, _ kind: Kind) -> [Entry] { entries.filter { $0.table == table && $0.kind == kind } }

    /// How many entries of each kind a table has, in Kind order, kinds with none left out.
    public func counts(_ table: String) -> [(kind: Kind, count: Int)] {
        Kind.allCases.compactMap { kind in
            let n = entries.count { $0.table == table && $0.kind == kind }
            return n > 0 ? (kind, n) : nil
        }
    }

    /// What a reviewer should look at first: every move over a kilometre
    /// (MicroDegrees.notableMoveMetres) and every rename of a station.
    public var notable: [Entry] { Self.notable(entries) }

    public static func notable(_ entries: [Entry]) -> [Entry] {
        entries.filter { $0.table == "stations" && (($0.kind == .moved && ($0.metres ?? 0) > MicroDegrees.notableMoveMetres) || $0.kind == .renamed) }
    }
}
