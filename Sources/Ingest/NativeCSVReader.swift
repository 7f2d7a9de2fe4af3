import StationModel

/// Reads the project's own master CSV folder (sources.md §1): operators.csv,
/// lines.csv, stations.csv and stations_lines.csv. weights.csv belongs to the
/// Priority stage and is not read here.
///
/// The native source defines our IDs, so every value carries `fixedID`, and its
/// keys are "o:<o_id>", "l:<l_id>", "s:<s_id>". Every problem in the folder is
/// collected (up to 100) and thrown as one InputError, so a maintainer fixes
/// them in one pass.
public enum NativeCSVReader {
    public static let operatorsFile = "operators.csv"
    public static let linesFile = "lines.csv"
    public static let stationsFile = "stations.csv"
    public static let stationLinesFile = "stations_lines.csv"

    static func operatorKey(_ id: Int) -> String { buildKey { $0.text("o:"); $0.number(id) } }
    static func lineKey(_ id: Int) -> String { buildKey { $0.text("l:"); $0.number(id) } }
    static func stationKey(_ id: Int) -> String { buildKey { $0.text("s:"); $0.number(id) } }

    /// Empty optional text (yomi, wiki, address) is read as "unknown" (nil) so
    /// that a later source may fill it in; the merge writes '' if none does.
    public static func read(folder: String, label: String) throws -> SourceNetwork {
        try readRows(folder: folder, label: label).sourceNetwork()
    }

    /// The folder read as the only source: what `NetworkMerger.add` makes of
    /// `read`'s network when no source comes before or after it, built straight
    /// from the checked rows, with references as indices rather than keys looked
    /// up (IngestTests check that both give the same outcome). Most of a
    /// national native ingest was making the network's values and then merging
    /// them by key.
    static func readAsOnlySource(folder: String, label: String) throws -> NetworkMerger {
        try readRows(folder: folder, label: label).merged()
    }

