import FoundationEssentials
import StationCore

/// The output formats of `stationdb diff`.
package enum DiffFormat: String, CaseIterable, Sendable {
    /// For a terminal; lists cut after `limit` rows per kind and table.
    case text
    /// For a CI comment: GitHub-flavoured tables; cut like text.
    case markdown
    /// For programs: everything, never cut. Schema below (`DiffReport.json`).
    case json
    /// The line-oriented patch BuildDB publishes (PatchWriter): applied to OLD it gives NEW.
    case sql
}

extension DiffReport {
    package func render(_ format: DiffFormat, limit: Int, guardViolations: [String] = []) -> String {
        switch format {
        case .text: return text(limit: limit)
        case .markdown: return markdown(limit: limit)
        case .json: return json(guardViolations: guardViolations)
        case .sql: return sql()
        }
    }

    // MARK: - Shared pieces

    /// "s_id 100", "l_id 10 s_id 100".
    func keyText(_ shape: BundleSchema.Table, _ key: [SQLValue]) -> String {
        zip(shape.key, key).map { "\($0) \(Self.plain($1))" }.joined(separator: " ")
    }

    /// A value as a reader wants it: text quoted (so '' and trailing blanks show), lat/lng in degrees.
    static func display(_ value: SQLValue, column: String) -> String {
        if column == "lat" || column == "lng", case .integer(let micro) = value { return MicroDegrees.format(Int(micro)) }
        return plain(value)
    }

    static func plain(_ value: SQLValue) -> String {
        if case .text(let s) = value { return quoted(s) }
        return value.description
    }

    /// A text value as a JSON string (JSONEncoder's, as every JSON file of the project is
    /// written): in double quotes, quotes, backslashes and control characters escaped, so ''
    /// and trailing blanks show.
    static func quoted(_ s: String) -> String {
        // Encoding a string cannot fail.
        String(decoding: (try? jsonDocument(s, compact: true).dropLast()) ?? [], as: UTF8.self)
    }

