import BuildDB
import StationCore

/// What changed between the baseline and the candidate: BundleDiff's ChangeList (what
/// `stationdb plan` lists, with each change's cause), so the page, the plan and `stationdb
/// diff` can never disagree about what changed. The stations' changes are drawn on the
/// map; the lines', operators' and the rest are listed by name.
struct PreviewChanges: Encodable {
    struct Entry: Encodable {
        var table: String
        var kind: String
        var id: Int
        /// "東京 (JR東日本)", as `stationdb diff` names the station.
        var name: String
        /// A place as [lat, lng] in micro-degrees (moved), else the text plan prints.
        var old: Value?
        var new: Value?
        var metres: Double?
        /// Why (ChangeCauses), when the page was written for a plan.
        var cause: String?
        /// A machine weight that follows the other changes: listed together.
        var follows: Bool?
    }

    enum Value: Encodable {
        case place([Int])
        case text(String)

        func encode(to encoder: Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .place(let p): try c.encode(p)
            case .text(let t): try c.encode(t)
            }
        }
    }

    /// One line per table for the page's header ("lines: 2 changed"), in BundleSchema.tables order.
    var tables: [String] = []
    /// The stations': moves first, furthest first (what moves pins), then the other kinds in ChangeList's order.
    var entries: [Entry] = []
    /// Every other table's (lines, operators, stations_lines, renumbered_stations), in ChangeList's order.
    var others: [Entry] = []

    init(_ list: ChangeList) {
        for table in BundleSchema.tables.map(\.name) {
            let counts = list.counts(table)
            if !counts.isEmpty { tables.append("\(table): " + counts.map { "\($0.count) \($0.kind.rawValue)" }.joined(separator: ", ")) }
        }
        /// "35.681236 139.767125" -> [35681236, 139767125].
        func place(_ text: String?) -> Value? {
            let parts = (text ?? "").split(separator: " ").compactMap { MicroDegrees.parse(String($0)) }
            return parts.count == 2 ? .place(parts) : nil
        }
        let stations = list.entries.filter { $0.table == "stations" }
        let moved = stations.filter { $0.kind == .moved }.sorted { ($0.metres ?? 0, -$0.id) > ($1.metres ?? 0, -$1.id) }
        entries = moved.map {
            Entry(table: $0.table, kind: "moved", id: $0.id, name: $0.name, old: place($0.old), new: place($0.new),
                  metres: $0.metres.map { ($0 * 10).rounded() / 10 }, cause: $0.cause, follows: $0.follows)
        }
        func entry(_ e: ChangeList.Entry) -> Entry {
            Entry(table: e.table, kind: e.kind.rawValue, id: e.id, name: e.name, old: e.old.map(Value.text), new: e.new.map(Value.text),
                  metres: nil, cause: e.cause, follows: e.follows)
        }
        entries += stations.filter { $0.kind != .moved }.map(entry)
        others = list.entries.filter { $0.table != "stations" }.map(entry)
    }

    static func between(baseline: String, candidate: String) throws -> PreviewChanges {
        PreviewChanges(ChangeList(try DiffReport.make(oldPath: baseline, newPath: candidate)))
    }
}
