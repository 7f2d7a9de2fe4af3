import FoundationEssentials
import Glibc
import StationModel

// raw/fixes.csv: the maintainers' corrections, applied after the sources and
// the IDs, so they survive a fresh download of the sources. Each row must
// match exactly one row of its table; one that matches none or several is an
// error, so a fix made stale by a source update is noticed, not ignored.
//
//   action,table,match,field,value,note
//   set,stations,s_id=2,yomi,とうきょう,reading was missing
//   move,stations,s_id=2,,35.681236 139.767125,platform centre
//   disable,stations,station=旧駅;o_id=3,,,closed in 2024
//   enable,lines,l_id=11302,,,

public struct DataFix: Sendable, Hashable {
    public enum Action: String, Sendable, CaseIterable { case set, move, disable, enable }
    public enum Table: String, Sendable, CaseIterable { case operators, lines, stations }

    public var action: Action
    public var table: Table
    public var match: [(column: String, value: String)]
    public var field: String
    public var value: String
    public var location: SourceLocation

    public static func == (a: DataFix, b: DataFix) -> Bool { a.location == b.location }
    public func hash(into h: inout Hasher) { h.combine(location) }
}

public enum DataFixes {
    public static let fileName = "fixes.csv"

    static let columnsOf: [DataFix.Table: [String]] = [
        .operators: ["o_id", "operator", "type", "enabled"],
        .lines: ["l_id", "line", "o_id", "enabled", "l_type"],
        .stations: ["s_id", "station", "yomi", "wiki", "pref", "address", "lat", "lng", "o_id", "enabled"],
    ]

