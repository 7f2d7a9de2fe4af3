import FoundationEssentials
import StationCore

/// Reads a release of the open upstream `station_database` (docs/sources.md §4):
/// company.csv, line.csv, station.csv and register.csv in one folder. `NULL`
/// stands for a missing value; every other value is kept as the file holds it.
///
/// Mapping to the bundle's model:
/// - one operator per company ("station_database:company:<code>"), its type from
///   company.type as ekidata's company_type (`EkidataReader.operatorType`),
///   enabled when `closed` is 0;
/// - one line per line ("station_database:line:<id>"), l_type 1 when its name
///   says 新幹線; its `name_formal` is kept as another name the registry may know
///   it by; enabled when `closed` is 0;
/// - the upstream has one station per place for all its operators, the bundle one
///   per operator, and a Shinkansen station apart from the conventional one
///   (bundle.md): so one bundle station per (station, company of the line,
///   Shinkansen or not) of register.csv, keyed
///   "station_database:station:<id>:company:<code>[:shinkansen]". The upstream's `id`
///   is its stable identity; its `code` (ekidata's station_cd) is reused between
///   releases, so it is no key at all. Name `original_name` (the upstream's `name`
///   adds a place to tell homonyms apart, 上道(岡山)), yomi `name_kana`, pref
///   `prefecture`, address as given; enabled when the station is open and so is
///   one of its lines of that operator;
/// - one stations_lines row per register.csv row, s_sort its `index`.
///
/// Every problem is collected (up to 100) and thrown as one StationError of bad input.
package enum StationDatabaseReader {
    package static let companyFile = "company.csv"
    package static let lineFile = "line.csv"
    package static let stationFile = "station.csv"
    package static let registerFile = "register.csv"
    package static let files = [companyFile, lineFile, stationFile, registerFile]
    /// Where each file lives in the upstream's repository (its base URL is the
    /// repository's root): what `stationdb fetch` appends to the source's url.
    package static let repositoryPaths = [companyFile: "src/company.csv", lineFile: "out/main/line.csv",
                                         stationFile: "out/main/station.csv", registerFile: "out/main/register.csv"]
    /// The upstream's note of its release, `{"version": 20260529, ...}`, kept beside the files by fetch.
    package static let releaseFile = "latest_info.json"
    /// The columns each file must have (fetch checks a download against them too).
    package static let requiredColumns: [String: [String]] = [
        companyFile: ["code", "name", "type", "closed"],
        lineFile: ["code", "id", "name", "name_formal", "company_code", "closed"],
        stationFile: ["code", "id", "original_name", "name_kana", "lat", "lng", "prefecture", "address", "closed"],
        registerFile: ["station_code", "line_code", "index"],
    ]

    package static func operatorKey(_ code: Int) -> String { prefix + "company:\(code)" }
    package static func lineKey(_ id: String) -> String { prefix + "line:\(id)" }
    /// "station_database:station:<id>:company:<code>[:shinkansen]" (":line-operator:<line id>" for a line with no company).
    static func stationKey(id: String, operatorKey: String, shinkansen: Bool) -> String {
        "station_database:station:\(id):\(operatorKey.dropFirst(prefix.count))" + (shinkansen ? ShinkansenKey.mark : "")
    }
    static let prefix = "station_database:"

    struct LineInfo { var key: String; var operatorKey: String; var shinkansen: Bool; var open: Bool }
    struct Registration { var line: Int; var index: Int; var origin: SourceLocation }

    package static func read(folder: String, label: String) throws -> SourceNetwork {
        var problems = DiagnosticCollector(limit: 100)
        func load(_ file: String) -> CSVTable? { loadTable(folder, label, file, CSVColumns(required: requiredColumns[file]!, optional: nil), &problems) }
        let companyTable = load(companyFile), lineTable = load(lineFile), stationTable = load(stationFile), registerTable = load(registerFile)
        try problems.check()
        guard let companyTable, let lineTable, let stationTable, let registerTable else {
            preconditionFailure("a table that fails to load always leaves a problem")
        }
        var network = SourceNetwork(kind: .stationDatabase, label: label)

        var companies = FirstSeen()
        do {
            let t = companyTable
            let cCode = t.column("code"), cName = t.column("name"), cType = t.column("type"), cClosed = t.column("closed")
            let cFormal = t.column("name_formal")
            for r in t.records {
                let code = t.int(r, cCode, &problems)
                let unique = code.map { companies.insert($0, line: t.line(r), at: t.location(r, cCode), what: "company code", &problems) } ?? false
                let name = t.name(r, cName, &problems)
                let type = t.int(r, cType, &problems)
                if let type, !(0...3).contains(type) {
                    network.warnings.append(Diagnostic(t.location(r, cType), "unknown company type \(type) (known: 0, 1, 2, 3); read as 0, other"))
                }
                let closed = t.bool(r, cClosed, default: false, &problems)
                if let code, unique, let name, let type, let closed {
                    network.operators.append(SourceOperator(
                        key: operatorKey(code), name: name, otherNames: text(t, r, cFormal).map { [$0] } ?? [],
                        type: EkidataReader.operatorType(companyType: (0...3).contains(type) ? type : 0, name: name),
                        enabled: !closed, origin: t.location(r)))
                }
            }
        }

        var lineCodes = FirstSeen(), lineIDs = Set<String>()
        var lines: [Int: LineInfo] = [:]
        do {
            let t = lineTable
            let cCode = t.column("code"), cID = t.column("id"), cName = t.column("name"), cFormal = t.column("name_formal")
            let cCompany = t.column("company_code"), cClosed = t.column("closed")
            for r in t.records {
                let code = t.int(r, cCode, &problems)
                let unique = code.map { lineCodes.insert($0, line: t.line(r), at: t.location(r, cCode), what: "line code", &problems) } ?? false
                let id = identity(t, r, cID, &lineIDs, &problems)
                let name = t.name(r, cName, &problems)
                // NULL: a company company.csv does not list yet (ハピラインふくい線 in v20260529).
                let company: Int?? = text(t, r, cCompany) == nil ? .some(nil)
                    : reference(t, r, cCompany, in: companies, listedIn: companyTable.file, &problems).map { .some($0) }
                let closed = t.bool(r, cClosed, default: false, &problems)
                if let code, unique, let id, let name, let company, let closed {
                    let shinkansen = containsText(name, "新幹線")
                    let operatorKey = company.map(operatorKey) ?? prefix + "line-operator:\(id)"
                    if company == nil {
                        // The bundle gives every line an operator: the line's own, named as the line.
                        network.warnings.append(Diagnostic(t.location(r, cCompany), "no company for the line \(shown(name)); "
                                                           + "published under an operator of its own named as the line, type 5 (other)"))
                        network.operators.append(SourceOperator(key: operatorKey, name: name, type: OperatorType.thirdSectorOrOther,
                                                                enabled: !closed, origin: t.location(r)))
                    }
                    lines[code] = LineInfo(key: lineKey(id), operatorKey: operatorKey, shinkansen: shinkansen, open: !closed)
                    network.lines.append(SourceLine(key: lineKey(id), name: name, otherNames: text(t, r, cFormal).map { [$0] } ?? [],
                                                    operatorKey: operatorKey, enabled: !closed,
                                                    type: shinkansen ? LineType.shinkansen : nil, origin: t.location(r)))
                }
            }
        }

        // register.csv first: a station's bundle stations are its operators' on its lines. A row
        // naming a line or a station the release's line.csv or station.csv does not list is the
        // upstream's `extra` dataset (closed lines and stations), which its releases before
        // v20220711 listed here too: not read, and said once.
        var registrations: [Int: [Registration]] = [:], extra: [SourceLocation] = []
        do {
            let t = registerTable
            let cStation = t.column("station_code"), cLine = t.column("line_code"), cIndex = t.column("index")
            var seen: [[Int]: Int] = [:]
            for r in t.records {
                let station = t.int(r, cStation, &problems)
                let line = t.int(r, cLine, &problems)
                let index = t.int(r, cIndex, &problems)
                guard let station, let line, let index else { continue }
                guard lineCodes.contains(line) else {
                    extra.append(t.location(r, cLine))
                    continue
                }
                if let earlier = seen.updateValue(t.line(r), forKey: [station, line]) {
                    problems.add(t.location(r, field: "station_code, line_code"),
                                 "expected each station once per line, found station \(station) on line \(line) again (first on line \(earlier))")
                    continue
                }
                registrations[station, default: []].append(Registration(line: line, index: index, origin: t.location(r)))
            }
        }

        var stationCodes = FirstSeen(), stationIDs = Set<String>()
        do {
            let t = stationTable
            let cCode = t.column("code"), cID = t.column("id"), cName = t.column("original_name"), cKana = t.column("name_kana")
            let cLat = t.column("lat"), cLng = t.column("lng"), cPref = t.column("prefecture"), cAddress = t.column("address")
            let cClosed = t.column("closed")
            for r in t.records {
                let code = t.int(r, cCode, &problems)
                let unique = code.map { stationCodes.insert($0, line: t.line(r), at: t.location(r, cCode), what: "station code", &problems) } ?? false
                let id = identity(t, r, cID, &stationIDs, &problems)
                let name = t.name(r, cName, &problems)
                let pref = t.int(r, cPref, range: 1...47, &problems)
                let lat = t.microDegrees(r, cLat, &problems), lng = t.microDegrees(r, cLng, &problems)
                var inJapan = false
                if let lat, let lng { inJapan = checkInJapan(t, r, lat: lat, lng: lng, field: "lat, lng", &problems) }
                let closed = t.bool(r, cClosed, default: false, &problems)
                guard let code, unique, let id, let name, let pref, let lat, let lng, inJapan, let closed else { continue }
                // A line whose row has a problem (already collected) gives no station.
                guard let registered = registrations.removeValue(forKey: code)?.filter({ lines[$0.line] != nil }), !registered.isEmpty else {
                    problems.add(t.location(r, cCode), "expected station \(code) on at least one line of \(registerTable.file), found none")
                    continue
                }
                // One bundle station per operator, the conventional one before the Shinkansen one.
                struct Group: Hashable, Comparable {
                    var operatorKey: String, shinkansen: Int
                    static func < (a: Group, b: Group) -> Bool { (a.operatorKey, a.shinkansen) < (b.operatorKey, b.shinkansen) }
                }
                let byGroup = Dictionary(grouping: registered) { Group(operatorKey: lines[$0.line]!.operatorKey, shinkansen: lines[$0.line]!.shinkansen ? 1 : 0) }
                for group in byGroup.keys.sorted() {
                    let key = stationKey(id: id, operatorKey: group.operatorKey, shinkansen: group.shinkansen == 1)
                    let onLines = byGroup[group]!
                    network.stations.append(SourceStation(
                        key: key, keyIsIdentity: true, name: name, yomi: text(t, r, cKana), wiki: nil, pref: pref, address: text(t, r, cAddress),
                        lat: lat, lng: lng, operatorKey: group.operatorKey,
                        enabled: !closed && onLines.contains { lines[$0.line]!.open }, origin: t.location(r)))
                    for x in onLines {
                        network.stationLines.append(SourceStationLine(lineKey: lines[x.line]!.key, stationKey: key, sort: x.index, origin: x.origin))
                    }
                }
            }
        }
        for (code, rows) in registrations where !stationCodes.contains(code) {
            extra += rows.map { var place = $0.origin; place.field = "station_code"; return place }
        }
        if let first = extra.min(by: { ($0.line ?? 0) < ($1.line ?? 0) }) {
            network.warnings.append(Diagnostic(first, "\(extra.count) row\(extra.count == 1 ? " names" : "s name") a line or a station that \(lineTable.file) or "
                                               + "\(stationTable.file) does not list (the upstream's extra dataset of closed lines and stations, "
                                               + "which its releases before v20220711 listed here too): not read; this is the first"))
        }
        try problems.check()
        network.sortByKey()
        return network
    }

    /// The release a latest_info.json names (`{"version": 20260529, ...}`), or nil.
    package static func release(of bytes: [UInt8]) -> Int? {
        struct Info: Decodable { var version: Int }
        return try? JSONDecoder().decode(Info.self, from: Data(bytes)).version
    }

    /// Optional text: `NULL` or nothing is missing; anything else verbatim.
    static func text(_ t: CSVTable, _ r: Int, _ column: CSVColumn) -> String? {
        t.bytes(r, column).elementsEqual("NULL".utf8) ? nil : t.optionalText(r, column)
    }

    /// The upstream's own stable id of a row: text, unique in its file.
    static func identity(_ t: CSVTable, _ r: Int, _ column: CSVColumn, _ seen: inout Set<String>, _ problems: inout DiagnosticCollector) -> String? {
        guard let id = text(t, r, column) else {
            problems.add(t.location(r, column), "expected the upstream's id, found nothing")
            return nil
        }
        guard seen.insert(id).inserted else {
            problems.add(t.location(r, column), "expected a unique id, found \(shown(id)) again")
            return nil
        }
        return id
    }
}
