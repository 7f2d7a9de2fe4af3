import StationCore

/// A difference ready for a human: the core's BundleDifference, the names that make
/// its rows recognisable, and the figures the guards and the summary are made of.
///
///   DiffReport.make(old: BundleLocation, new: BundleLocation)          what `stationdb diff` prints
///   DiffReport.make(oldPath:newPath:oldLabel:newLabel:)
///   .name(of:in:side:)     "東京 (JR東日本)", "山手線 (JR東日本) / 東京", ...
///   .summary               DiffSummary (removed, disabled, moved, weight changes)
///   .text(limit:) .markdown(limit:) .json(guardViolations:) .sql()    (DiffFormats.swift)
package struct DiffReport: Sendable {
    package var oldLabel: String
    package var newLabel: String
    package var difference: BundleDifference
    package var summary: DiffSummary
    var oldNames: NameBook
    var newNames: NameBook

    package static func make(old: BundleLocation, new: BundleLocation) throws -> DiffReport {
        try make(oldPath: old.databasePath, newPath: new.databasePath, oldLabel: old.label, newLabel: new.label)
    }

    /// `difference`: one already made (a build's, against its baseline), when only the names are to be looked up.
    package static func make(_ difference: BundleDifference? = nil, oldPath: String, newPath: String, oldLabel: String? = nil,
                             newLabel: String? = nil) throws -> DiffReport {
        // One connection for the diff, the summary's count and the names: each open
        // or attach parses a schema again.
        try BundleDifference.namingDamage(oldPath: oldPath, newPath: newPath) {
            let db = try BundleDifference.attach(oldPath: oldPath, newPath: newPath)
            defer { db.close() }
            let difference = try difference ?? BundleDifference.between(attached: db, oldPath: oldPath, newPath: newPath)
            let wanted = NameBook.Wanted(difference)
            return DiffReport(oldLabel: oldLabel ?? oldPath, newLabel: newLabel ?? newPath, difference: difference,
                              summary: DiffSummary(difference: difference),
                              oldNames: try NameBook(database: db, schema: "old_bundle", wanted: wanted),
                              newNames: try NameBook(database: db, schema: "new_bundle", wanted: wanted))
        }
    }

    package enum Side: Sendable { case old, new }

    /// A row's human name: the station, line or operator it is about. Looked up in the
    /// side the row belongs to (old for removed rows, new otherwise), then the other.
    package func name(of row: [SQLValue], in shape: BundleSchema.Table, side: Side) -> String {
        let (first, second) = side == .old ? (oldNames, newNames) : (newNames, oldNames)
        func operatorName(_ id: SQLValue) -> String? { id.intValue.flatMap { first.operators[$0] ?? second.operators[$0] } }
        func lineName(_ id: SQLValue) -> String? {
            guard let id = id.intValue, let line = first.lines[id] ?? second.lines[id] else { return nil }
            return line.name + (operatorName(.integer(Int64(line.operatorID))).map { " (\($0))" } ?? "")
        }
        func stationName(_ id: SQLValue) -> String? { id.intValue.flatMap { first.stations[$0] ?? second.stations[$0] } }
        func column(_ name: String) -> SQLValue {
            shape.columns.firstIndex(of: name).map { row[$0] } ?? .null
        }
        func owned(_ name: SQLValue) -> String {
            let own = name.textValue ?? ""
            return operatorName(column("o_id")).map { "\(own) (\($0))" } ?? own
        }
        switch shape.name {
        case "operators": return column("operator").textValue ?? ""
        case "lines": return owned(column("line"))
        case "stations": return owned(column("station"))
        case "stations_lines":
            return (lineName(column("l_id")) ?? "line \(column("l_id"))") + " / " + (stationName(column("s_id")) ?? "station \(column("s_id"))")
        case "renumbered_stations":
            // The new s_id is named as published now, the old one as it was.
            let newID = column("new_s_id"), oldID = column("old_s_id")
            let newName = newNames.stations[newID.intValue ?? -1] ?? oldNames.stations[newID.intValue ?? -1]
            let oldName = oldNames.stations[oldID.intValue ?? -1] ?? newNames.stations[oldID.intValue ?? -1]
            return (newName ?? "station \(newID)") + " <- " + (oldName ?? "station \(oldID)")
        default: return ""
        }
    }
}

/// Names of the operators, lines and stations a difference mentions, read from one side.
struct NameBook: Sendable {
    var operators: [Int: String] = [:]
    var lines: [Int: (name: String, operatorID: Int)] = [:]
    var stations: [Int: String] = [:]