    /// Every table read and checked; values not yet made for the stations and their lines.
    static func readRows(folder: String, label: String) throws -> NativeRows {
        var problems = DiagnosticCollector(limit: 100)
        // Required columns; `enabled`, `l_type`, `yomi`, `wiki` and `address` may be absent.
        let operatorsTable = try SourceTable.load(folder: folder, label: label, name: operatorsFile,
                                                  required: ["o_id", "operator", "type"], &problems)
        let linesTable = try SourceTable.load(folder: folder, label: label, name: linesFile,
                                              required: ["l_id", "line", "o_id"], &problems)
        let stationsTable = try SourceTable.load(folder: folder, label: label, name: stationsFile,
                                                 required: ["s_id", "station", "pref", "lat", "lng", "o_id"], &problems)
        let stationLinesTable = try SourceTable.load(folder: folder, label: label, name: stationLinesFile,
                                                     required: ["l_id", "s_id", "s_sort"], &problems)
        // Row checks on a table whose header is broken would only repeat the problem.
        try problems.check()
        guard let operatorsTable, let linesTable, let stationsTable, let stationLinesTable else {
            preconditionFailure("a table that fails to load always leaves a problem")
        }

        var network = SourceNetwork(kind: .native, label: label)
        let operatorTypes = Set(OperatorType.allCases.map(\.rawValue))
        let operatorTypeList = OperatorType.allCases.map { String($0.rawValue) }.joined(separator: ", ")

        // stations_lines rows are made once they are in key order (KeyOrder.swift).
        var stationLineOrder: [StationLineRow] = []

        // operators.csv
        var operatorIDs = FirstSeen()
        do {
            let t = operatorsTable
            let cID = t.column("o_id"), cName = t.column("operator"), cType = t.column("type"), cEnabled = t.column("enabled")
            network.operators.reserveCapacity(t.count)
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = operatorIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "o_id", &problems) }
                let name = t.name(r, cName, &problems)
                var type = t.int(r, cType, &problems)
                if let v = type, !operatorTypes.contains(v) {
                    problems.add(t.location(r, cType), "expected an operator type (\(operatorTypeList)), found \(v)")
                    type = nil
                }
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                if let id, unique, let name, let type, let enabled {
                    network.operators.append(SourceOperator(key: operatorKey(id), fixedID: id, name: name, type: type,
                                                            enabled: enabled, origin: t.location(r)))
                }
            }
        }

        var operatorIndex = IDTable(capacity: network.operators.count)
        for (i, op) in network.operators.enumerated() { _ = operatorIndex.insertIfAbsent(op.fixedID!, value: i) }
        let operatorKeys = network.operators.map(\.key)
        // The key of a checked o_id: shared with its operator's value when that is valid.
        func keyOfOperator(_ id: Int) -> String { operatorIndex.value(id).map { operatorKeys[$0] } ?? operatorKey(id) }

        // lines.csv
        var lineIDs = FirstSeen()
        do {
            let t = linesTable
            let cID = t.column("l_id"), cName = t.column("line"), cOperator = t.column("o_id")
            let cEnabled = t.column("enabled"), cType = t.column("l_type")
            network.lines.reserveCapacity(t.count)
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = lineIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "l_id", &problems) }
                let name = t.name(r, cName, &problems)
                var operatorID = t.int(r, cOperator, &problems)
                if let o = operatorID, !operatorIDs.contains(o) {
                    problems.add(t.location(r, cOperator), "expected an o_id listed in \(operatorsTable.file), found \(o)")
                    operatorID = nil
                }
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                let type = t.optionalInt(r, cType, &problems)
                if let id, unique, let name, let operatorID, let enabled, type.ok {
                    network.lines.append(SourceLine(key: lineKey(id), fixedID: id, name: name, operatorKey: keyOfOperator(operatorID),
                                                    enabled: enabled, type: type.value, origin: t.location(r)))
                }
            }
        }

        // stations.csv
        var stationIDs = FirstSeen(capacity: stationsTable.count)
        var stationRows: [StationRowNumbers] = []
        do {
            let t = stationsTable
            // Text columns other than the name are made into strings later (NativeRows).
            let cID = t.column("s_id"), cName = t.column("station")
            let cPref = t.column("pref"), cLat = t.column("lat"), cLng = t.column("lng")
            let cOperator = t.column("o_id"), cEnabled = t.column("enabled")
            // Valid rows are kept as plain numbers first, put in key order, and
            // only then made into values: sorting the values themselves would copy
            // every string they hold at each step.
            var valid: [StationRowNumbers] = []
            valid.reserveCapacity(t.count)
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = stationIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "s_id", &problems) }
                // Checked here, made into a string once, with the other text (NativeRows).
                let named = t.hasName(r, cName, &problems)
                let pref = t.int(r, cPref, range: 1...47, &problems)
                let lat = t.microDegrees(r, cLat, &problems)
                let lng = t.microDegrees(r, cLng, &problems)
                var inJapan = false
                if let lat, let lng { inJapan = t.checkInJapan(r, lat: lat, lng: lng, field: "lat, lng", &problems) }
                var operatorID = t.int(r, cOperator, &problems)
                if let o = operatorID, !operatorIDs.contains(o) {
                    problems.add(t.location(r, cOperator), "expected an o_id listed in \(operatorsTable.file), found \(o)")
                    operatorID = nil
                }
                let enabled = t.bool(r, cEnabled, default: true, &problems)
                if let id, unique, named, let pref, let lat, let lng, inJapan, let operatorID, let enabled {
                    valid.append(StationRowNumbers(id: id, order: TextOrderKey(id), record: r, pref: pref, lat: lat, lng: lng,
                                                   operatorID: operatorID, enabled: enabled))
                }
            }
            stationRows = valid
        }
        // stations_lines.csv
        do {
            let t = stationLinesTable
            let cLine = t.column("l_id"), cStation = t.column("s_id"), cSort = t.column("s_sort")
            // (l_id, s_id) is unique in the bundle (stations_lines_unique_index).
            var pairs = StationLinePairs(stations: stationsTable.count)
            stationLineOrder.reserveCapacity(t.count)
            for r in t.records {
                var lineID = t.int(r, cLine, &problems)
                if let l = lineID, !lineIDs.contains(l) {
                    problems.add(t.location(r, cLine), "expected an l_id listed in \(linesTable.file), found \(l)")
                    lineID = nil
                }
                var stationID = t.int(r, cStation, &problems)
                if let s = stationID, !stationIDs.contains(s) {
                    problems.add(t.location(r, cStation), "expected an s_id listed in \(stationsTable.file), found \(s)")
                    stationID = nil
                }
                let sort = t.int(r, cSort, &problems)
                guard let lineID, let stationID else { continue }
                if let earlier = pairs.insertIfAbsent(line: lineID, station: stationID, value: t.line(r)) {
                    problems.add(t.location(r, field: "l_id, s_id"),
                                 "expected each station once per line, found l_id \(lineID), s_id \(stationID) again (first on line \(earlier))")
                    continue
                }
                if let sort {
                    stationLineOrder.append(StationLineRow(line: lineID, lineOrder: TextOrderKey(lineID), sort: sort, station: stationID,
                                                           stationOrder: TextOrderKey(stationID), recordLine: t.line(r)))
                }
            }
        }

        try problems.check()
        return NativeRows(network: network, stationsTable: stationsTable, stationRows: stationRows, stationLinesFile: stationLinesTable.file,
                          stationLines: stationLineOrder)
    }
}

