import FoundationEssentials
import Glibc
import StationModel

/// Writes one bundle file. Same network, weights, renumberings and version give the
/// same bytes: a fixed page size, one transaction into an empty file that makes
/// the tables, inserts every row in key order, makes the indexes after the rows
/// (each from one sort) and sets user_version. No time or path is stored.
///
/// The file comes out as compact as VACUUM leaves one, without running VACUUM:
/// nothing is ever deleted or updated, so there are no free pages
/// (freelist_count 0), every table's pages are filled in key order and every
/// index is built bottom-up from a sort. (VACUUM INTO, which this replaced,
/// copied every row a second time and fed the indexes row by row; it took about
/// half of the build.) The page layout depends only on the contents, which is
/// what "VACUUMed" promised the clients: a small file, the same bytes for the
/// same contents.
public enum BundleWriter {
    public static let pageSize = 4096

    /// Returns the number of rows written to each table, by table name.
    @discardableResult
    public static func write(network: RailNetwork, weights: [Int: Int], renumberings: [Renumbering],
                             version: Int, to path: String) throws -> [String: Int] {
        unlink(path)
        var counts: [String: Int] = [:]
        do {
            let db = try SQLiteDatabase(path: path, mode: .create)
            defer { db.close() }
            // No journal and no syncs while writing: the file is new, in the
            // publish's temporary folder, and is discarded whole on any failure;
            // the publish flushes it before the folder is renamed into dist/.
            // A 32 MB cache holds the national bundle many times over, so no page is
            // written twice; at 100x SQLite spills pages and sorts to files instead of memory.
            try db.execute("""
                PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768
                """)
            try db.transaction {
                for table in BundleSchema.tables { try db.execute(table.createSQL) }
                try db.execute(BundleSchema.renumberedCreateSQL)
                let operators = network.operators.sorted { $0.id < $1.id }
                let op = try db.prepare("INSERT INTO operators (o_id, operator, type, enabled) VALUES (?,?,?,?)")
                for o in operators {
                    try op.bind(o.id, at: 1); try op.bind(o.name, at: 2); try op.bind(o.type, at: 3); try op.bind(o.enabled ? 1 : 0, at: 4)
                    try op.step(); op.reset()
                }
                let lines = network.lines.sorted { $0.id < $1.id }
                let li = try db.prepare("INSERT INTO lines (l_id, line, o_id, enabled, l_type) VALUES (?,?,?,?,?)")
                for l in lines {
                    try li.bind(l.id, at: 1); try li.bind(l.name, at: 2); try li.bind(l.operatorID, at: 3)
                    try li.bind(l.enabled ? 1 : 0, at: 4); try li.bind(l.type, at: 5)
                    try li.step(); li.reset()
                }
                let stations = network.stations.sorted { $0.id < $1.id }
                let st = try db.prepare("INSERT INTO stations (s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled, weight) VALUES (?,?,?,?,?,?,?,?,?,?,?)")
                for s in stations {
                    guard let weight = weights[s.id] else {
                        throw InputError(SourceLocation(file: path, field: "s_id \(s.id)"), "station \(s.id) has no weight")
                    }
                    try st.bind(s.id, at: 1); try st.bind(s.name, at: 2); try st.bind(s.yomi, at: 3); try st.bind(s.wiki, at: 4)
                    try st.bind(s.pref, at: 5); try st.bind(s.address, at: 6); try st.bind(s.lat, at: 7); try st.bind(s.lng, at: 8)
                    try st.bind(s.operatorID, at: 9); try st.bind(s.enabled ? 1 : 0, at: 10); try st.bind(weight, at: 11)
                    try st.step(); st.reset()
                }
                // Line by line in the order stations lie along it, so a client that
                // forgets ORDER BY s_sort still sees a sensible list.
                let stationLines = network.stationLines.sorted { ($0.lineID, $0.sort, $0.stationID) < ($1.lineID, $1.sort, $1.stationID) }
                let sl = try db.prepare("INSERT INTO stations_lines (l_id, s_id, s_sort) VALUES (?,?,?)")
                for x in stationLines {
                    try sl.bind(x.lineID, at: 1); try sl.bind(x.stationID, at: 2); try sl.bind(x.sort, at: 3)
                    try sl.step(); sl.reset()
                }
                let renumbered = renumberings.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
                let rn = try db.prepare("INSERT INTO renumbered_stations (new_s_id, old_s_id, version) VALUES (?,?,?)")
                for r in renumbered {
                    try rn.bind(r.newID, at: 1); try rn.bind(r.oldID, at: 2); try rn.bind(r.version, at: 3)
                    try rn.step(); rn.reset()
                }
                for index in BundleSchema.indexes { try db.execute(index.createSQL) }
                try db.execute("PRAGMA user_version = \(version)")
                counts = ["operators": operators.count, "lines": lines.count, "stations": stations.count,
                          "stations_lines": stationLines.count, "renumbered_stations": renumbered.count]
            }
        } catch let e as SQLiteError {
            unlink(path)
            throw EnvironmentError("cannot write the bundle \(path): \(e)")
        } catch {
            unlink(path)
            throw error
        }
        return counts
    }
}
