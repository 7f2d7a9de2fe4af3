import StationIO
import StationModel

/// The output formats of `stationdb diff`.
public enum DiffFormat: String, CaseIterable, Sendable {
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
    public func render(_ format: DiffFormat, limit: Int, guardViolations: [String] = []) -> String {
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
        if case .text(let s) = value { return quoted(s) }
        return plain(value)
    }

    static func plain(_ value: SQLValue) -> String {
        if case .text(let s) = value { return quoted(s) }
        return value.description
    }

    static func quoted(_ s: String) -> String { DiffJSON.quoted(s) }

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

    public func text(limit: Int) -> String {
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
                for item in items.prefix(limit) { out += "  " + line(item) + "\n" }
                if items.count > limit { out += "  ... and \(items.count - limit) more\n" }
            }
            list(t.added) { "+ \(keyText(t.shape, t.shape.key(of: $0))) \(name(of: $0, in: t.shape, side: .new))" }
            list(t.removed) { "- \(keyText(t.shape, t.shape.key(of: $0))) \(name(of: $0, in: t.shape, side: .old))" }
            list(t.changed) { "~ \(keyText(t.shape, $0.key)) \(name(of: $0.new, in: t.shape, side: .new)): \(changeText(t.shape, $0, arrow: "->"))" }
        }
        out += "\nsummary:\n"
        for line in summaryLines() { out += "  \(line)\n" }
        for w in summary.weightTransitions {
            out += "    weight \(w.old) -> \(w.new): \(Self.plural(w.stations, "station"))\n"
        }
        return out
    }

    // MARK: - markdown

    public func markdown(limit: Int) -> String {
        let d = difference
        func cell(_ s: String) -> String {
            replacing(s, ["\\": "\\\\", "|": "\\|", "\r": " ", "\n": " "])
        }
        func code(_ s: String) -> String { "`" + replacing(s, ["`": "'"]) + "`" }
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
    public func sql() -> String { PatchWriter.patch(from: difference, toVersion: difference.newVersion) }

    // MARK: - json

    /// Deterministic JSON (fixed member order, two-space indent, trailing newline):
    ///
    ///     {
    ///       "format": "stationdb-diff", "format_version": 1,
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
    /// lat/lng stay integer micro-degrees); percentages have 4 decimals, metres 1.
    public func json(guardViolations: [String] = []) -> String {
        let d = difference
        func value(_ v: SQLValue) -> DiffJSON {
            switch v {
            case .null: return .null
            case .integer(let i): return .number(String(i))
            case .real(let r): return r.isFinite ? .number("\(r)") : .null
            case .text(let s): return .string(s)
            case .blob(let b): return .string(SQLValue.blob(b).sqlLiteral)
            }
        }
        func object(_ columns: [String], _ values: [SQLValue]) -> DiffJSON { .object(zip(columns, values).map { ($0, value($1)) }) }
        var tables: [DiffJSON] = []
        for t in d.tables {
            let shape = t.shape
            func rowEntry(_ row: [SQLValue], side: Side) -> DiffJSON {
                .object([("key", object(shape.key, shape.key(of: row))), ("name", .string(name(of: row, in: shape, side: side))),
                         ("row", object(shape.columns, row))])
            }
            let changed: [DiffJSON] = t.changed.map { change in
                var members: [(String, DiffJSON)] = [
                    ("key", object(shape.key, change.key)),
                    ("name", .string(name(of: change.new, in: shape, side: .new))),
                    ("columns", .object(change.changes.map { ($0.column, .object([("old", value($0.old)), ("new", value($0.new))])) })),
                ]
                if shape.name == "stations", let metres = summary.move(of: change.key.first?.intValue ?? 0) {
                    members.append(("moved_m", .fixed(metres, decimals: 1)))
                }
                return .object(members)
            }
            tables.append(.object([
                ("table", .string(shape.name)),
                ("key", .array(shape.key.map { .string($0) })),
                ("old_rows", .int(t.oldCount)), ("new_rows", .int(t.newCount)),
                ("table_added", .bool(t.tableAdded)), ("table_removed", .bool(t.tableRemoved)),
                ("added", .array(t.added.map { rowEntry($0, side: .new) })),
                ("removed", .array(t.removed.map { rowEntry($0, side: .old) })),
                ("changed", .array(changed)),
            ]))
        }
        let s = summary
        let summaryJSON = DiffJSON.object([
            ("stations_old", .int(s.oldStations)), ("stations_removed", .int(s.stationsRemoved)),
            ("removed_percent", .fixed(s.removedPercent, decimals: 4)),
            ("stations_enabled_old", .int(s.oldEnabledStations)), ("stations_disabled", .int(s.stationsDisabled)),
            ("stations_reenabled", .int(s.stationsReenabled)), ("disabled_percent", .fixed(s.disabledPercent, decimals: 4)),
            ("stations_moved", .int(s.moves.count)), ("max_moved_m", .fixed(s.furthestMove?.metres ?? 0, decimals: 1)),
            ("stations_live_in_both", .int(s.liveInBoth)), ("weight_churn", .int(s.weightChurn)),
            ("weight_churn_percent", .fixed(s.weightChurnPercent, decimals: 4)),
            ("weight_changes", .array(s.weightTransitions.map {
                .object([("old", .int($0.old)), ("new", .int($0.new)), ("stations", .int($0.stations))])
            })),
        ])
        let root = DiffJSON.object([
            ("format", .string("stationdb-diff")), ("format_version", .int(1)),
            ("old", .object([("label", .string(oldLabel)), ("version", .int(d.oldVersion))])),
            ("new", .object([("label", .string(newLabel)), ("version", .int(d.newVersion))])),
            ("same", .bool(d.isEmpty)),
            ("tables", .array(tables)),
            ("summary", summaryJSON),
            ("guard_violations", .array(guardViolations.map { .string($0) })),
        ])
        return root.text
    }
}

/// Every occurrence of each key (one scalar) replaced by its value.
func replacing(_ s: String, _ replacements: [Unicode.Scalar: String]) -> String {
    var out = ""
    for c in s.unicodeScalars {
        if let r = replacements[c] { out += r } else { out.unicodeScalars.append(c) }
    }
    return out
}

/// The diff's JSON document, written here rather than through JSONEncoder so its
/// members keep the documented order and percentages their fixed decimals.
indirect enum DiffJSON {
    case null
    case bool(Bool)
    /// Already spelled as a JSON number.
    case number(String)
    case string(String)
    case array([DiffJSON])
    case object([(String, DiffJSON)])

    static func int(_ v: Int) -> DiffJSON { .number(String(v)) }
    static func fixed(_ v: Double, decimals: Int) -> DiffJSON { .number(StationIO.fixed(v, decimals: decimals)) }

    /// A JSON string literal.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The document: two-space indent and a trailing newline.
    var text: String {
        var out = ""
        write(to: &out, indent: "")
        return out + "\n"
    }

    func write(to out: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): out += Self.quoted(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.write(to: &out, indent: inner)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{\n"
            for (i, (key, value)) in members.enumerated() {
                out += inner + Self.quoted(key) + ": "
                value.write(to: &out, indent: inner)
                out += i + 1 < members.count ? ",\n" : "\n"
            }
            out += indent + "}"
        }
    }
}
