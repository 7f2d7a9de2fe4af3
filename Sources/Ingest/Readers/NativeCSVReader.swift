import StationCore

/// Reads the project's own master CSV folder (sources.md §1): operators.csv,
/// lines.csv, stations.csv and stations_lines.csv. weights.csv belongs to the
/// Priority stage and is not read here.
///
/// The native source defines our IDs, so every value carries `fixedID`, and its
/// keys are "o:<o_id>", "l:<l_id>", "s:<s_id>". Text is kept exactly as the file
/// holds it. A code outside the known lists (operators.type, lines.l_type) is a
/// warning, not bad input. Every problem in the folder is collected (up to 100)
/// and thrown as one StationError of bad input, so a maintainer fixes them in one pass.
package enum NativeCSVReader {
    package static let operatorsFile = "operators.csv"
    package static let linesFile = "lines.csv"
    package static let stationsFile = "stations.csv"
    package static let stationLinesFile = "stations_lines.csv"
    package static let files = [operatorsFile, linesFile, stationsFile, stationLinesFile]
    /// The columns each file has; any other is an error at its header.
    package static let columns: [String: CSVColumns] = [
        operatorsFile: CSVColumns(required: ["o_id", "operator", "type"], optional: ["enabled"]),
        linesFile: CSVColumns(required: ["l_id", "line", "o_id"], optional: ["enabled", "l_type"]),
        stationsFile: CSVColumns(required: ["s_id", "station", "pref", "lat", "lng", "o_id"], optional: ["yomi", "wiki", "address", "enabled"]),
        stationLinesFile: CSVColumns(required: ["l_id", "s_id", "s_sort"]),
    ]
    /// The columns each file must have (fetch checks a download against them).
    package static var requiredColumns: [String: [String]] { columns.mapValues(\.required) }

    package static func operatorKey(_ id: Int) -> String { "o:\(id)" }
    package static func lineKey(_ id: Int) -> String { "l:\(id)" }
    package static func stationKey(_ id: Int) -> String { "s:\(id)" }

    /// Empty optional text (yomi, wiki, address) is read as "unknown" (nil) so
    /// that a later source may fill it in; the merge writes '' if none does.
    package static func read(folder: String, label: String) throws -> SourceNetwork {
        var problems = DiagnosticCollector(limit: 100)
        func load(_ file: String) -> CSVTable? { loadTable(folder, label, file, columns[file]!, &problems) }
        let operatorsTable = load(operatorsFile), linesTable = load(linesFile)
        let stationsTable = load(stationsFile), stationLinesTable = load(stationLinesFile)
        // Row checks on a table whose header is broken would only repeat the problem.
        try problems.check()
        guard let operatorsTable, let linesTable, let stationsTable, let stationLinesTable else {
            preconditionFailure("a table that fails to load always leaves a problem")
        }
        var network = SourceNetwork(kind: .native, label: label)

        var operatorIDs = FirstSeen()
        do {
            let t = operatorsTable
            let cID = t.column("o_id"), cName = t.column("operator"), cType = t.column("type"), cEnabled = t.column("enabled")
            for r in t.records {
                let id = t.int(r, cID, &problems)
                let unique = id.map { operatorIDs.insert($0, line: t.line(r), at: t.location(r, cID), what: "o_id", &problems) } ?? false
                let name = t.name(r, cName, &problems)
                let type = code(t, r, cType, OperatorType.valid, known: OperatorType.known, what: "operator type", &network.warnings, &problems)
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                if let id, unique, let name, let type, let enabled {
                    network.operators.append(SourceOperator(key: operatorKey(id), fixedID: id, name: name, type: type, enabled: enabled,
                                                            origin: t.location(r)))
                }
            }
        }

        var lineIDs = FirstSeen()
        do {
            let t = linesTable
            let cID = t.column("l_id"), cName = t.column("line"), cOperator = t.column("o_id")
            let cEnabled = t.column("enabled"), cType = t.column("l_type")
            for r in t.records {
                let id = t.int(r, cID, &problems)
                let unique = id.map { lineIDs.insert($0, line: t.line(r), at: t.location(r, cID), what: "l_id", &problems) } ?? false
                let name = t.name(r, cName, &problems)
                let operatorID = reference(t, r, cOperator, in: operatorIDs, listedIn: operatorsTable.file, &problems)
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                // A blank l_type is none; anything else must be a line type code.
                let type: Int?? = t.trimmedBytes(r, cType).isEmpty ? .some(nil)
                    : code(t, r, cType, LineType.valid, known: LineType.known, what: "line type", orNothing: true, &network.warnings, &problems).map { $0 }
                if let id, unique, let name, let operatorID, let enabled, let type {
                    network.lines.append(SourceLine(key: lineKey(id), fixedID: id, name: name, operatorKey: operatorKey(operatorID),
                                                    enabled: enabled, type: type, origin: t.location(r)))
                }
            }
        }

        var stationIDs = FirstSeen()
        do {
            let t = stationsTable
            let cID = t.column("s_id"), cName = t.column("station"), cYomi = t.column("yomi"), cWiki = t.column("wiki")
            let cPref = t.column("pref"), cAddress = t.column("address"), cLat = t.column("lat"), cLng = t.column("lng")
            let cOperator = t.column("o_id"), cEnabled = t.column("enabled")
            network.stations.reserveCapacity(t.count)
            stationIDs.reserveCapacity(t.count)
            for r in t.records {
                let id = t.int(r, cID, &problems)
                let unique = id.map { stationIDs.insert($0, line: t.line(r), at: t.location(r, cID), what: "s_id", &problems) } ?? false
                let name = t.name(r, cName, &problems)
                let pref = t.int(r, cPref, range: 1...47, &problems)
                let lat = t.microDegrees(r, cLat, &problems), lng = t.microDegrees(r, cLng, &problems)
                var inJapan = false
                if let lat, let lng { inJapan = checkInJapan(t, r, lat: lat, lng: lng, field: "lat, lng", &problems) }
                let operatorID = reference(t, r, cOperator, in: operatorIDs, listedIn: operatorsTable.file, &problems)
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                if let id, unique, let name, let pref, let lat, let lng, inJapan, let operatorID, let enabled {
                    network.stations.append(SourceStation(
                        key: stationKey(id), fixedID: id, name: name, yomi: t.optionalText(r, cYomi), wiki: t.optionalText(r, cWiki),
                        pref: pref, address: t.optionalText(r, cAddress), lat: lat, lng: lng, operatorKey: operatorKey(operatorID),
                        enabled: enabled, origin: t.location(r)))
                }
            }
        }

        do {
            let t = stationLinesTable
            let cLine = t.column("l_id"), cStation = t.column("s_id"), cSort = t.column("s_sort")
            // (l_id, s_id) is unique in the bundle (stations_lines_unique_index).
            var pairs: [StationOnLine: Int] = [:]
            pairs.reserveCapacity(t.count)
            network.stationLines.reserveCapacity(t.count)
            for r in t.records {
                let lineID = reference(t, r, cLine, in: lineIDs, listedIn: linesTable.file, &problems)
                let stationID = reference(t, r, cStation, in: stationIDs, listedIn: stationsTable.file, &problems)
                let sort = t.int(r, cSort, &problems)
                guard let lineID, let stationID else { continue }
                let pair = StationOnLine(line: lineID, station: stationID)
                if let earlier = pairs[pair] {
                    problems.add(t.location(r, field: "l_id, s_id"),
                                 "expected each station once per line, found l_id \(lineID), s_id \(stationID) again (first on line \(earlier))")
                    continue
                }
                pairs[pair] = t.line(r)
                if let sort {
                    network.stationLines.append(SourceStationLine(lineKey: lineKey(lineID), stationKey: stationKey(stationID), sort: sort,
                                                                  origin: t.location(r)))
                }
            }
        }
        try problems.check()
        network.sortByKey()
        return network
    }

    struct StationOnLine: Hashable { var line: Int, station: Int }
}

