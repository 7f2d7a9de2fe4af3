import StationCore

// raw/fixes.csv: the maintainers' corrections, applied after the sources and
// the IDs, so they survive a fresh download of the sources. Each row must
// match exactly one row of its table; one that matches none or several is an
// error, so a fix made stale by a source update is noticed, not ignored.
//
//   action,table,match,field,value,expect,note
//   set,stations,s_id=2,yomi,とうきょう,station=東京,reading was missing
//   move,stations,s_id=2,,35.681236 139.767125,station=東京,platform centre
//   disable,stations,station=旧駅;o_id=3,,,,closed in 2024
//   enable,lines,l_id=11302,,,,
//
// `expect` (optional) states what the matched row holds before the fix, so a
// mistyped but existing ID is an error at its line instead of a fix of the
// wrong station. Two fixes that give one field of one row different values
// are an error naming both lines: which one wins must not depend on their order.

package struct DataFix: Sendable, Hashable {
    package enum Action: String, Sendable, CaseIterable { case set, move, disable, enable }
    package enum Table: String, Sendable, CaseIterable { case operators, lines, stations }

    package var action: Action
    package var table: Table
    /// column = value pairs, all of which the row must hold (keys compared without outer blanks).
    package var match: [Match]
    package var field: String
    /// The new value, exactly as the file holds it.
    package var value: String
    /// column = value pairs the matched row must hold before the fix (`expect`).
    package var expect: [Match] = []
    package var location: SourceLocation

    package struct Match: Sendable, Hashable {
        package var column: String
        package var value: String
    }

    package var matchText: String { match.map { "\($0.column)=\($0.value)" }.joined(separator: ";") }
}

