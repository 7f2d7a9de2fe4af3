import FoundationEssentials
import Glibc

// The staging file is where Ingest hands over to Priority and BuildDB: an
// SQLite file with the bundle's tables (no weights yet) and a meta table of
// source digests. It is written to a temporary name and renamed.

public struct Staging: Sendable {
    public var network: RailNetwork
    /// Key-ordered facts about the run that made it, e.g. "source:raw/ekidata/station.csv" -> sha256.
    public var meta: [String: String]

    public init(network: RailNetwork, meta: [String: String] = [:]) {
        self.network = network; self.meta = meta
    }
}

public enum StagingFile {
    public static let defaultName = "staging.sqlite"

    static let schema = [
        "PRAGMA page_size = 4096",
        "CREATE TABLE operators (o_id INTEGER PRIMARY KEY NOT NULL, operator TEXT NOT NULL, type INTEGER NOT NULL, enabled INTEGER NOT NULL)",
        "CREATE TABLE lines (l_id INTEGER PRIMARY KEY NOT NULL, line TEXT NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL, l_type INTEGER)",
        "CREATE TABLE stations (s_id INTEGER PRIMARY KEY NOT NULL, station TEXT NOT NULL, yomi TEXT NOT NULL, wiki TEXT NOT NULL, pref INTEGER NOT NULL, address TEXT NOT NULL, lat INTEGER NOT NULL, lng INTEGER NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL)",
        "CREATE TABLE stations_lines (l_id INTEGER NOT NULL, s_id INTEGER NOT NULL, s_sort INTEGER NOT NULL, PRIMARY KEY (l_id, s_id)) WITHOUT ROWID",
        "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID",
    ]

    /// Writes to a temporary file, runs `beforeCommit` (e.g. writing a file
    /// that must be older than this one) and renames it into place; a failure
    /// anywhere leaves the previous file as it was.
    public static func write(_ staging: Staging, to path: String, beforeCommit: () throws -> Void = {}) throws {
        // Sorted here only when it is not already (as Ingest hands it over): sorting
        // in place would first copy every array the caller still holds.
        var network = staging.network
        if !network.isSortedByKey { network.sortByKey() }
        try AtomicFile.createParent(of: path)
        let tmp = AtomicFile.temporaryPath(for: path)
        unlink(tmp)
        do {
            let db = try SQLiteDatabase(path: tmp, mode: .create)
            try db.execute("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            for s in schema { try db.execute(s) }
            try db.transaction {
                // Bound column by column, many rows per step (SQLite+Network): an array
                // of values per row cost as much as SQLite's own work for these 30,000 rows.
                try db.insert(network.operators)
                try db.insert(network.lines)
                try db.insert(network.stations)
                // In the table's key order (l_id, s_id): appending to a b-tree is its
                // cheapest insert. Readers put the rows in s_sort order (readAllButStations).
                try db.insert(network.stationLines.sorted { ($0.lineID, $0.stationID) < ($1.lineID, $1.stationID) })
                let me = try db.prepare("INSERT INTO meta VALUES (?,?)")
                for key in staging.meta.keys.sorted() { try me.run([.text(key), .text(staging.meta[key]!)]) }
            }
            db.close()
            try beforeCommit()
            try AtomicFile.commit(temporary: tmp, to: path)
        } catch let e as SQLiteError {
            unlink(tmp)
            throw EnvironmentError("cannot write the staging file \(path): \(e)")
        } catch {
            unlink(tmp)
            throw error
        }
    }

    public static func read(from path: String) throws -> Staging {
        guard FileManager.default.fileExists(atPath: path) else {
            throw EnvironmentError("no staging file at \(path); run `stationdb ingest` first")
        }
        do {
            // Two connections on two threads: this one reads the stations below the
            // middle s_id, the other the tables but stations, then the stations from
            // the middle up (the stations are most of the file, the rest is cheap).
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            defer { db.close() }
            let range = try db.prepare("SELECT min(s_id), max(s_id) FROM stations")
            // Any middle is correct (every station is below it or not); this one halves evenly spread ids.
            let middle = try range.step() ? (range.optionalInt(0) ?? 0) / 2 + (range.optionalInt(1) ?? 0) / 2 : 0
            let rest = Background { () throws -> (RailNetwork, [String: String], [Station]) in
                let other = try SQLiteDatabase(path: path, mode: .readOnly)
                defer { other.close() }
                let (network, meta) = try readAllButStations(other)
                return (network, meta, try readStations(other, from: middle, below: nil))
            }
            let lower = Result { try readStations(db, from: Int.min, below: middle) }
            var (n, meta, upper) = try rest.value()
            n.stations = try lower.get()
            n.stations.append(contentsOf: upper)
            return Staging(network: n, meta: meta)
        } catch let e as SQLiteError {
            throw EnvironmentError("cannot read the staging file \(path): \(e)")
        }
    }

    /// Operators, lines, stations_lines and meta: everything but the stations.
    /// The stations with s_id >= from (and < below, when given), in s_id order.
    private static func readStations(_ db: SQLiteDatabase, from: Int, below: Int?) throws -> [Station] {
        var stations: [Station] = []
        let s = try db.prepare("SELECT s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled FROM stations WHERE s_id >= ?"
                               + (below == nil ? "" : " AND s_id < ?") + " ORDER BY s_id")
        try s.bind(from, at: 1)
        if let below { try s.bind(below, at: 2) }
        while try s.step() {
            stations.append(Station(id: s.int(0), name: s.text(1), yomi: s.text(2), wiki: s.text(3), pref: s.int(4), address: s.text(5),
                                    lat: s.int(6), lng: s.int(7), operatorID: s.int(8), enabled: s.int(9) != 0))
        }
        return stations
    }

    private static func readAllButStations(_ db: SQLiteDatabase) throws -> (RailNetwork, [String: String]) {
        var n = RailNetwork()
        let o = try db.prepare("SELECT o_id, operator, type, enabled FROM operators ORDER BY o_id")
        while try o.step() { n.operators.append(Operator(id: o.int(0), name: o.text(1), type: o.int(2), enabled: o.int(3) != 0)) }
        let l = try db.prepare("SELECT l_id, line, o_id, enabled, l_type FROM lines ORDER BY l_id")
        while try l.step() { n.lines.append(Line(id: l.int(0), name: l.text(1), operatorID: l.int(2), enabled: l.int(3) != 0, type: l.optionalInt(4))) }
        // Read in the table's own key order (l_id, s_id) and put in (l_id, s_sort, s_id) order
        // here: cheaper than SQLite's sorter, and nothing to do when ingest numbered along each line.
        let x = try db.prepare("SELECT l_id, s_id, s_sort FROM stations_lines ORDER BY l_id, s_id")
        while try x.step() { n.stationLines.append(StationLine(lineID: x.int(0), stationID: x.int(1), sort: x.int(2))) }
        func before(_ a: StationLine, _ b: StationLine) -> Bool { (a.lineID, a.sort, a.stationID) < (b.lineID, b.sort, b.stationID) }
        if zip(n.stationLines, n.stationLines.dropFirst()).contains(where: { !before($0, $1) }) { n.stationLines.sort(by: before) }
        var meta: [String: String] = [:]
        let m = try db.prepare("SELECT key, value FROM meta")
        while try m.step() { meta[m.text(0)] = m.text(1) }
        return (n, meta)
    }
}

/// Every station's final weight (1...13), as Priority writes it for BuildDB:
/// a CSV `s_id,weight`, sorted by s_id.
public enum StationWeightsFile {
    public static let defaultName = "weights.csv"