/// A native folder read and checked: operators and lines as values, stations
/// and stations_lines as numbers, all in key order.
struct NativeRows {
    /// Operators and lines; no stations or station-lines yet.
    var network: SourceNetwork
    let stationsTable: SourceTable
    var stationRows: [StationRowNumbers]
    let stationLinesFile: String
    var stationLines: [StationLineRow]

    private func stationColumns() -> (name: SourceColumn, yomi: SourceColumn, wiki: SourceColumn, address: SourceColumn) {
        let t = stationsTable
        return (t.column("station"), t.column("yomi"), t.column("wiki"), t.column("address"))
    }

    func sourceNetwork() -> SourceNetwork {
        var network = self.network
        let t = stationsTable, c = stationColumns()
        // Values go into key order by their IDs (fixedID is the ID), so that
        // sortByKey() below is a single confirming pass.
        network.operators = inIDOrder(network.operators) { $0.fixedID! }
        network.lines = inIDOrder(network.lines) { $0.fixedID! }
        let stationRows = self.stationRows.sorted { $0.order < $1.order }
        let stationLines = self.stationLines.sorted { a, b in
            if a.line != b.line { return a.lineOrder < b.lineOrder }
            if a.sort != b.sort { return a.sort < b.sort }
            return a.stationOrder < b.stationOrder
        }
        var operatorIndex = IDTable(capacity: network.operators.count)
        for (i, op) in network.operators.enumerated() { _ = operatorIndex.insertIfAbsent(op.fixedID!, value: i) }
        // Keys already made for the values are shared rather than made again.
        let operatorKeys = network.operators.map(\.key)
        network.stations.reserveCapacity(stationRows.count)
        for v in stationRows {
            let r = v.record
            network.stations.append(SourceStation(
                key: NativeCSVReader.stationKey(v.id), matchKeys: [], fixedID: v.id, name: t.text(r, c.name),
                yomi: t.optionalText(r, c.yomi), wiki: t.optionalText(r, c.wiki), pref: v.pref,
                address: t.optionalText(r, c.address), lat: v.lat, lng: v.lng,
                operatorKey: operatorKeys[operatorIndex.value(v.operatorID)!], enabled: v.enabled, origin: t.location(r)))
        }
        var lineIndex = IDTable(capacity: network.lines.count), stationIndex = IDTable(capacity: network.stations.count)
        for (i, line) in network.lines.enumerated() { _ = lineIndex.insertIfAbsent(line.fixedID!, value: i) }
        for (i, station) in network.stations.enumerated() { _ = stationIndex.insertIfAbsent(station.fixedID!, value: i) }
        let stations = network.stations, lines = network.lines
        network.stationLines = stationLines.map {
            SourceStationLine(lineKey: lines[lineIndex.value($0.line)!].key, stationKey: stations[stationIndex.value($0.station)!].key,
                              sort: $0.sort, origin: SourceLocation(file: stationLinesFile, line: $0.recordLine))
        }
        network.sortByKey()     // now a single confirming pass
        return network
    }

