import Glibc
import StationCore

/// Writes one bundle file. Same network, weights, renumberings and version give
/// the same bytes: a new file with a fixed page size, one transaction that makes
/// the tables, inserts every row in key order, then makes the indexes and sets
/// user_version. No time or path is stored. Nothing is ever deleted or updated,
/// so the file has no free pages: as compact as VACUUM would leave it.
package enum BundleWriter {
    /// 2048 bytes: the page size whose bundle gzips smallest for a cost no one sees.
    /// On the national bundle at Gzip.level (bench/README.md) the gzip is 708,319 B at
    /// 2048 and 717,163 B at 4096 (SQLite's default), and 2048 builds as fast and answers
    /// the apps' map query within 8% from a cold open (as fast warm); 1024 saves 0.6% more
    /// (704,369 B) for 1.25x the gzip's time, 1.16x the build's at 10x and 1.15x a cold
    /// map query. SQLite reads any page size; the apps never see it.
    package static let pageSize = 2048

    /// Returns the number of rows written to each table, by table name.
    @discardableResult
    package static func write(network: RailNetwork, weights: [Int: Int], renumberings: [Renumbering],
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
            if let station = network.stations.first(where: { weights[$0.id] == nil }) {
                throw StationError.badInput(SourceLocation(file: path, field: "s_id \(station.id)"), "station \(station.id) has no weight")
            }
            try db.transaction {
                for table in BundleSchema.tables { try db.execute(table.createSQL) }
                try insert(db, into: BundleSchema.operators, network.operators, [
                    "o_id": .int(\.id), "operator": .text(\.name), "type": .int(\.type), "enabled": .flag(\.enabled),
                ])
                try insert(db, into: BundleSchema.lines, network.lines, [
                    "l_id": .int(\.id), "line": .text(\.name), "o_id": .int(\.operatorID), "enabled": .flag(\.enabled), "l_type": .optionalInt(\.type),
                ])
                try insert(db, into: BundleSchema.stations, network.stations, [
                    "s_id": .int(\.id), "station": .text(\.name), "yomi": .text(\.yomi), "wiki": .text(\.wiki), "pref": .int(\.pref),
                    "address": .text(\.address), "lat": .int(\.lat), "lng": .int(\.lng), "o_id": .int(\.operatorID),
                    "enabled": .flag(\.enabled), "weight": .int { weights[$0.id]! },
                ])
                // Line by line in the order stations lie along it, so a client that
                // forgets ORDER BY s_sort still sees a sensible list.
                try insert(db, into: BundleSchema.stationsLines, network.stationLines, [
                    "l_id": .int(\.lineID), "s_id": .int(\.stationID), "s_sort": .int(\.sort),
                ])
                try insert(db, into: BundleSchema.renumberedStations, renumbered, [
                    "new_s_id": .int(\.newID), "old_s_id": .int(\.oldID), "version": .int(\.version),
                ])
                // Each index from one sort of its table's finished rows.
                for index in BundleSchema.indexes { try db.execute(index.createSQL) }
                try db.execute("PRAGMA user_version = \(version)")
            }
        } catch let e as SQLiteError {
            unlink(path)
            throw StationError.environment("cannot write the bundle \(path): \(e)")
        } catch {
            unlink(path)
            throw error
        }
        let counts = [network.operators.count, network.lines.count, network.stations.count, network.stationLines.count, renumbered.count]
        return Dictionary(uniqueKeysWithValues: zip(BundleSchema.tables.map(\.name), counts))
    }

    /// How a row fills one column.
    enum Field<Row> {
        case int((Row) -> Int)
        case optionalInt((Row) -> Int?)
        case text((Row) -> String)
        case flag((Row) -> Bool)
    }

    /// Inserts `rows` in the order given, through one prepared statement. `fields` names
    /// every column of the table, each once: a schema change that adds, drops or moves a
    /// column cannot bind a value to the wrong one.
    static func insert<Row>(_ db: SQLiteDatabase, into table: BundleSchema.Table, _ rows: [Row], _ fields: [String: Field<Row>]) throws {
        precondition(Set(fields.keys) == Set(table.columns), "\(table.name): the writer's columns \(fields.keys.sorted()) are not the schema's \(table.columns)")
        let ordered = table.columns.map { fields[$0]! }
        let statement = try db.prepare(table.insertSQL)
        for row in rows {
            for (i, field) in ordered.enumerated() {
                let at = Int32(i + 1)
                switch field {
                case .int(let value): try statement.bind(value(row), at: at)
                case .optionalInt(let value): try statement.bind(value(row), at: at)
                case .text(let value): try statement.bind(value(row), at: at)
                case .flag(let value): try statement.bind(value(row), at: at)
                }
            }
            try statement.step()
            statement.reset()
        }
    }
}