    public static func write(_ weights: [Int: Int], to path: String) throws {
        var out = "s_id,weight\n"
        out.reserveCapacity(weights.count * 12)
        for id in weights.keys.sorted() { out += "\(id),\(weights[id]!)\n" }
        try AtomicFile.write(out, to: path)
    }

    public static func read(from path: String) throws -> [Int: Int] {
        let fields = try CSVReader.scan(path: path)
        try fields.require(["s_id", "weight"])
        if let weights = plainWeights(fields) { return weights }
        return try readRows(fields.table())
    }

    /// The weights when every s_id and weight is plain decimal digits and every
    /// weight is 1...13 (what Priority writes), parsed from the bytes without a
    /// String per field; nil sends the file through the row reader, which says
    /// what is wrong where.
    static func plainWeights(_ fields: CSVFields) -> [Int: Int]? {
        guard let idColumn = fields.column("s_id"), let weightColumn = fields.column("weight") else { return nil }
        @inline(__always) func digits(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
            guard !b.isEmpty, b.count <= 18 else { return nil }
            var v = 0
            for c in b {
                let d = Int(c) &- 48
                guard d >= 0, d <= 9 else { return nil }
                v = v &* 10 &+ d
            }
            return v
        }
        var weights: [Int: Int] = [:]
        weights.reserveCapacity(fields.count)
        for r in 0..<fields.count {
            guard let id = fields.withField(r, idColumn, digits),
                  let w = fields.withField(r, weightColumn, digits), (1...13).contains(w) else { return nil }
            weights[id] = w
        }
        return weights
    }

    static func readRows(_ table: CSVTable) throws -> [Int: Int] {
        var problems = DiagnosticCollector()
        var weights: [Int: Int] = [:]
        for row in table.rows() {
            if let id = row.int("s_id", &problems), let w = row.int("weight", &problems, range: 1...13) { weights[id] = w }
        }
        try problems.check()
        return weights
    }
}
