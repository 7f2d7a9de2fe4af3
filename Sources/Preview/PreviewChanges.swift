import BundleDiff
import StationIO
import StationModel

/// What changed for the map between the baseline and the candidate, one entry
/// per station and kind of change, from BundleDiff's rows so the page and
/// `stationdb diff` can never disagree about what changed.
struct PreviewChanges: Sendable {
    enum Kind: String, Sendable, CaseIterable {
        // The order the page lists them in: what moves pins first.
        case moved, renamed, weight, added, disabled, reenabled, removed, other
    }

    struct Entry: Sendable {
        var kind: Kind
        var stationID: Int
        /// "東京 (JR東日本)", as `stationdb diff` names the station.
        var name: String
        /// JSON values: [lat, lng] for a move, names for a rename, weights, or for
        /// `other` the column's old and new values as diff prints them.
        var old: String
        var new: String
        var metres: Double?
        var column: String?
    }

    var entries: [Entry] = []
    /// One line per table for the page's header ("lines: 2 changed"), in BundleSchema.tables order.
    var tableLines: [String] = []

    static func between(baseline: String, candidate: String) throws -> PreviewChanges {
        let report = try DiffReport.make(oldPath: baseline, newPath: candidate)
        var out = PreviewChanges()
        for t in report.difference.tables where !t.isEmpty {
            var parts: [String] = []
            if !t.added.isEmpty { parts.append("\(t.added.count) added") }
            if !t.removed.isEmpty { parts.append("\(t.removed.count) removed") }
            if !t.changed.isEmpty { parts.append("\(t.changed.count) changed") }
            if t.tableAdded { parts.append("table added") }
            if t.tableRemoved { parts.append("table removed") }
            out.tableLines.append("\(t.shape.name): " + parts.joined(separator: ", "))
        }
        guard let stations = report.difference["stations"] else { return out }
        let shape = stations.shape
        func column(_ name: String) -> Int { shape.columns.firstIndex(of: name)! }
        let sID = column("s_id"), lat = column("lat"), lng = column("lng")
        func id(_ row: [SQLValue]) -> Int { row[sID].intValue ?? 0 }
        func place(_ row: [SQLValue]) -> String { "[\(row[lat].intValue ?? 0),\(row[lng].intValue ?? 0)]" }

        var byKind: [Kind: [Entry]] = [:]
        func add(_ kind: Kind, _ row: [SQLValue], side: DiffReport.Side, old: String = "null", new: String = "null",
                 metres: Double? = nil, column: String? = nil) {
            byKind[kind, default: []].append(Entry(kind: kind, stationID: id(row), name: report.name(of: row, in: shape, side: side),
                                                   old: old, new: new, metres: metres, column: column))
        }
        for row in stations.added { add(.added, row, side: .new, new: place(row)) }
        for row in stations.removed { add(.removed, row, side: .old, old: place(row)) }
        for change in stations.changed {
            var movedDone = false
            for c in change.changes {
                switch c.column {
                case "lat", "lng":
                    // One entry for a move, whichever of lat and lng changed.
                    if movedDone { continue }
                    movedDone = true
                    add(.moved, change.new, side: .new, old: place(change.old), new: place(change.new),
                        metres: report.summary.move(of: id(change.new)))
                case "station":
                    add(.renamed, change.new, side: .new, old: JSONText.quoted(c.old.textValue ?? ""), new: JSONText.quoted(c.new.textValue ?? ""))
                case "weight":
                    add(.weight, change.new, side: .new, old: String(c.old.intValue ?? 0), new: String(c.new.intValue ?? 0))
                case "enabled":
                    add(c.new.intValue == 1 ? .reenabled : .disabled, change.new, side: .new)
                default:
                    add(.other, change.new, side: .new, old: JSONText.quoted(Self.display(c.old)), new: JSONText.quoted(Self.display(c.new)),
                        column: c.column)
                }
            }
        }
        // BundleDiff gives rows by s_id; moves read best furthest first, as the diff's summary lists them.
        byKind[.moved]?.sort { ($0.metres ?? 0, -$0.stationID) > ($1.metres ?? 0, -$1.stationID) }
        for kind in Kind.allCases { out.entries += byKind[kind] ?? [] }
        return out
    }

    static func display(_ v: SQLValue) -> String {
        if case .null = v { return "NULL" }
        return v.description
    }

    func json() -> String {
        let j = JSONText()
        j.object {
            j.member("tables") { j.strings(tableLines) }
            j.member("entries") {
                j.array(entries) { e in
                    j.object {
                        j.member("kind") { j.string(e.kind.rawValue) }
                        j.member("id") { j.int(e.stationID) }
                        j.member("name") { j.string(e.name) }
                        j.member("old") { j.raw(e.old) }
                        j.member("new") { j.raw(e.new) }
                        if let m = e.metres { j.member("metres") { j.double(m, decimals: 1) } }
                        if let c = e.column { j.member("column") { j.string(c) } }
                    }
                }
            }
        }
        return j.text
    }
}
