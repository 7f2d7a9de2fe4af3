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
    /// Index pages that make a commit of their own (see `write`): about a quarter
    /// of a national bundle's indexes, so most of them are compressed while the
    /// next ones are made.
    public static let indexBytesPerCommit = 256 * 1024

    /// Returns the number of rows written to each table, by table name.
    @discardableResult
    ///
    /// `pagesFinal` is called after each commit but the last: once the rows are in,
    /// and then whenever the indexes made since add up to `indexBytesPerCommit`.
    /// Everything in the file past page 1 is final from then on: making an index
    /// only reads the tables and adds pages at the end, and the schema table stays
    /// within page 1 (21 short statements). So the caller may compress those bytes
    /// while the rest is made. Commit points depend only on the contents.
    public static func write(network: RailNetwork, weights: [Int: Int], renumberings: [Renumbering],
                             version: Int, to path: String, pagesFinal: () -> Void = {}) throws -> [String: Int] {
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
            // Pages no longer in the cache are read through a mapping of the file: each
            // index scans its table again, at 100x some 130,000 reads of a page each.
            try db.execute("""
                PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768;
                PRAGMA mmap_size = \(SQLiteDatabase.readMappingLimit)
                """)
            try db.transaction {
                for table in BundleSchema.tables { try db.execute(table.createSQL) }
                try db.execute(BundleSchema.renumberedCreateSQL)
                // Many rows per step (SQLite+Network), in key order. A staging file's network
                // is in that order already: a sorted copy of a million stations was 100 MB.
                var network = network
                if !network.isSortedByKey { network.sortByKey() }
                let operators = network.operators, lines = network.lines
                try db.insert(operators)
                try db.insert(lines)
                let stations = network.stations
                // One lookup a station: at 100 times national each pass over the dictionary was ~0.1 s.
                var stationWeights: [Int] = []
                stationWeights.reserveCapacity(stations.count)
                for s in stations {
                    guard let w = weights[s.id] else {
                        throw InputError(SourceLocation(file: path, field: "s_id \(s.id)"), "station \(s.id) has no weight")
                    }
                    stationWeights.append(w)
                }
                try db.insert(stations, weights: stationWeights)
                // Line by line in the order stations lie along it, so a client that
                // forgets ORDER BY s_sort still sees a sensible list.
                let stationLines = network.stationLines
                try db.insert(stationLines)
                let renumbered = renumberings.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
                try db.insertRows(into: "renumbered_stations", columns: ["new_s_id", "old_s_id", "version"], count: renumbered.count) { i, row in
                    let r = renumbered[i]
                    try row.bind(r.newID, at: 1); try row.bind(r.oldID, at: 2); try row.bind(r.version, at: 3)
                }
                counts = ["operators": operators.count, "lines": lines.count, "stations": stations.count,
                          "stations_lines": stationLines.count, "renumbered_stations": renumbered.count]
            }
            phase("rows written")
            pagesFinal()
            var committedPages = try db.scalarInt("PRAGMA page_count") ?? 0
            try db.transaction {
                for index in BundleSchema.indexes {
                    try db.execute(index.createSQL)
                    let pages = try db.scalarInt("PRAGMA page_count") ?? 0
                    if (pages - committedPages) * pageSize >= indexBytesPerCommit {
                        try db.execute("COMMIT")
                        pagesFinal()
                        committedPages = pages
                        try db.execute("BEGIN")
                    }
                }
                try db.execute("PRAGMA user_version = \(version)")
            }
            phase("indexes made")
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
