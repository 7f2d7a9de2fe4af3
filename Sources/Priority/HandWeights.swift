import FoundationEssentials
import Glibc
import StationModel

// The maintainers' picks (raw/weights.csv: s_id, weight 1..10, optional note):
// Shinkansen stations, line ends, junctions, town gateways. They outrank every
// machine weight, so a wrong row changes what every user sees: reject it.

public enum HandWeights {
    public static let range = 1...10

    /// Reads and checks the hand weights against the network. Every problem is
    /// reported at once (exit 2): a malformed or unknown s_id, a weight outside
    /// 1..10, a station listed twice. A weight on a disabled station is kept
    /// but warned about, since a maintainer may be preparing its return.
    /// `label` is the name messages use (e.g. "raw/weights.csv").
    public static func read(path: String, label: String? = nil, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [String]) {
        let table = try CSVReader.read(path: path, displayName: label ?? path)
        return try check(table, network: network)
    }

    public static func parse(_ text: String, label: String, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [String]) {
        try check(CSVReader.parse(text, file: label), network: network)
    }

    /// The same check against the stations' s_ids and enabled flags alone.
    public static func read(path: String, label: String? = nil, points: StationPoints) throws -> (weights: [HandWeight], warnings: [String]) {
        let table = try CSVReader.read(path: path, displayName: label ?? path)
        return try check(table, ids: points.ids, enabled: points.enabled)
    }

    static func check(_ table: CSVTable, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [String]) {
        try check(table, ids: network.stations.map(\.id), enabled: network.stations.map(\.enabled))
    }

    static func check(_ table: CSVTable, ids: [Int], enabled isLive: [Bool]) throws -> (weights: [HandWeight], warnings: [String]) {
        if table.header.isEmpty { return ([], []) }   // an empty file: no picks yet
        try table.require(["s_id", "weight"])
        var enabled: [Int: Bool] = [:]
        enabled.reserveCapacity(ids.count)
        for i in ids.indices { enabled[ids[i]] = isLive[i] }

        var problems = DiagnosticCollector()
        var warnings: [String] = []
        var firstLine: [Int: Int] = [:]
        var weights: [HandWeight] = []
        for row in table.rows() {
            let id = row.int("s_id", &problems)
            let weight = row.int("weight", &problems, range: range)
            guard let id else { continue }
            if let first = firstLine[id] {
                problems.add(row.location("s_id"), "station \(id) is listed twice (first on line \(first))")
                continue
            }
            firstLine[id] = row.line
            guard let isEnabled = enabled[id] else {
                problems.add(row.location("s_id"), "no station with s_id \(id) in the network")
                continue
            }
            guard let weight else { continue }
            if !isEnabled {
                warnings.append("warning: \(row.location("s_id")): station \(id) is disabled; its hand weight \(weight) is kept but not shown")
            }
            weights.append(HandWeight(stationID: id, weight: weight, note: row.string("note"),
                                      location: SourceLocation(file: table.file, line: row.line)))
        }
        try problems.check()
        weights.sort { $0.stationID < $1.stationID }
        return (weights, warnings)
    }
}
