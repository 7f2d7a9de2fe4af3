import Foundation
import StationModel

/// Writes one bundle file. Same network, weights, renumberings and version give the
/// same bytes: a fresh file with a fixed page size, every row inserted in key order
/// in one transaction, indexes made after the rows, user_version set, then VACUUM so
/// the page layout depends on nothing but the contents. No time or path is stored.
public enum BundleWriter {
    public static let pageSize = 4096

    public static func write(network: RailNetwork, weights: [Int: Int], renumberings: [Renumbering],
                             version: Int, to path: String) throws {
        unlink(path)
        do {
            let db = try SQLiteDatabase(path: path, mode: .create)
            defer { db.close() }
            // The file is fsynced and renamed by the publisher; no journal is needed
            // while it is private to this run.
            try db.execute("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            for table in BundleSchema.tables { try db.execute(table.createSQL) }
            try db.execute(BundleSchema.renumberedCreateSQL)
            try db.transaction {
                let operators = network.operators.sorted { $0.id < $1.id }
                let op = try db.prepare("INSERT INTO operators (o_id, operator, type, enabled) VALUES (?,?,?,?)")
                for o in operators {
                    try op.run([.integer(Int64(o.id)), .text(o.name), .integer(Int64(o.type)), .integer(o.enabled ? 1 : 0)])
                }
                let lines = network.lines.sorted { $0.id < $1.id }
                let li = try db.prepare("INSERT INTO lines (l_id, line, o_id, enabled, l_type) VALUES (?,?,?,?,?)")
                for l in lines {
                    try li.run([.integer(Int64(l.id)), .text(l.name), .integer(Int64(l.operatorID)), .integer(l.enabled ? 1 : 0),
                                l.type.map { .integer(Int64($0)) } ?? .null])
                }
                let stations = network.stations.sorted { $0.id < $1.id }
                let st = try db.prepare("INSERT INTO stations (s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled, weight) VALUES (?,?,?,?,?,?,?,?,?,?,?)")
                for s in stations {
                    guard let weight = weights[s.id] else {
                        throw InputError(SourceLocation(file: path, field: "s_id \(s.id)"), "station \(s.id) has no weight")
                    }
                    try st.run([.integer(Int64(s.id)), .text(s.name), .text(s.yomi), .text(s.wiki), .integer(Int64(s.pref)),
                                .text(s.address), .integer(Int64(s.lat)), .integer(Int64(s.lng)), .integer(Int64(s.operatorID)),
                                .integer(s.enabled ? 1 : 0), .integer(Int64(weight))])
                }
                // Line by line in the order stations lie along it, so a client that
                // forgets ORDER BY s_sort still sees a sensible list.
                let stationLines = network.stationLines.sorted { ($0.lineID, $0.sort, $0.stationID) < ($1.lineID, $1.sort, $1.stationID) }
                let sl = try db.prepare("INSERT INTO stations_lines (l_id, s_id, s_sort) VALUES (?,?,?)")
                for x in stationLines {
                    try sl.run([.integer(Int64(x.lineID)), .integer(Int64(x.stationID)), .integer(Int64(x.sort))])
                }
                let renumbered = renumberings.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
                let rn = try db.prepare("INSERT INTO renumbered_stations (new_s_id, old_s_id, version) VALUES (?,?,?)")
                for r in renumbered {
                    try rn.run([.integer(Int64(r.newID)), .integer(Int64(r.oldID)), .integer(Int64(r.version))])
                }
                for index in BundleSchema.indexes { try db.execute(index.createSQL) }
            }
            try db.execute("PRAGMA user_version = \(version)")
            try db.execute("VACUUM")
        } catch let e as SQLiteError {
            throw EnvironmentError("cannot write the bundle \(path): \(e)")
        }
    }
}
