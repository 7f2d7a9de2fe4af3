// The bundle's schema exactly as docs/bundle.md gives it: clients in the field
// read these names, types and indexes, so this is the one place they are
// spelled. Each table is defined once, by its columns; its CREATE TABLE, its
// INSERT, its key and its column list all come from that definition, and
// `tables` is the one list of every table a bundle holds.

package enum BundleSchema {
    package struct Column: Hashable, Sendable {
        package var name: String
        package var type: String
        package var notNull: Bool
        package var defaultValue: String?

        /// "enabled INTEGER NOT NULL DEFAULT 1".
        var definition: String {
            name + " " + type + (notNull ? " NOT NULL" : "") + (defaultValue.map { " DEFAULT " + $0 } ?? "")
        }
    }

    package struct Table: Hashable, Sendable {
        package var name: String
        /// Every column, in the order the table is created with (and rows are read in).
        package var definitions: [Column]
        /// The columns' names, in that order.
        package var columns: [String]
        /// Columns that identify a row: the primary key; for stations_lines, (l_id, s_id),
        /// which a unique index keeps, so the order rows were inserted in is never a difference.
        package var key: [String]
        /// Where each key column is in `columns`.
        package var keyIndexes: [Int]
        /// The table's PRIMARY KEY, when it has one (stations_lines has none: its rowid order is the list order).
        package var primaryKey: [String]

        init(_ name: String, _ definitions: [Column], key: [String], primaryKey: [String]) {
            self.name = name; self.definitions = definitions; self.columns = definitions.map(\.name)
            self.key = key; self.primaryKey = primaryKey
            self.keyIndexes = key.map { k in definitions.firstIndex { $0.name == k }! }
        }

        /// The CREATE TABLE the bundle is written with (its text is stored in the file, so it is part of the bytes).
        package var createSQL: String {
            var parts = definitions.map { column in
                primaryKey == [column.name] ? column.name + " " + column.type + " PRIMARY KEY" + column.definition.dropFirst(column.name.count + 1 + column.type.count)
                                            : column.definition
            }
            if primaryKey.count > 1 { parts.append("PRIMARY KEY (" + primaryKey.joined(separator: ", ") + ")") }
            return "CREATE TABLE \(name) (\(parts.joined(separator: ", ")))"
        }

        /// An INSERT of every column, bound in `columns` order.
        package var insertSQL: String {
            "INSERT INTO \(name) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"
        }

        /// The key columns' values of a row read in `columns` order.
        package func key<Value>(of row: [Value]) -> [Value] { keyIndexes.map { row[$0] } }
    }

    package struct Index: Hashable, Sendable {
        package var name: String
        package var table: String
        package var columns: [String]
        package var unique: Bool
        package var createSQL: String { "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table)(\(columns.joined(separator: ", ")))" }
    }

    private static func col(_ name: String, _ type: String, notNull: Bool = true, default value: String? = nil) -> Column {
        Column(name: name, type: type, notNull: notNull, defaultValue: value)
    }

    package static let operators = Table("operators", [
        col("o_id", "INTEGER"), col("operator", "TEXT"), col("type", "INTEGER"), col("enabled", "INTEGER", default: "1"),
    ], key: ["o_id"], primaryKey: ["o_id"])

    package static let lines = Table("lines", [
        col("l_id", "INTEGER"), col("line", "TEXT"), col("o_id", "INTEGER"), col("enabled", "INTEGER", default: "1"),
        col("l_type", "INTEGER", notNull: false),
    ], key: ["l_id"], primaryKey: ["l_id"])

    package static let stations = Table("stations", [
        col("s_id", "INTEGER"), col("station", "TEXT"), col("yomi", "TEXT"), col("wiki", "TEXT"), col("pref", "INTEGER"),
        col("address", "TEXT"), col("lat", "INTEGER"), col("lng", "INTEGER"), col("o_id", "INTEGER"),
        col("enabled", "INTEGER", default: "1"), col("weight", "INTEGER", default: "0"),
    ], key: ["s_id"], primaryKey: ["s_id"])

    package static let stationsLines = Table("stations_lines", [
        col("l_id", "INTEGER"), col("s_id", "INTEGER"), col("s_sort", "INTEGER"),
    ], key: ["l_id", "s_id"], primaryKey: [])

    /// Not one the clients read (they ignore tables they do not know): the (new s_id,
    /// old s_id) pairs of renumbered stations and the version that made them, from
    /// which a client moves users' records.
    package static let renumberedStations = Table("renumbered_stations", [
        col("new_s_id", "INTEGER"), col("old_s_id", "INTEGER"), col("version", "INTEGER"),
    ], key: ["new_s_id", "old_s_id"], primaryKey: ["new_s_id", "old_s_id"])

    /// The four tables the clients read.
    package static let clientTables: [Table] = [operators, lines, stations, stationsLines]

    /// Every table of a bundle, in the order they are created, diffed and reported.
    package static let tables: [Table] = clientTables + [renumberedStations]
    /// The same tables as a reviewer reads about them: the stations first.
    package static let reviewOrder: [String] = [stations, lines, operators, stationsLines, renumberedStations].map(\.name)

    package static func table(named name: String) -> Table? { tables.first { $0.name == name } }

    /// A table's columns as a master (native CSV, fixes, the registry) holds them: all
    /// but `weight`, which Priority gives.
    package static func masterColumns(_ table: Table) -> [String] { table.columns.filter { $0 != "weight" } }

    package static let indexes: [Index] = [
        Index(name: "lines_enabled_index", table: "lines", columns: ["enabled"], unique: false),
        Index(name: "lines_line_index", table: "lines", columns: ["line"], unique: false),
        Index(name: "lines_o_index", table: "lines", columns: ["o_id"], unique: false),
        Index(name: "operators_enabled_index", table: "operators", columns: ["enabled"], unique: false),
        Index(name: "operators_type_index", table: "operators", columns: ["type"], unique: false),
        Index(name: "station_lat_index", table: "stations", columns: ["lat"], unique: false),
        Index(name: "station_lng_index", table: "stations", columns: ["lng"], unique: false),
        Index(name: "station_pref_index", table: "stations", columns: ["pref"], unique: false),
        Index(name: "station_operator_index", table: "stations", columns: ["o_id"], unique: false),
        Index(name: "stations_lines_l_index", table: "stations_lines", columns: ["l_id"], unique: false),
        Index(name: "stations_lines_s_index", table: "stations_lines", columns: ["s_id"], unique: false),
        Index(name: "stations_station_index", table: "stations", columns: ["station"], unique: false),
        Index(name: "stations_yomi_index", table: "stations", columns: ["yomi"], unique: false),
        // Named for stations but on lines(l_type): that is how the clients shipped it.
        Index(name: "stations_weight_index", table: "lines", columns: ["l_type"], unique: false),
        Index(name: "stations_lines_unique_index", table: "stations_lines", columns: ["l_id", "s_id"], unique: true),
    ]

    /// The client's own table (bundle.md); kept by the reference client across replacements.
    package static let completionsCreateSQL =
        "CREATE TABLE IF NOT EXISTS completions (s_id INTEGER PRIMARY KEY NOT NULL, comp_date INTEGER NOT NULL DEFAULT 0, update_date INTEGER NOT NULL DEFAULT 0, memo TEXT)"

    /// Every statement that creates a bundle's tables and indexes, in order.
    package static var createStatements: [String] { tables.map(\.createSQL) + indexes.map(\.createSQL) }
}

