import FoundationEssentials
import Glibc

// `stationdb priority` needs only where each station is and whether it is
// live; StagingFile.read builds every String of every table (names, yomi,
// addresses, lines). This passes over the strings and keeps just the
// stations' four numeric columns, in plain arrays.

/// The stations of a staging file as parallel arrays, in s_id order.
public struct StationPoints: Sendable, Equatable {
    public var ids: [Int] = []
    public var lat: [Int] = []
    public var lng: [Int] = []
    public var enabled: [Bool] = []

    public init() {}

    public init(stations: [Station]) {
        reserveCapacity(stations.count)
        for s in stations { append(id: s.id, lat: s.lat, lng: s.lng, enabled: s.enabled) }
    }

    public var count: Int { ids.count }

    public mutating func reserveCapacity(_ n: Int) {
        ids.reserveCapacity(n); lat.reserveCapacity(n); lng.reserveCapacity(n); enabled.reserveCapacity(n)
    }

    @inline(__always)
    public mutating func append(id: Int, lat: Int, lng: Int, enabled: Bool) {
        ids.append(id); self.lat.append(lat); self.lng.append(lng); self.enabled.append(enabled)
    }
}

extension StagingFile {
    /// The stations' s_id, lat, lng and enabled, ordered by s_id (as the file
    /// holds them). Errors as StagingFile.read's.
    public static func readStationPoints(from path: String) throws -> StationPoints {
        var file = try open(path)
        let counts = try file.counts()
        for _ in 0..<counts.meta { try file.skipText(); try file.skipText() }
        for _ in 0..<counts.operators { _ = try file.int(); try file.skipText(); _ = try file.int(); _ = try file.flag() }
        for _ in 0..<counts.lines { _ = try file.int(); try file.skipText(); _ = try file.int(); _ = try file.flag(); _ = try file.int() }
        var points = StationPoints()
        points.reserveCapacity(file.plausible(counts.stations, rowBytes: 10))
        for _ in 0..<counts.stations {
            let id = try file.int()
            for _ in 0..<3 { try file.skipText() }      // station, yomi, wiki
            _ = try file.int()                          // pref
            try file.skipText()                         // address
            let lat = try file.int(), lng = try file.int()
            _ = try file.int()                          // o_id
            points.append(id: id, lat: lat, lng: lng, enabled: try file.flag())
        }
        try file.finish(skippingRest: true)
        return points
    }
}