    /// In ID order, which is the network's own (RailNetwork.sortByKey), rather
    /// than the source's key order: the merge's order is not the outcome's.
    /// Consuming, so the rows are sorted in place: at 100 times national a sorted
    /// copy of each was 140 MB of fresh pages.
    consuming func merged() -> NetworkMerger {
        let t = stationsTable, c = stationColumns()
        stationRows.sort { $0.id < $1.id }
        stationLines.sort { ($0.line, $0.sort, $0.station) < ($1.line, $1.sort, $1.station) }
        let stationRows = self.stationRows, lineRows = self.stationLines
        let operators = network.operators.sorted { $0.fixedID! < $1.fixedID! }.map {
            MergedOperator(keys: [$0.key], fixedID: $0.fixedID, name: $0.name, type: $0.type, enabled: $0.enabled, origin: $0.origin)
        }
        let operatorOfKey = Dictionary(uniqueKeysWithValues: operators.enumerated().map { ($1.keys[0], $0) })
        let sourceLines = network.lines.sorted { $0.fixedID! < $1.fixedID! }
        var lineIndex = IDTable(capacity: sourceLines.count)
        for (i, line) in sourceLines.enumerated() { _ = lineIndex.insertIfAbsent(line.fixedID!, value: i) }
        let lines = sourceLines.map {
            MergedLine(keys: [$0.key], fixedID: $0.fixedID, name: $0.name, operatorIndex: operatorOfKey[$0.operatorKey]!,
                       type: $0.type, enabled: $0.enabled, origin: $0.origin)
        }
        var operatorIndex = IDTable(capacity: operators.count)
        for (i, op) in operators.enumerated() { _ = operatorIndex.insertIfAbsent(op.fixedID!, value: i) }
        var stationIndex = IDTable(capacity: stationRows.count)
        var stations: [MergedStation] = []
        stations.reserveCapacity(stationRows.count)
        for v in stationRows {
            let r = v.record
            _ = stationIndex.insertIfAbsent(v.id, value: stations.count)
            stations.append(MergedStation(keys: [NativeCSVReader.stationKey(v.id)], fixedID: v.id, name: t.text(r, c.name),
                                          yomi: t.optionalText(r, c.yomi), wiki: t.optionalText(r, c.wiki), pref: v.pref,
                                          address: t.optionalText(r, c.address), lat: v.lat, lng: v.lng,
                                          operatorIndex: operatorIndex.value(v.operatorID)!, enabled: v.enabled, origin: t.location(r)))
        }
        let stationLines = lineRows.map {
            MergedStationLine(lineIndex: lineIndex.value($0.line)!, stationIndex: stationIndex.value($0.station)!, sort: $0.sort)
        }
        return NetworkMerger(onlySource: (operators, lines, stations, stationLines))
    }
}

struct StationRowNumbers {
    var id: Int
    var order: TextOrderKey
    var record: Int
    var pref: Int
    var lat: Int
    var lng: Int
    var operatorID: Int
    var enabled: Bool
}

struct StationLineRow {
    var line: Int
    var lineOrder: TextOrderKey
    var sort: Int
    var station: Int
    var stationOrder: TextOrderKey
    var recordLine: Int
}

