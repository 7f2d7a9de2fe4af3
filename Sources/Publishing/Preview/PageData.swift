import StationCore

/// What the page needs of one bundle, column by column: a pin per station, the
/// lines as the stations they run through, the operators' names. Columns, not
/// rows, because a national bundle is 10,000 stations and a JSON object per
/// station would repeat every key 10,000 times.
extension PageData.Side {
    /// Reads the tables of bundle.md that the map uses, each in key order, so the
    /// same bundle gives the same columns; `label` says which bundle it is.
    package static func read(path: String, label: String) throws -> PageData.Side {
        // SQLite would open a missing path as an empty database and fail later, less clearly.
        guard Files.exists(path) else { throw StationError.environment("cannot read \(path): no such file") }
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        func rows(_ sql: String) throws -> [[SQLValue]] {
            do {
                return try db.query(sql)
            } catch let e as SQLiteError {
                switch e.code {
                case .SQLITE_ERROR: // "no such table/column": the file is some other database.
                    throw StationError.badInput(SourceLocation(file: path), "not a station bundle: \(e.message)")
                case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                    throw StationError.badInput(SourceLocation(file: path), "the database is damaged (\(e.message)); expected a whole bundle, as published")
                default: throw e
                }
            }
        }
        var t = PageData.Side(label: label, version: try db.userVersion)
        for r in try rows("SELECT o_id, operator FROM operators ORDER BY o_id") {
            t.operators.id.append(r[0].intValue ?? 0); t.operators.name.append(r[1].textValue ?? "")
        }
        var lineIndex: [Int: Int] = [:]
        for r in try rows("SELECT l_id, line, o_id, enabled, l_type FROM lines ORDER BY l_id") {
            let id = r[0].intValue ?? 0
            lineIndex[id] = t.lines.id.count
            t.lines.id.append(id); t.lines.name.append(r[1].textValue ?? ""); t.lines.operator.append(r[2].intValue ?? 0)
            t.lines.enabled.append(r[3].intValue ?? 0); t.lines.type.append(r[4].intValue ?? 0)
        }
        var stationIndex: [Int: Int] = [:]
        for r in try rows("SELECT s_id, station, yomi, lat, lng, o_id, enabled, weight FROM stations ORDER BY s_id") {
            let id = r[0].intValue ?? 0
            stationIndex[id] = t.stations.id.count
            t.stations.id.append(id); t.stations.name.append(r[1].textValue ?? ""); t.stations.yomi.append(r[2].textValue ?? "")
            t.stations.lat.append(r[3].intValue ?? 0); t.stations.lng.append(r[4].intValue ?? 0)
            t.stations.operator.append(r[5].intValue ?? 0); t.stations.enabled.append(r[6].intValue ?? 0); t.stations.weight.append(r[7].intValue ?? 0)
        }
        t.lines.stations = Array(repeating: [], count: t.lines.id.count)
        // s_id breaks a tie in s_sort so two builds of one bundle draw the same polyline.
        for r in try rows("SELECT l_id, s_id FROM stations_lines ORDER BY l_id, s_sort, s_id") {
            // A row naming a line or station the bundle lacks has nowhere to be drawn; verify reports it.
            guard let line = r[0].intValue.flatMap({ lineIndex[$0] }), let station = r[1].intValue.flatMap({ stationIndex[$0] }) else { continue }
            t.lines.stations[line].append(station)
        }
        return t
    }
}

/// Everything the page's script reads (`DATA`), written as every JSON file of the
/// project is (`jsonDocument`: keys sorted, so the same bundles give the same bytes).
package struct PageData: Encodable {
    package struct Side: Encodable, Sendable {
        struct Operators: Encodable { var id: [Int] = [], name: [String] = [] }
        /// l_type 0 for NULL (1 is Shinkansen, drawn heavier); each line's stations as indexes into the station columns, in s_sort order.
        struct Lines: Encodable { var id: [Int] = [], name: [String] = [], `operator`: [Int] = [], enabled: [Int] = [], type: [Int] = [], stations: [[Int]] = [] }
        /// lat and lng in integer micro-degrees, exactly as the bundle holds them (the page's query compares these).
        struct Stations: Encodable {
            var id: [Int] = [], name: [String] = [], yomi: [String] = [], lat: [Int] = [], lng: [Int] = [], `operator`: [Int] = [], enabled: [Int] = [], weight: [Int] = []
        }
        var label: String, version: Int, operators = Operators(), lines = Lines(), stations = Stations()
    }

    var pinChoices: [Int], defaultPins: Int, aspect: Double
    var candidate: Side
    var baseline: Side?
    var changes: PreviewChanges?
    /// Said instead of the changes when the candidate is the baseline itself (a plan with
    /// nothing to publish): "Nothing changed: ...".
    var nothingChanged: String?
    /// The s_ids the version contests or orphans (IdentityReview), ringed on the map for the maintainer to decide.
    var identity: [IdentityMark]?

    struct IdentityMark: Encodable {
        var id: Int
        var kind: String
        var name: String
        var reason: String
        /// The row of raw/identity.csv that settles it.
        var decision: String
    }

    /// The JSON, safe inside a <script> element: "<" (only ever inside a string) is
    /// written as \u003c, so no value can close the element or open a comment.
    func json() throws -> String {
        var bytes = try jsonDocument(self, compact: true)
        if bytes.contains(0x3C) {
            bytes = bytes.flatMap { $0 == 0x3C ? Array("\\u003c".utf8) : [$0] }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
