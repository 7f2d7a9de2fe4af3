
// The values every stage passes on: the bundle's four tables as plain Swift
// types. Coordinates are integer micro-degrees, as in the bundle, so no stage
// rounds twice. Text is kept exactly as the source holds it.

package struct Operator: Hashable, Sendable {
    package var id: Int            // o_id
    package var name: String       // operator
    package var type: Int          // see OperatorType
    package var enabled: Bool

    package init(id: Int, name: String, type: Int, enabled: Bool = true) {
        self.id = id; self.name = name; self.type = type; self.enabled = enabled
    }
}

/// `operators.type`: a small positive integer from the master. The clients group
/// by it and show whatever the master says, so the list is open: a code not
/// listed here is worth a warning, not a refusal (bundle.md).
package enum OperatorType {
    package static let jr = 1, majorPrivate = 2, semiMajorPrivate = 3, publicMunicipal = 4
    package static let thirdSectorOrOther = 5, monorail = 6, guideway = 7, cable = 8, trolleybus = 9, other = 10

    /// The codes seen in real bundles.
    package static let known: [Int: String] = [
        1: "JR", 2: "major private", 3: "semi-major private", 4: "package (municipal)", 5: "third sector and other private",
        6: "monorail", 7: "guideway transit", 8: "cable car/funicular", 9: "trolleybus", 10: "other (maglev and similar)",
    ]
    /// What a code must be: a small positive integer.
    package static let valid = 1...99
}

/// `lines.l_type`: 1 for Shinkansen (bundle.md); masters carry ekidata's line
/// types for the rest (0 other, 2 conventional, 3 subway, 4 tram, 5 monorail
/// or guideway). Open like the operator types.
package enum LineType {
    package static let shinkansen = 1
    package static let known: [Int: String] = [0: "other", 1: "Shinkansen", 2: "conventional", 3: "subway", 4: "tram", 5: "monorail or guideway"]
    package static let valid = 0...99
}

package struct Line: Hashable, Sendable {
    package var id: Int            // l_id
    package var name: String       // line
    package var operatorID: Int    // o_id
    package var enabled: Bool
    package var type: Int?         // l_type

    package init(id: Int, name: String, operatorID: Int, enabled: Bool = true, type: Int? = nil) {
        self.id = id; self.name = name; self.operatorID = operatorID; self.enabled = enabled; self.type = type
    }

    package var isShinkansen: Bool { type == LineType.shinkansen }
}

package struct Station: Hashable, Sendable {
    package var id: Int            // s_id
    package var name: String       // station
    package var yomi: String
    package var wiki: String
    package var pref: Int          // 1...47
    package var address: String
    package var lat: Int           // micro-degrees
    package var lng: Int           // micro-degrees
    package var operatorID: Int
    package var enabled: Bool

    package init(id: Int, name: String, yomi: String = "", wiki: String = "", pref: Int, address: String = "",
                lat: Int, lng: Int, operatorID: Int, enabled: Bool = true) {
        self.id = id; self.name = name; self.yomi = yomi; self.wiki = wiki; self.pref = pref
        self.address = address; self.lat = lat; self.lng = lng; self.operatorID = operatorID; self.enabled = enabled
    }
}

package struct StationLine: Hashable, Sendable {
    package var lineID: Int
    package var stationID: Int
    package var sort: Int          // s_sort: the station's place along the line

    package init(lineID: Int, stationID: Int, sort: Int) {
        self.lineID = lineID; self.stationID = stationID; self.sort = sort
    }
}

/// A hand-kept weight (1...10) from raw/weights.csv.
package struct HandWeight: Hashable, Sendable {
    package var stationID: Int
    package var weight: Int
    package var note: String
    package var location: SourceLocation?

    package init(stationID: Int, weight: Int, note: String = "", location: SourceLocation? = nil) {
        self.stationID = stationID; self.weight = weight; self.note = note; self.location = location
    }
}

/// A station that replaced an earlier s_id; clients move users' records.
package struct Renumbering: Hashable, Sendable {
    package var newID: Int
    package var oldID: Int
    package var version: Int

    package init(newID: Int, oldID: Int, version: Int) {
        self.newID = newID; self.oldID = oldID; self.version = version
    }
}

