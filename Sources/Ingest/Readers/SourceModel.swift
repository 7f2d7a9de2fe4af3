import StationCore

// What each reader produces: one source's view of the network, keyed by that
// source's own external keys. Merging (earlier source wins field by field),
// the ID registry and the fixes turn these into a RailNetwork.
//
// Optional fields are ones a source may not know (N02 has no prefecture or
// reading); a later source fills them in.

package enum SourceKind: String, Codable, Sendable, CaseIterable {
    case native      // our master CSV folder (operators/lines/stations/stations_lines.csv)
    case ekidata     // ekidata.jp CSV folder (company/line/station/join.csv)
    case n02         // N02 railway JPGIS GML file
    case stationDatabase = "station_database"   // the open upstream's release (station/line/register/company.csv)
}

extension SourceKind {
    /// Reads a source of this kind at `path` (its folder; its file for N02) with its reader.
    package func read(_ path: String, label: String) throws -> SourceNetwork {
        switch self {
        case .native: try NativeCSVReader.read(folder: path, label: label)
        case .ekidata: try EkidataReader.read(folder: path, label: label)
        case .stationDatabase: try StationDatabaseReader.read(folder: path, label: label)
        case .n02: try N02Reader.read(path: path, label: label)
        }
    }

    /// The files a source of this kind reads in its folder (none for N02, which is one file).
    package var files: [String] {
        switch self {
        case .native: NativeCSVReader.files
        case .ekidata: EkidataReader.files
        case .stationDatabase: StationDatabaseReader.files
        case .n02: []
        }
    }

    /// The columns each of `files` must have.
    package var requiredColumns: [String: [String]] {
        switch self {
        case .native: NativeCSVReader.requiredColumns
        case .ekidata: EkidataReader.requiredColumns
        case .stationDatabase: StationDatabaseReader.requiredColumns
        case .n02: [:]
        }
    }
}

package struct SourceOperator: Hashable, Sendable {
    /// Unique within the source: "o:12" (native), "ekidata:company:12", "n02:operator:<name>".
    package var key: String
    /// Our o_id when the source defines it (native), else nil and the registry assigns one.
    package var fixedID: Int?
    package var name: String
    /// Other names the source gives the operator (its formal name, 東海旅客鉄道株式会社 for
    /// JR東海), by which another source may know it.
    package var otherNames: [String]
    package var type: Int?
    package var enabled: Bool?
    package var origin: SourceLocation

    package init(key: String, fixedID: Int? = nil, name: String, otherNames: [String] = [], type: Int?, enabled: Bool?, origin: SourceLocation) {
        self.key = key; self.fixedID = fixedID; self.name = name; self.otherNames = otherNames; self.type = type; self.enabled = enabled
        self.origin = origin
    }
}

package struct SourceLine: Hashable, Sendable {
    /// "l:11302" (native), "ekidata:line:11302", "n02:line:<operator>:<line name>".
    package var key: String
    package var fixedID: Int?
    package var name: String
    /// Other names the source gives the line (a formal name), which a registry row may hold.
    package var otherNames: [String]
    package var operatorKey: String
    package var enabled: Bool?
    package var type: Int?          // l_type; 1 Shinkansen
    package var origin: SourceLocation

    package init(key: String, fixedID: Int? = nil, name: String, otherNames: [String] = [], operatorKey: String, enabled: Bool?, type: Int?,
                origin: SourceLocation) {
        self.key = key; self.fixedID = fixedID; self.name = name; self.otherNames = otherNames; self.operatorKey = operatorKey
        self.enabled = enabled; self.type = type; self.origin = origin
    }
}

package struct SourceStation: Hashable, Sendable {
    /// "s:1130101" (native), "ekidata:station:<company_cd>:<station_g_cd>[:shinkansen]", "n02:station:...".
    package var key: String
    /// Keys shared between sources that name the same station: "code:<station_cd>"
    /// for every ekidata station_cd / N02 stationCode the station groups.
    package var matchKeys: [String]
    /// Whether `key` names this station for good, across the source's releases (the
    /// upstream's `id`); a key built from a code the source hands on (ekidata's, N02's)
    /// names it only while the registered row is still this station (IDAssigner).
    package var keyIsIdentity: Bool
    package var fixedID: Int?
    package var name: String
    package var yomi: String?
    package var wiki: String?
    package var pref: Int?
    package var address: String?
    package var lat: Int            // micro-degrees
    package var lng: Int
    package var operatorKey: String
    package var enabled: Bool?
    package var origin: SourceLocation

    package init(key: String, matchKeys: [String] = [], keyIsIdentity: Bool = false, fixedID: Int? = nil, name: String, yomi: String?, wiki: String?,
                pref: Int?, address: String?, lat: Int, lng: Int, operatorKey: String, enabled: Bool?, origin: SourceLocation) {
        self.key = key; self.matchKeys = matchKeys; self.keyIsIdentity = keyIsIdentity; self.fixedID = fixedID; self.name = name; self.yomi = yomi; self.wiki = wiki
        self.pref = pref; self.address = address; self.lat = lat; self.lng = lng; self.operatorKey = operatorKey
        self.enabled = enabled; self.origin = origin
    }
}

package struct SourceStationLine: Hashable, Sendable {
    package var lineKey: String
    package var stationKey: String
    package var sort: Int
    package var origin: SourceLocation

    package init(lineKey: String, stationKey: String, sort: Int, origin: SourceLocation) {
        self.lineKey = lineKey; self.stationKey = stationKey; self.sort = sort; self.origin = origin
    }
}

/// One source, validated on its own (types, ranges, references within it).
/// Arrays are sorted by key so that a re-ordered input file gives the same value.
package struct SourceNetwork: Sendable {
    package var kind: SourceKind
    /// How the source is named in messages and reports, e.g. "raw/ekidata".
    package var label: String
    package var operators: [SourceOperator]
    package var lines: [SourceLine]
    package var stations: [SourceStation]
    package var stationLines: [SourceStationLine]
    /// Values kept as they are but worth a maintainer's look (an unknown code).
    package var warnings: [Diagnostic]

    package init(kind: SourceKind, label: String, operators: [SourceOperator] = [], lines: [SourceLine] = [],
                stations: [SourceStation] = [], stationLines: [SourceStationLine] = [], warnings: [Diagnostic] = []) {
        self.kind = kind; self.label = label; self.operators = operators; self.lines = lines
        self.stations = stations; self.stationLines = stationLines; self.warnings = warnings
    }

    package mutating func sortByKey() {
        operators.sort { $0.key < $1.key }
        lines.sort { $0.key < $1.key }
        stations.sort { $0.key < $1.key }
        stationLines.sort { ($0.lineKey, $0.sort, $0.stationKey) < ($1.lineKey, $1.sort, $1.stationKey) }
    }
}