    /// The ids to look up: every id a differing row refers to.
    struct Wanted {
        var operators = Set<Int>(), lines = Set<Int>(), stations = Set<Int>()

        init(_ difference: BundleDifference) {
            for t in difference.tables {
                let rows = t.added + t.removed + t.changed.flatMap { [$0.old, $0.new] }
                func ids(_ column: String) -> [Int] {
                    guard let i = t.shape.columns.firstIndex(of: column) else { return [] }
                    return rows.compactMap { $0[i].intValue }
                }
                operators.formUnion(ids("o_id"))
                lines.formUnion(ids("l_id"))
                // A stations row carries its own name; only rows that merely refer
                // to a station (stations_lines, renumbered_stations) need it looked up.
                if t.shape.name != "stations" {
                    stations.formUnion(ids("s_id") + ids("new_s_id") + ids("old_s_id"))
                }
            }
        }
    }

    /// `schema` is "main" for a database of its own, or the name a bundle is attached as.
    init(database db: SQLiteDatabase, schema: String = "main", wanted: Wanted) throws {
        var operatorIDs = wanted.operators
        for row in try Self.rows(db, "SELECT l_id, line, o_id FROM \(schema).lines", key: "l_id", ids: wanted.lines) {
            guard let id = row[0].intValue, let o = row[2].intValue else { continue }
            lines[id] = (row[1].textValue ?? "", o)
            operatorIDs.insert(o)
        }
        for row in try Self.rows(db, "SELECT s_id, station FROM \(schema).stations", key: "s_id", ids: wanted.stations) {
            if let id = row[0].intValue { stations[id] = row[1].textValue ?? "" }
        }
        for row in try Self.rows(db, "SELECT o_id, operator FROM \(schema).operators", key: "o_id", ids: operatorIDs) {
            if let id = row[0].intValue { operators[id] = row[1].textValue ?? "" }
        }
    }

    /// Integer ids written into the SQL (they are Ints, so no quoting question), in chunks.
    static func rows(_ db: SQLiteDatabase, _ select: String, key: String, ids: Set<Int>) throws -> [[SQLValue]] {
        let sorted = ids.sorted()
        var out: [[SQLValue]] = []
        var start = 0
        while start < sorted.count {
            let chunk = sorted[start..<min(sorted.count, start + 2_000)]
            out += try db.query("\(select) WHERE \(key) IN (\(chunk.map(String.init).joined(separator: ",")))")
            start += chunk.count
        }
        return out
    }
}