/// The whole network as one value, kept in key order so that every output
/// derived from it is deterministic.
package struct RailNetwork: Hashable, Sendable {
    package var operators: [Operator]
    package var lines: [Line]
    package var stations: [Station]
    package var stationLines: [StationLine]

    package init(operators: [Operator] = [], lines: [Line] = [], stations: [Station] = [], stationLines: [StationLine] = []) {
        self.operators = operators; self.lines = lines; self.stations = stations; self.stationLines = stationLines
    }

    /// Operators by o_id, lines by l_id, stations by s_id, stations_lines by
    /// (l_id, s_sort, s_id): each line's stations in order along it.
    /// A table already in order is left alone, so a network shared with another
    /// value stays shared (the staging file sorts what it is given).
    package mutating func sortByKey() {
        operators.sortIfNeeded { $0.id < $1.id }
        lines.sortIfNeeded { $0.id < $1.id }
        stations.sortIfNeeded { $0.id < $1.id }
        stationLines.sortIfNeeded { ($0.lineID, $0.sort, $0.stationID) < ($1.lineID, $1.sort, $1.stationID) }
    }

    package var liveStations: [Station] { stations.filter(\.enabled) }

    /// Enabled lines on which no enabled station lies: the apps would list a line
    /// that opens onto nothing. A real master disables its empty lines.
    package var liveLinesWithoutStations: [Line] {
        let live = Set(stations.lazy.filter(\.enabled).map(\.id))
        let served = Set(stationLines.lazy.filter { live.contains($0.stationID) }.map(\.lineID))
        return lines.filter { $0.enabled && !served.contains($0.id) }
    }

    /// Enabled operators none of whose lines is enabled: the apps would list an operator with
    /// nothing under it (its last line closed, or passed to another operator).
    package var liveOperatorsWithoutLines: [Operator] {
        let running = Set(lines.lazy.filter(\.enabled).map(\.operatorID))
        return operators.filter { $0.enabled && !running.contains($0.id) }
    }

    /// What would break the clients, all at once: an ID used twice, a reference
    /// to nothing, a prefecture outside 1..47, a point outside Japan, a code that
    /// is not a small integer, a station twice on one line. `place` names where
    /// the network came from in the messages.
    package func validate(_ problems: inout DiagnosticCollector, place: String) {
        let here = SourceLocation(file: place)
        var operatorIDs = Set<Int>(minimumCapacity: operators.count), lineIDs = Set<Int>(minimumCapacity: lines.count)
        var stationIDs = Set<Int>(minimumCapacity: stations.count)
        for o in operators {
            if !operatorIDs.insert(o.id).inserted { problems.add(here, "operator \(o.id) \(shown(o.name)): o_id used twice; expected each once") }
            if !OperatorType.valid.contains(o.type) {
                problems.add(here, "operator \(o.id) \(shown(o.name)): type \(o.type) is not an operator type code (\(OperatorType.valid.lowerBound)..\(OperatorType.valid.upperBound))")
            }
        }
        for l in lines {
            if !lineIDs.insert(l.id).inserted { problems.add(here, "line \(l.id) \(shown(l.name)): l_id used twice; expected each once") }
            if !operatorIDs.contains(l.operatorID) { problems.add(here, "line \(l.id) \(shown(l.name)) names operator \(l.operatorID), which does not exist") }
            if let t = l.type, !LineType.valid.contains(t) {
                problems.add(here, "line \(l.id) \(shown(l.name)): l_type \(t) is not a line type code (\(LineType.valid.lowerBound)..\(LineType.valid.upperBound))")
            }
        }
        for s in stations {
            if !stationIDs.insert(s.id).inserted { problems.add(here, "station \(s.id) \(shown(s.name)): s_id used twice; expected each once") }
            if !operatorIDs.contains(s.operatorID) { problems.add(here, "station \(s.id) \(shown(s.name)) names operator \(s.operatorID), which does not exist") }
            if !(1...47).contains(s.pref) { problems.add(here, "station \(s.id) \(shown(s.name)): pref expected 1..47, found \(s.pref)") }
            if !MicroDegrees.inJapan(lat: s.lat, lng: s.lng) {
                problems.add(here, "station \(s.id) \(shown(s.name)): coordinates \(MicroDegrees.format(s.lat)),\(MicroDegrees.format(s.lng)) lie outside Japan")
            }
        }
        // Text reaches the bundle byte for byte or not at all: SQLite's text binding ends a
        // value at its first NUL (`ab\0cd` was published as `ab`). The CSV reader refuses a
        // NUL at its line; this catches one from anywhere else (a staging file, a library caller).
        func noNUL(_ what: @autoclosure () -> String, _ field: String, _ value: String) {
            if value.utf8.contains(0) { problems.add(here, "\(what()): \(field) holds a NUL byte (0x00), which would cut it in the bundle; expected text without one") }
        }
        for o in operators { noNUL("operator \(o.id)", "operator", o.name) }
        for l in lines { noNUL("line \(l.id)", "line", l.name) }
        for s in stations {
            noNUL("station \(s.id)", "station", s.name)
            noNUL("station \(s.id)", "yomi", s.yomi)
            noNUL("station \(s.id)", "wiki", s.wiki)
            noNUL("station \(s.id)", "address", s.address)
        }
        struct Pair: Hashable { var line: Int, station: Int }
        var pairs = Set<Pair>(minimumCapacity: stationLines.count)
        for x in stationLines {
            if !lineIDs.contains(x.lineID) {
                problems.add(here, "stations_lines row (l_id \(x.lineID), s_id \(x.stationID)) names line \(x.lineID), which does not exist")
            }
            if !stationIDs.contains(x.stationID) {
                problems.add(here, "stations_lines row (l_id \(x.lineID), s_id \(x.stationID)) names station \(x.stationID), which does not exist")
            }
            if !pairs.insert(Pair(line: x.lineID, station: x.stationID)).inserted {
                problems.add(here, "stations_lines row (l_id \(x.lineID), s_id \(x.stationID)) appears twice; expected each station once per line")
            }
        }
    }
}

extension Array {
    mutating func sortIfNeeded(by areInIncreasingOrder: (Element, Element) -> Bool) {
        if zip(self, dropFirst()).contains(where: { areInIncreasingOrder($1, $0) }) { sort(by: areInIncreasingOrder) }
    }
}