    public static func read(path: String, label: String) throws -> [DataFix] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let table = try CSVReader.read(path: path, displayName: label)
        try table.require(["action", "table", "match", "field", "value"])
        var problems = DiagnosticCollector()
        var fixes: [DataFix] = []
        for row in table.rows() {
            guard let action = DataFix.Action(rawValue: row.string("action")) else {
                problems.add(row.location("action"), "expected one of set, move, disable, enable, found '\(row.string("action"))'")
                continue
            }
            guard let t = DataFix.Table(rawValue: row.string("table")) else {
                problems.add(row.location("table"), "expected one of operators, lines, stations, found '\(row.string("table"))'")
                continue
            }
            let columns = columnsOf[t]!
            var match: [(String, String)] = []
            for part in row.string("match").split(separator: ";") {
                let kv = part.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace() }
                if kv.count != 2 || !columns.contains(kv[0]) {
                    problems.add(row.location("match"), "expected column=value[;column=value] with columns of \(t.rawValue) (\(columns.joined(separator: ", "))), found '\(part)'")
                    continue
                }
                match.append((kv[0], kv[1]))
            }
            if match.isEmpty { problems.add(row.location("match"), "expected column=value, found nothing"); continue }
            let field = row.string("field").trimmingWhitespace()
            if action == .set, !columns.dropFirst().contains(field) {
                problems.add(row.location("field"), "expected a column of \(t.rawValue) other than its id (\(columns.dropFirst().joined(separator: ", "))), found '\(field)'")
                continue
            }
            if action == .move, t != .stations {
                problems.add(row.location("table"), "move applies to stations only")
                continue
            }
            fixes.append(DataFix(action: action, table: t, match: match, field: field, value: row.string("value"),
                                 location: SourceLocation(file: label, line: row.line)))
        }
        try problems.check()
        return fixes
    }

    /// Applies every fix in file order; collects every problem.
    public static func apply(_ fixes: [DataFix], to network: inout RailNetwork) throws {
        var problems = DiagnosticCollector()
        for fix in fixes {
            let rows: [Int]
            switch fix.table {
            case .operators: rows = network.operators.indices.filter { i in fix.match.allSatisfy { operatorValue(network.operators[i], $0.column) == $0.value } }
            case .lines: rows = network.lines.indices.filter { i in fix.match.allSatisfy { lineValue(network.lines[i], $0.column) == $0.value } }
            case .stations: rows = network.stations.indices.filter { i in fix.match.allSatisfy { stationValue(network.stations[i], $0.column) == $0.value } }
            }
            let matchText = fix.match.map { "\($0.column)=\($0.value)" }.joined(separator: ";")
            guard rows.count == 1, let i = rows.first else {
                problems.add(SourceLocation(file: fix.location.file, line: fix.location.line, field: "match"),
                             rows.isEmpty ? "stale fix: \(matchText) matches no row of \(fix.table.rawValue); update or remove it"
                                          : "ambiguous fix: \(matchText) matches \(rows.count) rows of \(fix.table.rawValue); add a column to the match")
                continue
            }
            do {
                switch (fix.action, fix.table) {
                case (.disable, .operators): network.operators[i].enabled = false
                case (.enable, .operators): network.operators[i].enabled = true
                case (.disable, .lines): network.lines[i].enabled = false
                case (.enable, .lines): network.lines[i].enabled = true
                case (.disable, .stations): network.stations[i].enabled = false
                case (.enable, .stations): network.stations[i].enabled = true
                case (.move, .stations):
                    let parts = fix.value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
                    guard parts.count == 2, let lat = MicroDegrees.parse(parts[0]), let lng = MicroDegrees.parse(parts[1]) else {
                        throw InputError(fieldLocation(fix, "value"), "expected 'lat lng' in decimal degrees, found '\(fix.value)'")
                    }
                    network.stations[i].lat = lat
                    network.stations[i].lng = lng
                case (.set, .operators): try set(&network.operators[i], fix)
                case (.set, .lines): try set(&network.lines[i], fix)
                case (.set, .stations): try set(&network.stations[i], fix)
                case (.move, _): break // rejected when read
                }
            } catch let e as InputError {
                problems.add(e)
            }
        }
        try problems.check()
    }

    private static func fieldLocation(_ fix: DataFix, _ field: String) -> SourceLocation {
        SourceLocation(file: fix.location.file, line: fix.location.line, field: field)
    }

    private static func int(_ fix: DataFix, range: ClosedRange<Int>? = nil) throws -> Int {
        guard let v = Int(fix.value.trimmingWhitespace()) else {
            throw InputError(fieldLocation(fix, "value"), "expected an integer for \(fix.field), found '\(fix.value)'")
        }
        if let range, !range.contains(v) {
            throw InputError(fieldLocation(fix, "value"), "expected \(range.lowerBound)..\(range.upperBound) for \(fix.field), found \(v)")
        }
        return v
    }

    private static func bool(_ fix: DataFix) throws -> Bool { try int(fix, range: 0...1) == 1 }

    private static func set(_ o: inout Operator, _ fix: DataFix) throws {
        switch fix.field {
        case "operator": o.name = fix.value
        case "type": o.type = try int(fix, range: 1...10)
        case "enabled": o.enabled = try bool(fix)
        default: break
        }
    }

    private static func set(_ l: inout Line, _ fix: DataFix) throws {
        switch fix.field {
        case "line": l.name = fix.value
        case "o_id": l.operatorID = try int(fix)
        case "enabled": l.enabled = try bool(fix)
        case "l_type": l.type = fix.value.isEmpty ? nil : try int(fix)
        default: break
        }
    }

    private static func set(_ s: inout Station, _ fix: DataFix) throws {
        switch fix.field {
        case "station": s.name = fix.value
        case "yomi": s.yomi = fix.value
        case "wiki": s.wiki = fix.value
        case "pref": s.pref = try int(fix, range: 1...47)
        case "address": s.address = fix.value
        case "lat", "lng":
            guard let v = MicroDegrees.parse(fix.value.trimmingWhitespace()) else {
                throw InputError(fieldLocation(fix, "value"), "expected decimal degrees for \(fix.field), found '\(fix.value)'")
            }
            if fix.field == "lat" { s.lat = v } else { s.lng = v }
        case "o_id": s.operatorID = try int(fix)
        case "enabled": s.enabled = try bool(fix)
        default: break
        }
    }

    static func operatorValue(_ o: Operator, _ c: String) -> String {
        switch c { case "o_id": return String(o.id); case "operator": return o.name; case "type": return String(o.type); default: return o.enabled ? "1" : "0" }
    }

    static func lineValue(_ l: Line, _ c: String) -> String {
        switch c {
        case "l_id": return String(l.id); case "line": return l.name; case "o_id": return String(l.operatorID)
        case "l_type": return l.type.map(String.init) ?? ""; default: return l.enabled ? "1" : "0"
        }
    }

    static func stationValue(_ s: Station, _ c: String) -> String {
        switch c {
        case "s_id": return String(s.id); case "station": return s.name; case "yomi": return s.yomi; case "wiki": return s.wiki
        case "pref": return String(s.pref); case "address": return s.address
        case "lat": return MicroDegrees.format(s.lat); case "lng": return MicroDegrees.format(s.lng)
        case "o_id": return String(s.operatorID); default: return s.enabled ? "1" : "0"
        }
    }
}
