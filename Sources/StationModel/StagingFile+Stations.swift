import FoundationEssentials
import Glibc

// `stationdb priority` needs only where each station is and whether it is
// live; StagingFile.read builds every String of every table (names, yomi,
// addresses, lines), which was most of the command's time. This reads just
// the stations' four numeric columns into plain arrays.

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
    /// The stations' s_id, lat, lng and enabled, ordered by s_id (the rowid,
    /// so the order costs nothing). Errors as StagingFile.read's.
    public static func readStationPoints(from path: String) throws -> StationPoints {
        guard FileManager.default.fileExists(atPath: path) else {
            throw EnvironmentError("no staging file at \(path); run `stationdb ingest` first")
        }
        do {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            defer { db.close() }
            var points = StationPoints()
            let s = try db.prepare("SELECT s_id, lat, lng, enabled FROM stations ORDER BY s_id")
            while try s.step() { points.append(id: s.int(0), lat: s.int(1), lng: s.int(2), enabled: s.int(3) != 0) }
            return points
        } catch let e as SQLiteError {
            throw EnvironmentError("cannot read the staging file \(path): \(e)")
        }
    }
}
