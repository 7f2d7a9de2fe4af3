// The values every stage passes on: the bundle's four tables as plain Swift types.
// Coordinates are integer micro-degrees, as in the bundle, so that no stage
// rounds twice.

public struct Operator: Hashable, Sendable {
    public var id: Int            // o_id
    public var name: String       // operator
    public var type: Int          // see OperatorType
    public var enabled: Bool

    public init(id: Int, name: String, type: Int, enabled: Bool = true) {
        self.id = id; self.name = name; self.type = type; self.enabled = enabled
    }
}

/// `operators.type` codes of bundle.md.
public enum OperatorType: Int, CaseIterable, Sendable {
    case jr = 1, majorPrivate = 2, semiMajorPrivate = 3, publicMunicipal = 4
    case thirdSectorOrOther = 5, monorail = 6, guideway = 7, cable = 8, other = 10
}

public struct Line: Hashable, Sendable {
    public var id: Int            // l_id
    public var name: String       // line
    public var operatorID: Int    // o_id
    public var enabled: Bool
    public var type: Int?         // l_type; 1 = Shinkansen

    public init(id: Int, name: String, operatorID: Int, enabled: Bool = true, type: Int? = nil) {
        self.id = id; self.name = name; self.operatorID = operatorID; self.enabled = enabled; self.type = type
    }

    public var isShinkansen: Bool { type == Line.shinkansenType }
    public static let shinkansenType = 1
}

public struct Station: Hashable, Sendable {
    public var id: Int            // s_id
    public var name: String       // station
    public var yomi: String
    public var wiki: String
    public var pref: Int          // 1...47
    public var address: String
    public var lat: Int           // micro-degrees
    public var lng: Int           // micro-degrees
    public var operatorID: Int
    public var enabled: Bool

    public init(id: Int, name: String, yomi: String = "", wiki: String = "", pref: Int, address: String = "",
                lat: Int, lng: Int, operatorID: Int, enabled: Bool = true) {
        self.id = id; self.name = name; self.yomi = yomi; self.wiki = wiki; self.pref = pref
        self.address = address; self.lat = lat; self.lng = lng; self.operatorID = operatorID; self.enabled = enabled
    }
}

public struct StationLine: Hashable, Sendable {
    public var lineID: Int
    public var stationID: Int
    public var sort: Int          // s_sort: the station's place along the line

    public init(lineID: Int, stationID: Int, sort: Int) {
        self.lineID = lineID; self.stationID = stationID; self.sort = sort
    }
}

/// A hand-kept weight (1...10) from raw/weights.csv.
public struct HandWeight: Hashable, Sendable {
    public var stationID: Int
    public var weight: Int
    public var note: String
    public var location: SourceLocation?

    public init(stationID: Int, weight: Int, note: String = "", location: SourceLocation? = nil) {
        self.stationID = stationID; self.weight = weight; self.note = note; self.location = location
    }
}

/// A station that replaced one or more earlier s_ids; clients move users' records.
public struct Renumbering: Hashable, Sendable {
    public var newID: Int
    public var oldID: Int
    public var version: Int

    public init(newID: Int, oldID: Int, version: Int) {
        self.newID = newID; self.oldID = oldID; self.version = version
    }
}

/// The whole network as one value, always kept in key order so that every
/// output derived from it is deterministic.
public struct RailNetwork: Hashable, Sendable {
    public var operators: [Operator]
    public var lines: [Line]
    public var stations: [Station]
    public var stationLines: [StationLine]

    public init(operators: [Operator] = [], lines: [Line] = [], stations: [Station] = [], stationLines: [StationLine] = []) {
        self.operators = operators; self.lines = lines; self.stations = stations; self.stationLines = stationLines
    }

    /// Sorts every table by its key: operators by o_id, lines by l_id,
    /// stations by s_id, stations_lines by (l_id, s_sort, s_id).
    public mutating func sortByKey() {
        operators.sort { $0.id < $1.id }
        lines.sort { $0.id < $1.id }
        stations.sort { $0.id < $1.id }
        stationLines.sort(by: Self.stationLineOrder)
    }

    /// Whether `sortByKey()` would change nothing; reads only. Reads the keys in
    /// place: walking pairs of elements copied every station's strings (a retain
    /// and a release each), which cost as much as writing the staging file.
    public var isSortedByKey: Bool {
        for i in operators.indices.dropFirst() where operators[i].id < operators[i - 1].id { return false }
        for i in lines.indices.dropFirst() where lines[i].id < lines[i - 1].id { return false }
        for i in stations.indices.dropFirst() where stations[i].id < stations[i - 1].id { return false }
        for i in stationLines.indices.dropFirst() where Self.stationLineOrder(stationLines[i], stationLines[i - 1]) { return false }
        return true
    }

    static func stationLineOrder(_ a: StationLine, _ b: StationLine) -> Bool {
        (a.lineID, a.sort, a.stationID) < (b.lineID, b.sort, b.stationID)
    }

    public var liveStations: [Station] { stations.filter(\.enabled) }
}