    /// "weight 1 -> 2, lat 35.745000 -> 35.745001 (moved 0.1 m)": the move follows the
    /// last of lat/lng that changed.
    func changeText(_ shape: BundleSchema.Table, _ change: RowChange, arrow: String) -> String {
        let lastPosition = change.changes.lastIndex { $0.column == "lat" || $0.column == "lng" }
        var parts: [String] = []
        for (i, c) in change.changes.enumerated() {
            var part = "\(c.column) \(Self.display(c.old, column: c.column)) \(arrow) \(Self.display(c.new, column: c.column))"
            if i == lastPosition, shape.name == "stations", let metres = summary.move(of: change.key.first?.intValue ?? 0) {
                part += " (moved \(DiffGuards.metres(metres)))"
            }
            parts.append(part)
        }
        return parts.joined(separator: ", ")
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    func tableHeadline(_ t: TableDiff) -> String {
        var parts: [String] = []
        if t.tableAdded { parts.append("table added") }
        if t.tableRemoved { parts.append("table removed") }
        if !t.added.isEmpty { parts.append("\(t.added.count) added") }
        if !t.removed.isEmpty { parts.append("\(t.removed.count) removed") }
        if !t.changed.isEmpty { parts.append("\(t.changed.count) changed") }
        return parts.joined(separator: ", ")
    }

    /// The summary's sentences, shared by text and markdown.
    func summaryLines() -> [String] {
        let s = summary
        var lines: [String] = []
        lines.append("stations removed: \(s.stationsRemoved) of \(s.oldStations) (\(DiffGuards.percent(s.removedPercent)))")
        lines.append("stations disabled: \(s.stationsDisabled) of \(s.oldEnabledStations) enabled (\(DiffGuards.percent(s.disabledPercent))); re-enabled: \(s.stationsReenabled)")
        if let far = s.furthestMove {
            lines.append("stations moved: \(s.moves.count), furthest \(DiffGuards.metres(far.metres)) (s_id \(far.stationID) \(far.name))")
        } else {
            lines.append("stations moved: 0")
        }
        lines.append("weight changes: \(Self.plural(s.weightChanges, "station")); live stations with a new weight: \(s.weightChurn) of \(s.liveInBoth) (\(DiffGuards.percent(s.weightChurnPercent)))")
        return lines
    }

    // MARK: - text

    package func text(limit: Int) -> String {
        let d = difference
        var out = "old: \(oldLabel) (version \(d.oldVersion))\n"
        out += "new: \(newLabel) (version \(d.newVersion))\n\n"
        out += "table".padded(to: 20) + "old rows".padded(to: 9, right: true) + "new rows".padded(to: 10, right: true) + "added".padded(to: 8, right: true) + "removed".padded(to: 9, right: true) + "changed".padded(to: 9, right: true) + "\n"
        for t in d.tables {
            out += t.shape.name.padded(to: 20) + String(t.oldCount).padded(to: 9, right: true) + String(t.newCount).padded(to: 10, right: true)
                + String(t.added.count).padded(to: 8, right: true) + String(t.removed.count).padded(to: 9, right: true) + String(t.changed.count).padded(to: 9, right: true) + "\n"
        }
        if d.isEmpty {
            return out + "\nsame contents: no row added, removed or changed\n"
        }
        for t in d.tables where !t.isEmpty {
            out += "\n\(t.shape.name): \(tableHeadline(t))\n"
            func list<T>(_ items: [T], _ line: (T) -> String) {
                for item in items.prefix(limit) { out += "  " + printable(line(item)) + "\n" }
                if items.count > limit { out += "  ... and \(items.count - limit) more\n" }
            }
            list(t.added) { "+ \(keyText(t.shape, t.shape.key(of: $0))) \(name(of: $0, in: t.shape, side: .new))" }
            list(t.removed) { "- \(keyText(t.shape, t.shape.key(of: $0))) \(name(of: $0, in: t.shape, side: .old))" }
            list(t.changed) { "~ \(keyText(t.shape, $0.key)) \(name(of: $0.new, in: t.shape, side: .new)): \(changeText(t.shape, $0, arrow: "->"))" }
        }
        out += "\nsummary:\n"
        for line in summaryLines() { out += "  \(printable(line))\n" }
        for w in summary.weightTransitions {
            out += "    weight \(w.old) -> \(w.new): \(Self.plural(w.stations, "station"))\n"
        }
        return out
    }

    // MARK: - markdown

    package func markdown(limit: Int) -> String {
        let d = difference
        func cell(_ s: String) -> String {
            s.markdownCell
        }
        func code(_ s: String) -> String { "`" + s.replacingScalars(["`": "'"]) + "`" }
        var out = "### Station bundle: version \(d.oldVersion) → \(d.newVersion)\n\n"
        out += "old \(code(oldLabel)) · new \(code(newLabel))\n\n"
        out += "| table | old rows | new rows | added | removed | changed |\n|---|---:|---:|---:|---:|---:|\n"
        for t in d.tables {
            out += "| \(t.shape.name) | \(t.oldCount) | \(t.newCount) | \(t.added.count) | \(t.removed.count) | \(t.changed.count) |\n"
        }
        if d.isEmpty {
            return out + "\n**Same contents**: no row added, removed or changed.\n"
        }
        for t in d.tables where !t.isEmpty {
            out += "\n#### \(t.shape.name): \(tableHeadline(t))\n\n"
            guard t.rowChangeCount > 0 else { continue }
            out += "| | key | name | changes |\n|---|---|---|---|\n"
            func rows<T>(_ items: [T], _ sign: String, _ row: (T) -> (key: String, name: String, changes: String)) {
                for item in items.prefix(limit) {
                    let r = row(item)
                    out += "| \(sign) | \(cell(r.key)) | \(cell(r.name)) | \(cell(r.changes)) |\n"
                }
                if items.count > limit { out += "| \(sign) | … and \(items.count - limit) more | | |\n" }
            }
            rows(t.added, "added") { (keyText(t.shape, t.shape.key(of: $0)), name(of: $0, in: t.shape, side: .new), "") }
            rows(t.removed, "removed") { (keyText(t.shape, t.shape.key(of: $0)), name(of: $0, in: t.shape, side: .old), "") }
            rows(t.changed, "changed") { (keyText(t.shape, $0.key), name(of: $0.new, in: t.shape, side: .new), changeText(t.shape, $0, arrow: "→")) }
        }
        out += "\n#### Summary\n\n"
        for line in summaryLines() { out += "- \(cell(line))\n" }
        if !summary.weightTransitions.isEmpty {
            out += "\n| old weight | new weight | stations |\n|---:|---:|---:|\n"
            for w in summary.weightTransitions { out += "| \(w.old) | \(w.new) | \(w.stations) |\n" }
        }
        return out
    }

    // MARK: - sql

    /// The patch to NEW's version, exactly as BuildDB would publish it.
    package func sql() -> String { PatchWriter.patch(from: difference, toVersion: difference.newVersion) }

    // MARK: - json

    /// The JSON document, written as every JSON file of the project is (`jsonDocument`:
    /// keys sorted, two-space indent, a trailing newline):
    ///
    ///     {
    ///       "format": "stationdb-diff", "format_version": 2,
    ///       "old": {"label": "...", "version": 3}, "new": {"label": "...", "version": 4},
    ///       "same": false,
    ///       "tables": [                          // operators, lines, stations, stations_lines,
    ///         {                                  // renumbered_stations: always all five, in this order
    ///           "table": "stations", "key": ["s_id"],
    ///           "old_rows": 9000, "new_rows": 9001,
    ///           "table_added": false, "table_removed": false,
    ///           "added":   [{"key": {"s_id": 300}, "name": "New (Keisei)", "row": {<every column>}}],
    ///           "removed": [{"key": {...}, "name": "...", "row": {...}}],
    ///           "changed": [{"key": {...}, "name": "...",
    ///                        "columns": {"lat": {"old": 35745000, "new": 35745001}, ...},
    ///                        "moved_m": 0.1}]    // stations whose lat/lng changed only
    ///         }, ...
    ///       ],
    ///       "summary": {
    ///         "stations_old": .., "stations_removed": .., "removed_percent": ..,
    ///         "stations_enabled_old": .., "stations_disabled": .., "stations_reenabled": .., "disabled_percent": ..,
    ///         "stations_moved": .., "max_moved_m": ..,            // 0 when none moved
    ///         "stations_live_in_both": .., "weight_churn": .., "weight_churn_percent": ..,
    ///         "weight_changes": [{"old": 11, "new": 12, "stations": 3}, ...]   // by (old, new)
    ///       },
    ///       "guard_violations": ["..."]           // the guards given that were exceeded
    ///     }
    ///
    /// Rows are sorted by key; values are SQL values as JSON (integers, strings, null;
    /// lat/lng stay integer micro-degrees); percentages are rounded to 4 decimals, metres to 1.
    package func json(guardViolations: [String] = []) -> String {
        let d = difference
        var tables: [DiffDocument.Table] = []
        for t in d.tables {
            let shape = t.shape
            func object(_ columns: [String], _ values: [SQLValue]) -> [String: SQLValue] {
                Dictionary(uniqueKeysWithValues: zip(columns, values).map { ($0, $1) })
            }
            func entry(_ row: [SQLValue], side: Side) -> DiffDocument.Row {
                DiffDocument.Row(key: object(shape.key, shape.key(of: row)), name: name(of: row, in: shape, side: side), row: object(shape.columns, row))
            }
            tables.append(DiffDocument.Table(
                table: shape.name, key: shape.key, oldRows: t.oldCount, newRows: t.newCount, tableAdded: t.tableAdded, tableRemoved: t.tableRemoved,
                added: t.added.map { entry($0, side: .new) }, removed: t.removed.map { entry($0, side: .old) },
                changed: t.changed.map { change in
                    DiffDocument.Change(key: object(shape.key, change.key), name: name(of: change.new, in: shape, side: .new),
                                        columns: Dictionary(uniqueKeysWithValues: change.changes.map { ($0.column, DiffDocument.OldNew(old: $0.old, new: $0.new)) }),
                                        movedMetres: shape.name == "stations" ? summary.move(of: change.key.first?.intValue ?? 0).map { Self.rounded($0, 1) } : nil)
                }))
        }
        let s = summary
        let document = DiffDocument(
            old: .init(label: oldLabel, version: d.oldVersion), new: .init(label: newLabel, version: d.newVersion), same: d.isEmpty, tables: tables,
            summary: .init(stationsOld: s.oldStations, stationsRemoved: s.stationsRemoved, removedPercent: Self.rounded(s.removedPercent, 4),
                           stationsEnabledOld: s.oldEnabledStations, stationsDisabled: s.stationsDisabled, stationsReenabled: s.stationsReenabled,
                           disabledPercent: Self.rounded(s.disabledPercent, 4), stationsMoved: s.moves.count,
                           maxMovedMetres: Self.rounded(s.furthestMove?.metres ?? 0, 1), stationsLiveInBoth: s.liveInBoth, weightChurn: s.weightChurn,
                           weightChurnPercent: Self.rounded(s.weightChurnPercent, 4),
                           weightChanges: s.weightTransitions),
            guardViolations: guardViolations)
        // Encoding plain values cannot fail.
        return String(decoding: (try? jsonDocument(document)) ?? [], as: UTF8.self)
    }

    static func rounded(_ value: Double, _ decimals: Int) -> Double {
        let scale = (0..<decimals).reduce(1.0) { v, _ in v * 10 }
        return (value * scale).rounded() / scale
    }
}

/// The diff as JSON (`DiffReport.json`).
struct DiffDocument: Encodable {
    struct Side: Encodable { var label: String, version: Int }
    struct OldNew: Encodable { var old: SQLValue, new: SQLValue }
    struct Row: Encodable { var key: [String: SQLValue], name: String, row: [String: SQLValue] }
    struct Change: Encodable {
        var key: [String: SQLValue], name: String, columns: [String: OldNew], movedMetres: Double?
        enum CodingKeys: String, CodingKey { case key, name, columns, movedMetres = "moved_m" }
    }
    struct Table: Encodable {
        var table: String, key: [String], oldRows: Int, newRows: Int, tableAdded: Bool, tableRemoved: Bool
        var added: [Row], removed: [Row], changed: [Change]
        enum CodingKeys: String, CodingKey {
            case table, key, oldRows = "old_rows", newRows = "new_rows", tableAdded = "table_added", tableRemoved = "table_removed", added, removed, changed
        }
    }
    struct Summary: Encodable {
        var stationsOld: Int, stationsRemoved: Int, removedPercent: Double, stationsEnabledOld: Int, stationsDisabled: Int, stationsReenabled: Int
        var disabledPercent: Double, stationsMoved: Int, maxMovedMetres: Double, stationsLiveInBoth: Int, weightChurn: Int, weightChurnPercent: Double
        var weightChanges: [DiffSummary.WeightTransition]
        enum CodingKeys: String, CodingKey {
            case stationsOld = "stations_old", stationsRemoved = "stations_removed", removedPercent = "removed_percent"
            case stationsEnabledOld = "stations_enabled_old", stationsDisabled = "stations_disabled", stationsReenabled = "stations_reenabled"
            case disabledPercent = "disabled_percent", stationsMoved = "stations_moved", maxMovedMetres = "max_moved_m"
            case stationsLiveInBoth = "stations_live_in_both", weightChurn = "weight_churn", weightChurnPercent = "weight_churn_percent"
            case weightChanges = "weight_changes"
        }
    }

    var format = "stationdb-diff"
    var formatVersion = 2
    var old: Side, new: Side, same: Bool, tables: [Table], summary: Summary, guardViolations: [String]

    enum CodingKeys: String, CodingKey {
        case format, formatVersion = "format_version", old, new, same, tables, summary, guardViolations = "guard_violations"
    }
}

extension SQLValue: Encodable {
    /// As JSON: integers and reals as numbers, text as a string, NULL as null, a blob as its SQL literal.
    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .integer(let i): try c.encode(i)
        case .real(let r): if r.isFinite { try c.encode(r) } else { try c.encodeNil() }
        case .text(let s): try c.encode(s)
        case .blob: try c.encode(sqlLiteral)
        }
    }
}