// MARK: - Shared by the CSV readers

/// Reads `name` from a source folder and checks its header against `columns`;
/// problems are collected and nil returned, so the caller goes on to the other
/// files and reports everything at once.
func loadTable(_ folder: String, _ label: String, _ name: String, _ columns: CSVColumns,
               _ problems: inout DiagnosticCollector) -> CSVTable? {
    let display = label.isEmpty ? name : label + "/" + name
    let path = joinPath(folder, name)
    guard Files.exists(path), !Files.isFolder(path) else {
        problems.add(SourceLocation(file: display), Files.exists(path) ? "a folder, not a file; expected the file \(name) in the source folder \(label)"
                                                                       : "file not found; expected \(name) in the source folder \(label)")
        return nil
    }
    do {
        let table = try CSVReader.read(path: path, displayName: display)
        if table.header.isEmpty {
            problems.add(SourceLocation(file: display, line: 1), "empty file; expected a header naming \(columns)")
            return nil
        }
        try table.require(columns)
        return table
    } catch let error as StationError where error.kind == .badInput {
        problems.add(error)
    } catch {
        problems.add(SourceLocation(file: display), "\(error)")
    }
    return nil
}

/// A code column: an integer within `valid`; one the known list lacks is kept
/// and a warning names file, line and the code.
func code(_ t: CSVTable, _ r: Int, _ column: CSVColumn, _ valid: ClosedRange<Int>, known: [Int: String], what: String,
          orNothing: Bool = false, _ warnings: inout [Diagnostic], _ problems: inout DiagnosticCollector) -> Int? {
    guard let v = orNothing ? t.optionalInt(r, column, &problems) ?? nil : t.int(r, column, &problems) else { return nil }
    guard valid.contains(v) else {
        problems.add(t.location(r, column), "expected a whole number \(valid.lowerBound)..\(valid.upperBound) for the \(what), found \(v)")
        return nil
    }
    if known[v] == nil {
        warnings.append(Diagnostic(t.location(r, column), "unknown \(what) \(v) (known: \(known.keys.sorted().map(String.init).joined(separator: ", "))); kept as given"))
    }
    return v
}