package enum DataFixes {
    package static let fileName = "fixes.csv"
    package static let columns = CSVColumns(required: ["action", "table", "match", "field", "value"], optional: ["expect", "note"])

    static let columnsOf: [DataFix.Table: [String]] = [
        .operators: BundleSchema.masterColumns(Operator.schema),
        .lines: BundleSchema.masterColumns(Line.schema),
        .stations: BundleSchema.masterColumns(Station.schema),
    ]

    /// Every fix that reads, and the problems of the rows that do not, each at its line: a
    /// run lists them with what applying the others finds, in file order (IngestPipeline).
    /// A file that cannot be read as a table at all is thrown.
    package static func read(path: String, label: String) throws -> (fixes: [DataFix], problems: [Diagnostic]) {
        guard Files.exists(path) else { return ([], []) }
        let table = try CSVReader.read(path: path, displayName: label)
        if table.header.isEmpty { return ([], []) }
        try table.require(columns)
        let cAction = table.column("action"), cTable = table.column("table"), cMatch = table.column("match")
        let cField = table.column("field"), cValue = table.column("value"), cExpect = table.column("expect")
        // Every row's problems: the run's own collector limits what it lists, and says so.
        var problems = DiagnosticCollector(limit: .max)
        var fixes: [DataFix] = []
        for r in table.records {
            var malformed = false
            let actionText = table.string(r, cAction), tableText = table.string(r, cTable)
            guard let action = DataFix.Action(rawValue: actionText.trimmed()) else {
                problems.add(table.location(r, cAction), "expected one of set, move, disable, enable, found '\(shown(actionText))'")
                continue
            }
            guard let t = DataFix.Table(rawValue: tableText.trimmed()) else {
                problems.add(table.location(r, cTable), "expected one of operators, lines, stations, found '\(shown(tableText))'")
                continue
            }
            let columns = columnsOf[t]!
            /// column=value[;column=value], with columns of the fix's table.
            func pairs(_ column: CSVColumn) -> [DataFix.Match] {
                var out: [DataFix.Match] = []
                for part in table.string(r, column).split(separator: ";") {
                    let kv = part.split(separator: "=", maxSplits: 1).map { String($0).trimmed() }
                    if kv.count != 2 || !columns.contains(kv[0]) {
                        problems.add(table.location(r, column), "expected column=value[;column=value] with columns of \(t.rawValue) (\(columns.joined(separator: ", "))), found '\(shown(String(part)))'")
                        malformed = true
                        continue
                    }
                    out.append(DataFix.Match(column: kv[0], value: kv[1]))
                }
                return out
            }
            let match = pairs(cMatch)
            // A match whose pairs were all malformed was said above; it is not also empty.
            if match.isEmpty {
                if !malformed { problems.add(table.location(r, cMatch), "expected column=value, found nothing") }
                continue
            }
            let expect = pairs(cExpect)
            let field = table.string(r, cField).trimmed()
            if action == .set, !columns.dropFirst().contains(field) {
                problems.add(table.location(r, cField), "expected a column of \(t.rawValue) other than its id (\(columns.dropFirst().joined(separator: ", "))), found '\(shown(field))'")
                continue
            }
            if action == .move, t != .stations {
                problems.add(table.location(r, cTable), "move applies to stations only")
                continue
            }
            // A row with a malformed pair is not applied half understood.
            guard !malformed else { continue }
            fixes.append(DataFix(action: action, table: t, match: match, field: field, value: table.string(r, cValue),
                                 expect: expect, location: table.location(r)))
        }
        return (fixes, problems.diagnostics)
    }


    /// What applying the fixes found worth a maintainer's look.
    package struct Outcome: Sendable {
        /// Fixes that changed nothing: the network already held their value.
        package var unneeded: [DataFix] = []
        /// Fixes that move a station more than a kilometre from where it was published, or
        /// give it another name than it was published under, each at its line and with the
        /// station's s_id: a mistyped ID does exactly that. A fix whose result is published
        /// already is no news.
        package var notable: [(station: Int, diagnostic: Diagnostic)] = []
        /// What each fix that changed a row changed: the reports name the line of fixes.csv
        /// behind a change (StagingMeta.fixes).
        package var applied: [FixedValue] = []
    }

    /// Applies every fix in file order; collects every problem. Rows are found
    /// through an index by the first matched column, so many fixes cost little more than a few.
    /// `published` gives a station as it was last published (the registry's row), if it was.
    @discardableResult
    package static func apply(_ fixes: [DataFix], to network: inout RailNetwork, published: (Int) -> Station? = { _ in nil }) throws -> Outcome {
        var problems = DiagnosticCollector()
        var index = FixIndex()
        var outcome = Outcome()
        struct ClaimKey: Hashable { var table: DataFix.Table, row: Int, column: String }
        var claimed: [ClaimKey: (value: String, location: SourceLocation)] = [:]
        let operatorIDs = Set(network.operators.map(\.id))
        for fix in fixes {
            let rows = index.rows(matching: fix, in: network)
            guard rows.count == 1, let i = rows.first else {
                problems.add(SourceLocation(file: fix.location.file, line: fix.location.line, field: "match"),
                             rows.isEmpty ? "\(fix.matchText) matches no \(fix.table.rawValue.dropLast())\(nearest(fix, in: network)); correct the match (a mistyped ID or name?), or remove the fix if the sources no longer have that row"
                                          : "ambiguous fix: \(fix.matchText) matches \(rows.count) rows of \(fix.table.rawValue); add a column to the match")
                continue
            }
            if let wrong = fix.expect.first(where: { DataFixes.value(fix.table, network, i, $0.column) != $0.value }) {
                let row = fix.expect.map { "\($0.column)=\(shown(DataFixes.value(fix.table, network, i, $0.column)))" }.joined(separator: ";")
                problems.add(SourceLocation(file: fix.location.file, line: fix.location.line, field: "expect"),
                             "\(fix.matchText) is the row with \(row), not \(wrong.column)=\(shown(wrong.value)) as expected; check the match (a mistyped ID?) before anything is fixed")
                continue
            }
            var conflict = false
            for (column, value) in claims(fix) {
                let key = ClaimKey(table: fix.table, row: i, column: column)
                if let earlier = claimed[key], earlier.value != value {
                    problems.add(SourceLocation(file: fix.location.file, line: fix.location.line, field: "value"),
                                 "sets \(column) of \(fix.matchText) to \(shown(value)), but line \(earlier.location.line ?? 0) of \(earlier.location.file) sets it to \(shown(earlier.value)); keep one of the two fixes")
                    conflict = true
                } else if claimed[key] == nil {
                    claimed[key] = (value, fix.location)
                }
            }
            if conflict { continue }
            let before = fix.table == .stations ? network.stations[i] : nil, lineBefore = fix.table == .lines ? network.lines[i] : nil
            do {
                let changed: Bool
                switch fix.table {
                case .operators: changed = try change(&network.operators[i], fix, enabled: \.enabled, set: set)
                case .lines: changed = try change(&network.lines[i], fix, enabled: \.enabled, set: set)
                case .stations: changed = try change(&network.stations[i], fix, enabled: \.enabled, set: set)
                }
                if !changed { outcome.unneeded.append(fix) }
                let id: Int
                switch fix.table {
                case .operators: id = network.operators[i].id
                case .lines: id = network.lines[i].id
                case .stations: id = network.stations[i].id
                }
                if changed {
                    outcome.applied.append(FixedValue(table: fix.table.rawValue, id: id, columns: claims(fix).map(\.0),
                                                      fix: "\(fix.location.file):\(fix.location.line ?? 0)"))
                }
                // What the fix made of the row is checked here, where its line is known,
                // not only with the whole network (which can name no line of fixes.csv).
                switch fix.table {
                case .stations:
                    let s = network.stations[i]
                    if let before {
                        let was = published(s.id) ?? before
                        if before.name != s.name, was.name != s.name {
                            outcome.notable.append((s.id, Diagnostic(fieldLocation(fix, "value"), "renames s_id \(s.id) \(shown(was.name)) to \(shown(s.name))")))
                        }
                        let metres = MicroDegrees.distanceMetres(lat1: was.lat, lng1: was.lng, lat2: s.lat, lng2: s.lng)
                        if before.lat != s.lat || before.lng != s.lng, metres > MicroDegrees.notableMoveMetres {
                            outcome.notable.append((s.id, Diagnostic(fieldLocation(fix, "value"), "moves s_id \(s.id) \(shown(s.name)) \(fixed(metres, decimals: 0)) m, more than \(Int(MicroDegrees.notableMoveMetres)) m: is it the right station?")))
                        }
                    }
                    // A bad result is reported here and not kept, so the whole network's check does not report it again.
                    if !MicroDegrees.inJapan(lat: s.lat, lng: s.lng) {
                        problems.add(fieldLocation(fix, "value"), "moves \(fix.matchText) (\(shown(s.name))) to \(MicroDegrees.format(s.lat)) \(MicroDegrees.format(s.lng)), outside Japan (about 20..46 N, 122..154 E); lat first, then lng")
                        network.stations[i] = before!
                    }
                    if fix.field == "o_id", !operatorIDs.contains(s.operatorID) {
                        problems.add(fieldLocation(fix, "value"), "gives \(fix.matchText) (\(shown(s.name))) operator \(s.operatorID), which does not exist")
                        network.stations[i] = before!
                    }
                case .lines:
                    let l = network.lines[i]
                    if fix.field == "o_id", !operatorIDs.contains(l.operatorID) {
                        problems.add(fieldLocation(fix, "value"), "gives \(fix.matchText) (\(shown(l.name))) operator \(l.operatorID), which does not exist")
                        network.lines[i] = lineBefore!
                    }
                case .operators: break
                }
            } catch let e as StationError where e.kind == .badInput {
                problems.add(e)
            }
            index.changed(fix)
        }
        try problems.check()
        return outcome
    }

    /// What a fix that matches nothing may have meant: the rows nearest its first match,
    /// by number for the table's ID, by spelling for its name ("" for another column).
    static func nearest(_ fix: DataFix, in network: RailNetwork) -> String {
        let (table, first) = (fix.table, fix.match[0])
        let id = columnsOf[table]![0], name = columnsOf[table]![1], rows = 0..<rowCount(table, network)
        let ranked: [Int]
        if first.column == id, let wanted = Int(first.value) {
            ranked = rows.map { (abs((Int(value(table, network, $0, id)) ?? .max) - wanted), $0) }.sorted { $0 < $1 }.prefix(3).map(\.1)
        } else if first.column == name {
            // Letters to add and remove to spell one as the other (CollectionDifference), fewest first.
            let wanted = Array(first.value)
            ranked = rows.map { (Array(value(table, network, $0, name)).difference(from: wanted).count, $0) }.sorted { $0 < $1 }.prefix(3).map(\.1)
        } else {
            return ""
        }
        return ranked.isEmpty ? "" : " (nearest: " + ranked.map { "\(id) \(value(table, network, $0, id)) \(shown(value(table, network, $0, name)))" }.joined(separator: ", ") + ")"
    }

    /// The columns a fix gives a value, with the value as compared between two fixes
    /// (coordinates in micro-degrees, so 35.1 and 35.100000 agree).
    static func claims(_ fix: DataFix) -> [(String, String)] {
        func degrees(_ text: String) -> String { MicroDegrees.parse(text.trimmed()).map(String.init) ?? text }
        switch fix.action {
        case .enable: return [("enabled", "1")]
        case .disable: return [("enabled", "0")]
        case .move:
            let parts = fix.value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
            return parts.count == 2 ? [("lat", degrees(parts[0])), ("lng", degrees(parts[1]))] : [("lat", fix.value), ("lng", fix.value)]
        case .set:
            switch fix.field {
            case "lat", "lng": return [(fix.field, degrees(fix.value))]
            case "station", "yomi", "wiki", "address", "operator", "line": return [(fix.field, fix.value)]
            default: return [(fix.field, fix.value.trimmed())]
            }
        }
    }

    /// Applies one fix to its row; whether the row is any different now.
    private static func change<Row: Equatable>(_ row: inout Row, _ fix: DataFix, enabled: WritableKeyPath<Row, Bool>,
                                               set: (inout Row, DataFix) throws -> Void) throws -> Bool {
        let before = row
        switch fix.action {
        case .disable: row[keyPath: enabled] = false
        case .enable: row[keyPath: enabled] = true
        case .set, .move: try set(&row, fix)   // move is refused when read, but for stations
        }
        return row != before
    }

    private static func move(_ s: inout Station, _ fix: DataFix) throws {
        let parts = fix.value.split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
        guard parts.count == 2, let lat = MicroDegrees.parse(parts[0]), let lng = MicroDegrees.parse(parts[1]) else {
            throw StationError.badInput(fieldLocation(fix, "value"), "expected 'lat lng' in decimal degrees, found '\(shown(fix.value))'")
        }
        s.lat = lat
        s.lng = lng
    }

    private static func fieldLocation(_ fix: DataFix, _ field: String) -> SourceLocation {
        SourceLocation(file: fix.location.file, line: fix.location.line, field: field)
    }

    private static func int(_ fix: DataFix, range: ClosedRange<Int>? = nil) throws -> Int {
        guard let v = Int(fix.value.trimmed()) else {
            throw StationError.badInput(fieldLocation(fix, "value"), "expected an integer for \(fix.field), found '\(shown(fix.value))'")
        }
        if let range, !range.contains(v) {
            throw StationError.badInput(fieldLocation(fix, "value"), "expected \(range.lowerBound)..\(range.upperBound) for \(fix.field), found \(v)")
        }
        return v
    }

    private static func bool(_ fix: DataFix) throws -> Bool { try int(fix, range: 0...1) == 1 }

    /// A name as the readers take one: verbatim, and never empty.
    private static func name(_ fix: DataFix) throws -> String {
        if fix.value.isEmpty { throw StationError.badInput(fieldLocation(fix, "value"), "expected a name for \(fix.field), found nothing") }
        return fix.value
    }

    private static func set(_ o: inout Operator, _ fix: DataFix) throws {
        switch fix.field {
        case "operator": o.name = try name(fix)
        case "type": o.type = try int(fix, range: OperatorType.valid)
        case "enabled": o.enabled = try bool(fix)
        default: break
        }
    }

    private static func set(_ l: inout Line, _ fix: DataFix) throws {
        switch fix.field {
        case "line": l.name = try name(fix)
        case "o_id": l.operatorID = try int(fix)
        case "enabled": l.enabled = try bool(fix)
        case "l_type": l.type = fix.value.isEmpty ? nil : try int(fix, range: LineType.valid)
        default: break
        }
    }

    private static func set(_ s: inout Station, _ fix: DataFix) throws {
        if fix.action == .move { return try move(&s, fix) }
        switch fix.field {
        case "station": s.name = try name(fix)
        case "yomi": s.yomi = fix.value
        case "wiki": s.wiki = fix.value
        case "pref": s.pref = try int(fix, range: 1...47)
        case "address": s.address = fix.value
        case "lat", "lng":
            guard let v = MicroDegrees.parse(fix.value.trimmed()) else {
                throw StationError.badInput(fieldLocation(fix, "value"), "expected decimal degrees for \(fix.field), found '\(shown(fix.value))'")
            }
            if fix.field == "lat" { s.lat = v } else { s.lng = v }
        case "o_id": s.operatorID = try int(fix)
        case "enabled": s.enabled = try bool(fix)
        default: break
        }
    }

    /// A column's value as a fix matches it: as a master CSV holds it (coordinates in decimal degrees).
    static func value(_ table: DataFix.Table, _ network: RailNetwork, _ i: Int, _ column: String) -> String {
        func field<Row: MasterRow>(_ row: Row) -> String {
            BundleSchema.masterColumns(Row.schema).firstIndex(of: column).map { row.masterFields[$0] } ?? ""
        }
        switch table {
        case .operators: return field(network.operators[i])
        case .lines: return field(network.lines[i])
        case .stations: return field(network.stations[i])
        }
    }

    static func rowCount(_ table: DataFix.Table, _ network: RailNetwork) -> Int {
        switch table {
        case .operators: return network.operators.count
        case .lines: return network.lines.count
        case .stations: return network.stations.count
        }
    }
}

/// Each table's rows by the value of a column, made when a fix first matches
/// on that column and dropped when a fix changes it.
struct FixIndex {
    private var rowsByValue: [String: [String: [Int]]] = [:]

    mutating func rows(matching fix: DataFix, in network: RailNetwork) -> [Int] {
        let first = fix.match[0]
        let name = fix.table.rawValue + "." + first.column
        if rowsByValue[name] == nil {
            var byValue: [String: [Int]] = [:]
            for i in 0..<DataFixes.rowCount(fix.table, network) {
                byValue[DataFixes.value(fix.table, network, i, first.column), default: []].append(i)
            }
            rowsByValue[name] = byValue
        }
        return (rowsByValue[name]![first.value] ?? []).filter { i in
            fix.match.dropFirst().allSatisfy { DataFixes.value(fix.table, network, i, $0.column) == $0.value }
        }
    }

    /// Forgets the index of every column the fix may have changed.
    mutating func changed(_ fix: DataFix) {
        let columns: [String]
        switch fix.action {
        case .set: columns = [fix.field]
        case .move: columns = ["lat", "lng"]
        case .enable, .disable: columns = ["enabled"]
        }
        for c in columns { rowsByValue[fix.table.rawValue + "." + c] = nil }
    }
}