// MARK: - A database's schema against the bundle's: what verify and the reference client check

extension BundleSchema {
    /// What sqlite_master lists, by name (tables, indexes, views and triggers share one namespace).
    package static func objects(in db: SQLiteDatabase) throws -> [String: SQLiteRow] {
        Dictionary(try db.rows("SELECT type, name, tbl_name, sql FROM main.sqlite_master").map { ($0["name"].textValue ?? "", $0) },
                   uniquingKeysWith: { first, _ in first })
    }

    /// The bundle's objects as SQLite stores them for `createStatements` (and the index it
    /// makes for renumbered_stations' key), by name.
    package static func reference() throws -> [String: SQLiteRow] {
        let db = try SQLiteDatabase(path: ":memory:", mode: .create)
        defer { db.close() }
        for sql in createStatements { try db.execute(sql) }
        return try objects(in: db)
    }

    /// Every way the schema of `db` is not the bundle's: each object must be one of the
    /// bundle's, spelled as SQLite stores BundleSchema's own statements (columns, types,
    /// constraints, index columns), and each of the bundle's must be there, `optional` ones
    /// aside. The objects named in `user` (a client's own, and the keys SQLite made for them)
    /// are not judged. `broken`: the bundle's tables that are missing or not as defined.
    package static func problems(in db: SQLiteDatabase, user: Set<String> = [], optional: Set<String> = []) throws
        -> (problems: [String], broken: Set<String>) {
        let want = try reference()
        let have = try objects(in: db).filter { name, object in
            !user.contains(name) && !(object["sql"] == .null && user.contains(object["tbl_name"].textValue ?? ""))
        }
        var problems: [String] = [], broken = Set<String>()
        for name in Set(want.keys).union(have.keys).sorted() where have[name] != want[name] {
            let kind = (have[name] ?? want[name])?["type"].textValue ?? "object"
            if let object = have[name], let wanted = want[name] {
                problems.append("\(kind) \(name) is not as bundle.md defines it: \(shown(object["sql"].textValue ?? "no SQL", limit: 400)); "
                                + "bundle.md has \(wanted["sql"].textValue ?? "no SQL")")
            } else if have[name] != nil {
                problems.append("\(kind) \(shown(name)) is not part of the bundle (bundle.md: its tables and their indexes only)")
                continue
            } else if !optional.contains(name) {
                problems.append("\(kind) \(name) is missing")
            }
            if kind == "table" { broken.insert(name) }
        }
        return (problems, broken)
    }
}

/// A row as a master CSV, a fix and synth's export see it: the text of each column of
/// `BundleSchema.masterColumns(schema)`, in that order (coordinates in decimal degrees,
/// flags as 0 or 1, an absent l_type as empty).
package protocol MasterRow {
    static var schema: BundleSchema.Table { get }
    var masterFields: [String] { get }
}

extension Operator: MasterRow {
    package static var schema: BundleSchema.Table { BundleSchema.operators }
    package var masterFields: [String] { [String(id), name, String(type), enabled ? "1" : "0"] }
}

extension Line: MasterRow {
    package static var schema: BundleSchema.Table { BundleSchema.lines }
    package var masterFields: [String] { [String(id), name, String(operatorID), enabled ? "1" : "0", type.map(String.init) ?? ""] }
}

extension Station: MasterRow {
    package static var schema: BundleSchema.Table { BundleSchema.stations }
    package var masterFields: [String] {
        [String(id), name, yomi, wiki, String(pref), address, MicroDegrees.format(lat), MicroDegrees.format(lng), String(operatorID), enabled ? "1" : "0"]
    }
}

extension StationLine: MasterRow {
    package static var schema: BundleSchema.Table { BundleSchema.stationsLines }
    package var masterFields: [String] { [String(lineID), String(stationID), String(sort)] }
}