/// The figures a maintainer (and the guards) look at first.
///
/// Definitions, all over the stations table:
/// - removed %       = stations rows removed / stations rows in OLD;
/// - disabled %      = stations going enabled 1 -> 0 / stations with enabled = 1 in OLD;
/// - weight churn %  = live stations whose weight changed / live stations in both,
///                     where live means enabled = 1 in OLD and in NEW;
/// - moved           = a station whose lat or lng changed; its move is the great-circle
///                     distance between the old and new points;
/// - renamed %       = stations whose name changed / stations rows in OLD;
/// - moved far %     = stations moved more than 300 m / stations rows in OLD.
/// A percentage over an empty set is 0.
package struct DiffSummary: Sendable, Equatable {
    package struct WeightTransition: Sendable, Equatable, Encodable {
        package var old: Int
        package var new: Int
        package var stations: Int
        package init(old: Int, new: Int, stations: Int) { self.old = old; self.new = new; self.stations = stations }
    }

    package struct Move: Sendable, Equatable {
        package var stationID: Int
        package var name: String
        package var metres: Double
    }

    package var oldStations = 0
    package var stationsRemoved = 0
    package var oldEnabledStations = 0
    package var stationsDisabled = 0
    /// enabled 0 -> 1 (reported, never guarded).
    package var stationsReenabled = 0
    package var liveInBoth = 0
    package var weightChurn = 0
    /// Every changed station whose weight changed (disabled ones too), by (old, new).
    package var weightTransitions: [WeightTransition] = []
    /// Stations whose position changed, furthest first (then by s_id).
    package var moves: [Move] = []
    /// Stations whose name changed.
    package var stationsRenamed = 0

    /// The same for lines and operators (their IDs never go from a build: PublishedIDs),
    /// and the station-line rows removed, which is how a line empties.
    package var oldLines = 0, linesRemoved = 0, oldEnabledLines = 0, linesDisabled = 0
    package var oldOperators = 0, operatorsRemoved = 0, oldEnabledOperators = 0, operatorsDisabled = 0
    package var oldStationLines = 0, stationLinesRemoved = 0

    package var removedPercent: Double { Self.percent(stationsRemoved, of: oldStations) }
    package var stationLinesRemovedPercent: Double { Self.percent(stationLinesRemoved, of: oldStationLines) }
    package var disabledPercent: Double { Self.percent(stationsDisabled, of: oldEnabledStations) }
    package var weightChurnPercent: Double { Self.percent(weightChurn, of: liveInBoth) }
    package var renamedPercent: Double { Self.percent(stationsRenamed, of: oldStations) }
    /// How far a station may move and still be where it stood: the guards' "moved far" is beyond it.
    package static let samePlaceMetres = IdentityModel.samePlaceMetres
    /// Stations moved further than that.
    package var stationsMovedFar: Int { moves.count { $0.metres > DiffSummary.samePlaceMetres } }
    package var movedFarPercent: Double { Self.percent(stationsMovedFar, of: oldStations) }
    package var weightChanges: Int { weightTransitions.reduce(0) { $0 + $1.stations } }
    package var furthestMove: Move? { moves.first }

    static func percent(_ part: Int, of whole: Int) -> Double { whole == 0 ? 0 : Double(part) * 100 / Double(whole) }

    package init(difference: BundleDifference) {
        oldEnabledStations = difference.oldEnabledStations
        oldEnabledLines = difference.oldEnabledLines
        oldEnabledOperators = difference.oldEnabledOperators
        if let t = difference[BundleSchema.stationsLines.name] { (oldStationLines, stationLinesRemoved) = (t.oldCount, t.removed.count) }
        /// Rows enabled 1 -> 0 in a table with an enabled column.
        func disabled(_ t: TableDiff) -> Int {
            guard let enabled = t.shape.columns.firstIndex(of: "enabled") else { return 0 }
            return t.changed.count { $0.old[enabled].intValue == 1 && $0.new[enabled].intValue != 1 }
        }
        if let t = difference["lines"] { (oldLines, linesRemoved, linesDisabled) = (t.oldCount, t.removed.count, disabled(t)) }
        if let t = difference["operators"] { (oldOperators, operatorsRemoved, operatorsDisabled) = (t.oldCount, t.removed.count, disabled(t)) }
        guard let stations = difference[BundleSchema.stations.name] else { return }
        let columns = stations.shape.columns
        guard let enabled = columns.firstIndex(of: "enabled"), let weight = columns.firstIndex(of: "weight"),
              let lat = columns.firstIndex(of: "lat"), let lng = columns.firstIndex(of: "lng"),
              let name = columns.firstIndex(of: "station") else { return }
        oldStations = stations.oldCount
        stationsRemoved = stations.removed.count

        // Live in both = live in OLD, less the live ones removed or disabled.
        let removedLive = stations.removed.filter { $0[enabled].intValue == 1 }.count
        var transitions: [[Int]: Int] = [:]
        for change in stations.changed {
            let wasLive = change.old[enabled].intValue == 1, isLive = change.new[enabled].intValue == 1
            if wasLive && !isLive { stationsDisabled += 1 }
            if !wasLive && isLive { stationsReenabled += 1 }
            let oldWeight = change.old[weight].intValue ?? 0, newWeight = change.new[weight].intValue ?? 0
            if oldWeight != newWeight {
                transitions[[oldWeight, newWeight], default: 0] += 1
                if wasLive && isLive { weightChurn += 1 }
            }
            if change.old[name] != change.new[name] { stationsRenamed += 1 }
            if change.old[lat] != change.new[lat] || change.old[lng] != change.new[lng] {
                let metres = MicroDegrees.distanceMetres(lat1: change.old[lat].intValue ?? 0, lng1: change.old[lng].intValue ?? 0,
                                                         lat2: change.new[lat].intValue ?? 0, lng2: change.new[lng].intValue ?? 0)
                moves.append(Move(stationID: change.key.first?.intValue ?? 0, name: change.new[name].textValue ?? "", metres: metres))
            }
        }
        liveInBoth = oldEnabledStations - removedLive - stationsDisabled
        weightTransitions = transitions.keys.sorted { ($0[0], $0[1]) < ($1[0], $1[1]) }
            .map { WeightTransition(old: $0[0], new: $0[1], stations: transitions[$0]!) }
        for m in moves { moveByStation[m.stationID] = m.metres }
        moves.sort { $0.metres != $1.metres ? $0.metres > $1.metres : $0.stationID < $1.stationID }
    }

    /// The move of one station, for the row listings.
    package func move(of stationID: Int) -> Double? { moveByStation[stationID] }
    private var moveByStation: [Int: Double] = [:]
}
