import Glibc
import StationIO
import StationModel

/// Writes one bundle file. Same network, weights, renumberings and version give
/// the same bytes: a new file with a fixed page size, one transaction that makes
/// the tables, inserts every row in key order, then makes the indexes and sets
/// user_version. No time or path is stored. Nothing is ever deleted or updated,
/// so the file has no free pages: as compact as VACUUM would leave it.
public enum BundleWriter {
    public static let pageSize = 4096

    /// Returns the number of rows written to each table, by table name.
    @discardableResult
    public static func write(network: RailNetwork, weights: [Int: Int], renumberings: [Renumbering],
                             version: Int, to path: String) throws -> [String: Int] {
        unlink(path)
        var network = network
        network.sortByKey()
        let renumbered = renumberings.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
        do {
            let db = try SQLiteDatabase(path: path, mode: .create)
            defer { db.close() }
            // No journal and no syncs: the file is new, in the publish's temporary
            // folder, and is thrown away whole on any failure; the publish flushes it
            // before the folder is renamed into dist/. The cache holds a national
            // bundle many times over.
            try db.execute("""
                PRAGMA page_size = \(pageSize); PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;
                PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -32768
                """)
            try db.transaction {
                for table in BundleSchema.tables + [BundleSchema.renumberedStations] { try db.execute(table.createSQL) }
                try insert(db, into: BundleSchema.operators, network.operators) { o, row in
                    try row.bind(o.id, at: 1); try row.bind(o.name, at: 2); try row.bind(o.type, at: 3); try row.bind(o.enabled, at: 4)
                }
                try insert(db, into: BundleSchema.lines, network.lines) { l, row in
                    try row.bind(l.id, at: 1); try row.bind(l.name, at: 2); try row.bind(l.operatorID, at: 3)
                    try row.bind(l.enabled, at: 4); try row.bind(l.type, at: 5)
                }
                try insert(db, into: BundleSchema.stations, network.stations) { s, row in
                    guard let weight = weights[s.id] else {
                        throw InputError(SourceLocation(file: path, field: "s_id \(s.id)"), "station \(s.id) has no weight")
                    }
                    try row.bind(s.id, at: 1); try row.bind(s.name, at: 2); try row.bind(s.yomi, at: 3); try row.bind(s.wiki, at: 4)
                    try row.bind(s.pref, at: 5); try row.bind(s.address, at: 6); try row.bind(s.lat, at: 7); try row.bind(s.lng, at: 8)
                    try row.bind(s.operatorID, at: 9); try row.bind(s.enabled, at: 10); try row.bind(weight, at: 11)
                }
                // Line by line in the order stations lie along it, so a client that
                // forgets ORDER BY s_sort still sees a sensible list.
                try insert(db, into: BundleSchema.stationsLines, network.stationLines) { x, row in
                    try row.bind(x.lineID, at: 1); try row.bind(x.stationID, at: 2); try row.bind(x.sort, at: 3)
                }
                try insert(db, into: BundleSchema.renumberedStations, renumbered) { r, row in
                    try row.bind(r.newID, at: 1); try row.bind(r.oldID, at: 2); try row.bind(r.version, at: 3)
                }
                // Each index from one sort of its table's finished rows.
                for index in BundleSchema.indexes { try db.execute(index.createSQL) }
                try db.execute("PRAGMA user_version = \(version)")
            }
        } catch let e as SQLiteError {
            unlink(path)
            throw EnvironmentError("cannot write the bundle \(path): \(e)")
        } catch {
            unlink(path)
            throw error
        }
        return ["operators": network.operators.count, "lines": network.lines.count, "stations": network.stations.count,
                "stations_lines": network.stationLines.count, "renumbered_stations": renumbered.count]
    }

    /// Inserts `rows` in the order given, through one prepared statement; `bind` binds a row's values by column.
    static func insert<Row>(_ db: SQLiteDatabase, into table: BundleSchema.Table, _ rows: [Row],
                            _ bind: (Row, SQLiteStatement) throws -> Void) throws {
        let names = table.columns.map(\.name)
        let statement = try db.prepare("INSERT INTO \(table.name) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
        for row in rows {
            try bind(row, statement)
            try statement.step()
            statement.reset()
        }
    }
}
