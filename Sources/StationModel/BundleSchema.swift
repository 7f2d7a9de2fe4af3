// The bundle's schema exactly as docs/bundle.md gives it: clients in
// the field read these names, types and indexes, so this is the one place
// they are spelled.

public enum BundleSchema {
    public struct Column: Hashable, Sendable {
        public var name: String
        public var type: String
        public var notNull: Bool
        public var defaultValue: String?
        public var primaryKey: Bool
    }

    public struct Table: Sendable {
        public var name: String
        public var columns: [Column]
        /// Columns that identify a row (the primary key; for stations_lines, (l_id, s_id)).
        public var key: [String]
        public var createSQL: String
    }

    public struct Index: Hashable, Sendable {
        public var name: String
        public var table: String
        public var columns: [String]
        public var unique: Bool
        public var createSQL: String { "CREATE \(unique ? "UNIQUE " : "")INDEX \(name) ON \(table)(\(columns.joined(separator: ", ")))" }
    }

    private static func col(_ name: String, _ type: String, notNull: Bool = true, default def: String? = nil, pk: Bool = false) -> Column {
        Column(name: name, type: type, notNull: notNull, defaultValue: def, primaryKey: pk)
    }

    public static let operators = Table(
        name: "operators",
        columns: [col("o_id", "INTEGER", pk: true), col("operator", "TEXT"), col("type", "INTEGER"), col("enabled", "INTEGER", default: "1")],
        key: ["o_id"],
        createSQL: "CREATE TABLE operators (o_id INTEGER PRIMARY KEY NOT NULL, operator TEXT NOT NULL, type INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1)")

    public static let lines = Table(
        name: "lines",
        columns: [col("l_id", "INTEGER", pk: true), col("line", "TEXT"), col("o_id", "INTEGER"), col("enabled", "INTEGER", default: "1"), col("l_type", "INTEGER", notNull: false)],
        key: ["l_id"],
        createSQL: "CREATE TABLE lines (l_id INTEGER PRIMARY KEY NOT NULL, line TEXT NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, l_type INTEGER)")

    public static let stations = Table(
        name: "stations",
        columns: [col("s_id", "INTEGER", pk: true), col("station", "TEXT"), col("yomi", "TEXT"), col("wiki", "TEXT"), col("pref", "INTEGER"),
                  col("address", "TEXT"), col("lat", "INTEGER"), col("lng", "INTEGER"), col("o_id", "INTEGER"),
                  col("enabled", "INTEGER", default: "1"), col("weight", "INTEGER", default: "0")],
        key: ["s_id"],
        createSQL: "CREATE TABLE stations (s_id INTEGER PRIMARY KEY NOT NULL, station TEXT NOT NULL, yomi TEXT NOT NULL, wiki TEXT NOT NULL, pref INTEGER NOT NULL, address TEXT NOT NULL, lat INTEGER NOT NULL, lng INTEGER NOT NULL, o_id INTEGER NOT NULL, enabled INTEGER NOT NULL DEFAULT 1, weight INTEGER NOT NULL DEFAULT 0)")

    public static let stationsLines = Table(
        name: "stations_lines",
        columns: [col("l_id", "INTEGER"), col("s_id", "INTEGER"), col("s_sort", "INTEGER")],
        key: ["l_id", "s_id"],
        createSQL: "CREATE TABLE stations_lines (l_id INTEGER NOT NULL, s_id INTEGER NOT NULL, s_sort INTEGER NOT NULL)")

    /// The four client tables, in the order they are created and diffed.
    public static let tables: [Table] = [operators, lines, stations, stationsLines]

    public static func table(named name: String) -> Table? { tables.first { $0.name == name } }

    public static let indexes: [Index] = [
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

    /// An extra table, ignored by clients that do not know it: the (new s_id,
    /// old s_id) pairs of renumbered stations and the version that made them.
    public static let renumberedStations = Table(
        name: "renumbered_stations",
        columns: [col("new_s_id", "INTEGER", pk: true), col("old_s_id", "INTEGER", pk: true), col("version", "INTEGER")],
        key: ["new_s_id", "old_s_id"],
        createSQL: "CREATE TABLE renumbered_stations (new_s_id INTEGER NOT NULL, old_s_id INTEGER NOT NULL, version INTEGER NOT NULL, PRIMARY KEY (new_s_id, old_s_id))")

    public static var renumberedCreateSQL: String { renumberedStations.createSQL }

    /// The client's own table (bundle.md); kept by the reference client across replacements.
    public static let completionsCreateSQL =
        "CREATE TABLE IF NOT EXISTS completions (s_id INTEGER PRIMARY KEY NOT NULL, comp_date INTEGER NOT NULL DEFAULT 0, update_date INTEGER NOT NULL DEFAULT 0, memo TEXT)"

    /// Every statement that creates the client tables and indexes, in order.
    public static var createStatements: [String] { tables.map(\.createSQL) + indexes.map(\.createSQL) }
}