/// A reference to an ID defined earlier in the source.
func reference(_ t: CSVTable, _ r: Int, _ column: CSVColumn, in defined: FirstSeen, listedIn file: String,
               _ problems: inout DiagnosticCollector) -> Int? {
    guard let id = t.int(r, column, &problems) else { return nil }
    guard defined.contains(id) else {
        // "an o_id", "an s_id", "a line_cd": the IDs are read letter by letter.
        let article = column.name.hasSuffix("_id") ? "an" : "a"
        problems.add(t.location(r, column), "expected \(article) \(column.name) listed in \(file), found \(id)")
        return nil
    }
    return id
}

/// Checks that a point lies in Japan; the message shows both coordinates.
func checkInJapan(_ t: CSVTable, _ r: Int, lat: Int, lng: Int, field: String, _ problems: inout DiagnosticCollector) -> Bool {
    if MicroDegrees.inJapan(lat: lat, lng: lng) { return true }
    problems.add(t.location(r, field: field),
                 "expected a point in Japan (lat 20..46, lng 122..154), found lat \(MicroDegrees.format(lat)), lng \(MicroDegrees.format(lng))")
    return false
}

/// Remembers where each ID was first defined, to name both lines of a duplicate.
struct FirstSeen {
    private var lines: [Int: Int] = [:]

    mutating func reserveCapacity(_ n: Int) { lines.reserveCapacity(n) }

    func contains(_ id: Int) -> Bool { lines[id] != nil }

    /// Records `id` at `line`; on a duplicate, adds a problem naming the earlier line and returns false.
    mutating func insert(_ id: Int, line: Int, at location: @autoclosure () -> SourceLocation, what: String,
                         _ problems: inout DiagnosticCollector) -> Bool {
        if let earlier = lines[id] {
            problems.add(location(), "expected a unique \(what), found \(id) again (first on line \(earlier))")
            return false
        }
        lines[id] = line
        return true
    }
}
