import StationCore

/// Reads an ekidata.jp CSV folder (sources.md §2): company.csv, line.csv,
/// station.csv and join.csv.
///
/// Mapping to the bundle's model:
/// - one operator per company ("ekidata:company:<company_cd>"), its type from
///   `operatorType(companyType:name:)`, enabled when e_status is 0;
/// - one line per line ("ekidata:line:<line_cd>"), l_type 1 when its name says
///   新幹線, else line_type when numeric; enabled when e_status is 0 (1 not yet
///   open and 2 closed are both disabled);
/// - one station per (company, station_g_cd, Shinkansen or not): ekidata has a
///   row per station *on one line* and groups the rows of one place with
///   station_g_cd, but a Shinkansen station is a separate station from the
///   conventional one of the same name (bundle.md). Key
///   "ekidata:station:<company_cd>:<station_g_cd>[:shinkansen]", matchKeys
///   "code:<station_cd>" of every row, fields from the row with the smallest
///   station_cd, enabled when any row is in service;
/// - one stations_lines row per station row; see `orderAlongLine` for s_sort.
///
/// Every problem is collected (up to 100) and thrown as one StationError of bad input.
package enum EkidataReader {
    package static let companyFile = "company.csv"
    package static let lineFile = "line.csv"
    package static let stationFile = "station.csv"
    package static let joinFile = "join.csv"

    package static let files = [companyFile, lineFile, stationFile, joinFile]
    /// The columns each file must have (fetch checks a download against them too).
    package static let requiredColumns: [String: [String]] = [
        companyFile: ["company_cd", "company_name", "company_type", "e_status"],
        lineFile: ["line_cd", "company_cd", "line_name", "e_status"],
        stationFile: ["station_cd", "station_g_cd", "station_name", "line_cd", "pref_cd", "lon", "lat", "e_status"],
        joinFile: ["line_cd", "station_cd1", "station_cd2"],
    ]

    package static func operatorKey(_ companyCD: Int) -> String { "ekidata:company:\(companyCD)" }
    package static func lineKey(_ lineCD: Int) -> String { "ekidata:line:\(lineCD)" }
    package static func stationKey(companyCD: Int, groupCD: Int, shinkansen: Bool) -> String {
        "ekidata:station:\(companyCD):\(groupCD)" + (shinkansen ? ShinkansenKey.mark : "")
    }
    package static func matchKey(_ stationCD: Int) -> String { "code:\(stationCD)" }

    /// The bundle's operator type (bundle.md) for an ekidata company.
    ///
    /// company_type 1, 2, 3 (JR, major private, semi-major) map as they are.
    /// For 0 ("other") ekidata says nothing more, so the company name decides,
    /// first match wins (order matters: 横浜新都市交通 contains 市交通):
    /// - モノレール, スカイレール (a suspended monorail), and the monorail companies
    ///   whose names do not say so (大阪高速鉄道, 北九州高速鉄道) -> 6 monorail
    /// - ケーブル, 鋼索 -> 8 cable car / funicular
    /// - リニモ, 愛知高速交通 (Linimo is maglev) -> 10 other
    /// - 新交通 / 新都市交通 and the named automated guideway systems (ゆりかもめ,
    ///   ニューシャトル, ポートライナー, 六甲ライナー, シーサイドライン, 日暮里・舎人ライナー,
    ///   ニュートラム, ピーチライナー, 山万, レオライナー, アストラムライン, 広島高速交通),
    ///   ガイドウェイ -> 7 guideway transit
    /// - 交通局, 市営, 都営, 市交通 -> 4 package (municipal)
    /// - anything else -> 5 third sector and other private
    package static func operatorType(companyType: Int, name: String) -> Int {
        switch companyType {
        case 1: return OperatorType.jr
        case 2: return OperatorType.majorPrivate
        case 3: return OperatorType.semiMajorPrivate
        default: break
        }
        func any(_ words: [String]) -> Bool { words.contains { containsText(name, $0) } }
        if any(["モノレール", "スカイレール", "大阪高速鉄道", "北九州高速鉄道"]) { return OperatorType.monorail }
        if any(["ケーブル", "鋼索"]) { return OperatorType.cable }
        if any(["リニモ", "愛知高速交通"]) { return OperatorType.other }
        if any(["新交通", "新都市交通", "ゆりかもめ", "ニューシャトル", "ポートライナー", "六甲ライナー", "シーサイドライン",
                "日暮里・舎人ライナー", "ニュートラム", "ピーチライナー", "山万", "レオライナー", "アストラムライン",
                "広島高速交通", "ガイドウェイ"]) {
            return OperatorType.guideway
        }
        if any(["交通局", "市営", "都営", "市交通"]) { return OperatorType.publicMunicipal }
        return OperatorType.thirdSectorOrOther
    }

    /// One valid row of station.csv.
    struct StationRow {
        var stationCD: Int
        var groupCD: Int
        var lineCD: Int
        var name: String
        var kana: String?
        var pref: Int
        var address: String?
        var lat: Int
        var lng: Int
        var inService: Bool
        var sortKey: Int      // e_sort, or station_cd when e_sort is empty
        var origin: SourceLocation
    }

    struct LineInfo {
        var companyCD: Int
        var shinkansen: Bool
    }

    package static func read(folder: String, label: String) throws -> SourceNetwork {
        var problems = DiagnosticCollector(limit: 100)
        func load(_ file: String) -> CSVTable? { loadTable(folder, label, file, CSVColumns(required: requiredColumns[file]!, optional: nil), &problems) }
        let companyTable = load(companyFile), lineTable = load(lineFile), stationTable = load(stationFile), joinTable = load(joinFile)
        try problems.check()
        guard let companyTable, let lineTable, let stationTable, let joinTable else {
            preconditionFailure("a table that fails to load always leaves a problem")
        }

        var network = SourceNetwork(kind: .ekidata, label: label)

        // company.csv
        var companyIDs = FirstSeen()
        do {
            let t = companyTable
            let cID = t.column("company_cd"), cName = t.column("company_name"), cType = t.column("company_type")
            let cStatus = t.column("e_status")
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = companyIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "company_cd", &problems) }
                let name = t.name(r, cName, &problems)
                // company_type: 1 JR, 2 major private, 3 semi-major, 0 other; another code is read as other.
                let companyType = t.optionalInt(r, cType, &problems)
                if let v = companyType ?? nil, !(0...3).contains(v) {
                    network.warnings.append(Diagnostic(t.location(r, cType), "unknown company_type \(v) (known: 0, 1, 2, 3); read as 0, other"))
                }
                let status = t.int(r, cStatus, range: 0...2, &problems)
                if let id, unique, let name, let companyType, let status {
                    let known = companyType.flatMap { (0...3).contains($0) ? $0 : nil } ?? 0
                    network.operators.append(SourceOperator(
                        key: operatorKey(id), name: name, type: operatorType(companyType: known, name: name),
                        enabled: status == 0, origin: t.location(r)))
                }
            }
        }

        // line.csv
        var lineIDs = FirstSeen()
        var lines: [Int: LineInfo] = [:]
        do {
            let t = lineTable
            let cID = t.column("line_cd"), cCompany = t.column("company_cd"), cName = t.column("line_name")
            let cType = t.column("line_type"), cStatus = t.column("e_status")
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = lineIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "line_cd", &problems) }
                let companyCD = reference(t, r, cCompany, in: companyIDs, listedIn: companyTable.file, &problems)
                let name = t.name(r, cName, &problems)
                let status = t.int(r, cStatus, range: 0...2, &problems)
                if let id, unique, let companyCD, let name, let status {
                    // ekidata's own line_type uses 1 for Shinkansen too, as the bundle does.
                    let type = containsText(name, "新幹線") ? LineType.shinkansen : t.lenientInt(r, cType)
                    lines[id] = LineInfo(companyCD: companyCD, shinkansen: type == LineType.shinkansen)
                    network.lines.append(SourceLine(key: lineKey(id), name: name, operatorKey: operatorKey(companyCD),
                                                    enabled: status == 0, type: type, origin: t.location(r)))
                }
            }
        }

        // station.csv
        var stationIDs = FirstSeen()
        var rows: [StationRow] = []
        do {
            let t = stationTable
            let cID = t.column("station_cd"), cGroup = t.column("station_g_cd"), cName = t.column("station_name")
            let cKana = t.column("station_name_k"), cLine = t.column("line_cd"), cPref = t.column("pref_cd")
            let cAddress = t.column("address"), cLng = t.column("lon"), cLat = t.column("lat")
            let cStatus = t.column("e_status"), cSort = t.column("e_sort")
            rows.reserveCapacity(t.count)
            for r in t.records {
                let id = t.int(r, cID, &problems)
                var unique = true
                if let id { unique = stationIDs.insert(id, line: t.line(r), at: t.location(r, cID), what: "station_cd", &problems) }
                let groupCD = t.int(r, cGroup, &problems)
                let name = t.name(r, cName, &problems)
                let lineCD = reference(t, r, cLine, in: lineIDs, listedIn: lineTable.file, &problems)
                let pref = t.int(r, cPref, range: 1...47, &problems)
                // ekidata puts longitude (lon) before latitude (lat).
                let lng = t.microDegrees(r, cLng, &problems)
                let lat = t.microDegrees(r, cLat, &problems)
                var inJapan = false
                if let lat, let lng { inJapan = checkInJapan(t, r, lat: lat, lng: lng, field: "lat, lon", &problems) }
                let status = t.int(r, cStatus, range: 0...2, &problems)
                let sort = t.optionalInt(r, cSort, &problems)
                if let id, unique, let groupCD, let name, let lineCD, let pref, let lat, let lng, inJapan, let status, let sort {
                    let kana = t.optionalText(r, cKana)
                    rows.append(StationRow(stationCD: id, groupCD: groupCD, lineCD: lineCD, name: name,
                                           kana: kana.map(Kana.hiragana), pref: pref, address: t.optionalText(r, cAddress),
                                           lat: lat, lng: lng, inService: status == 0, sortKey: sort ?? id,
                                           origin: t.location(r)))
                }
            }
        }

        // join.csv: neighbouring stations along a line, used for s_sort.
        var joins: [Int: [(Int, Int)]] = [:]
        do {
            let t = joinTable
            let cLine = t.column("line_cd"), cFrom = t.column("station_cd1"), cTo = t.column("station_cd2")
            for r in t.records {
                let lineCD = reference(t, r, cLine, in: lineIDs, listedIn: lineTable.file, &problems)
                var ends: [Int] = []
                for c in [cFrom, cTo] {
                    guard let s = t.int(r, c, &problems) else { continue }
                    if stationIDs.contains(s) {
                        ends.append(s)
                    } else {
                        problems.add(t.location(r, c), "expected a station_cd listed in \(stationTable.file), found \(s)")
                    }
                }
                if let lineCD, ends.count == 2 { joins[lineCD, default: []].append((ends[0], ends[1])) }
            }
        }
        try problems.check()

        // Stations: group rows by (company, station_g_cd, Shinkansen). Rows go in
        // station_cd order, so each group's first row is its smallest station_cd.
        rows.sort { $0.stationCD < $1.stationCD }
        struct GroupKey: Hashable { var company: Int; var group: Int; var shinkansen: Bool }
        var groupIndex: [GroupKey: Int] = [:]
        var groupRows: [[Int]] = []
        var rowGroup = [Int](repeating: 0, count: rows.count)
        for (i, row) in rows.enumerated() {
            let line = lines[row.lineCD]!
            let key = GroupKey(company: line.companyCD, group: row.groupCD, shinkansen: line.shinkansen)
            if let g = groupIndex[key] {
                groupRows[g].append(i)
                rowGroup[i] = g
            } else {
                groupIndex[key] = groupRows.count
                rowGroup[i] = groupRows.count
                groupRows.append([i])
            }
        }
        var groupKeys: [String] = []
        groupKeys.reserveCapacity(groupRows.count)
        network.stations.reserveCapacity(groupRows.count)
        for members in groupRows {
            let first = rows[members[0]]
            let line = lines[first.lineCD]!
            let key = stationKey(companyCD: line.companyCD, groupCD: first.groupCD, shinkansen: line.shinkansen)
            groupKeys.append(key)
            network.stations.append(SourceStation(
                key: key, matchKeys: members.map { matchKey(rows[$0].stationCD) }.sorted(), name: first.name,
                yomi: first.kana, wiki: nil, pref: first.pref, address: first.address, lat: first.lat, lng: first.lng,
                operatorKey: operatorKey(line.companyCD), enabled: members.contains { rows[$0].inService },
                origin: first.origin))
        }

        // stations_lines: each line's rows in order along the line.
        var rowsByLine: [Int: [Int]] = [:]
        for (i, row) in rows.enumerated() { rowsByLine[row.lineCD, default: []].append(i) }
        network.stationLines.reserveCapacity(rows.count)
        for lineCD in rowsByLine.keys.sorted() {
            let members = rowsByLine[lineCD]!.sorted {
                (rows[$0].sortKey, rows[$0].stationCD) < (rows[$1].sortKey, rows[$1].stationCD)
            }
            let ordered = orderAlongLine(members.map { rows[$0].stationCD }, joins: joins[lineCD] ?? [])
            let rowOfStation = Dictionary(uniqueKeysWithValues: members.map { (rows[$0].stationCD, $0) })
            var groupsOnLine = Set<Int>()
            var position = 0
            let key = lineKey(lineCD)
            for stationCD in ordered {
                let i = rowOfStation[stationCD]!
                // Two rows of one station on one line (the same station_g_cd twice)
                // would break the bundle's unique (l_id, s_id) index: keep the first.
                guard groupsOnLine.insert(rowGroup[i]).inserted else { continue }
                position += 1
                network.stationLines.append(SourceStationLine(lineKey: key, stationKey: groupKeys[rowGroup[i]],
                                                              sort: position, origin: rows[i].origin))
            }
        }

        network.sortByKey()
        return network
    }

    /// The stations of one line in order along it, as s_sort wants.
    ///
    /// `stations` are the line's station_cds already sorted by (e_sort,
    /// station_cd), which is the fallback order. join.csv's pairs are used
    /// instead when they form one unbranched chain (or one loop) through
    /// exactly these stations: then the walk starts at the chain's end (for a
    /// loop: at the station) that comes first by (e_sort, station_cd), so
    /// both orders agree on direction. Pairs naming stations of other lines
    /// are ignored; a branching or broken chain falls back to e_sort, because
    /// no single order along it exists.
    package static func orderAlongLine(_ stations: [Int], joins: [(Int, Int)]) -> [Int] {
        chainOrder(stations, joins: joins) ?? stations
    }

    /// The order join.csv gives, or nil when it gives none (see `orderAlongLine`).
    package static func chainOrder(_ stations: [Int], joins: [(Int, Int)]) -> [Int]? {
        let n = stations.count
        guard n > 2, !joins.isEmpty else { return nil }
        var index: [Int: Int] = [:]
        index.reserveCapacity(n)
        for (i, s) in stations.enumerated() { index[s] = i }
        var neighbours = [[Int]](repeating: [], count: n)
        var edges = 0
        for (a, b) in joins {
            guard let i = index[a], let j = index[b], i != j else { continue }
            if neighbours[i].contains(j) { continue }     // the same pair twice
            neighbours[i].append(j); neighbours[j].append(i)
            edges += 1
            if neighbours[i].count > 2 || neighbours[j].count > 2 { return nil }   // a branch
        }
        let start: Int
        if edges == n - 1, let end = neighbours.firstIndex(where: { $0.count == 1 }) {
            start = end
        } else if edges == n, neighbours.allSatisfy({ $0.count == 2 }) {
            start = 0
        } else {
            return nil
        }
        var visited = [Bool](repeating: false, count: n)
        var order = [start]
        visited[start] = true
        var current = start
        // From a loop's start, go first to the neighbour that comes first.
        var next = neighbours[start].min()
        while let step = next, !visited[step] {
            visited[step] = true
            order.append(step)
            current = step
            next = neighbours[current].first { !visited[$0] }
        }
        guard order.count == n else { return nil }   // not connected
        return order.map { stations[$0] }
    }
}

/// Whether `text` holds `part`, compared as UTF-8 bytes.
package func containsText(_ text: String, _ part: String) -> Bool {
    let t = Array(text.utf8), p = Array(part.utf8)
    guard !p.isEmpty else { return true }
    guard t.count >= p.count else { return false }
    return (0...(t.count - p.count)).contains { i in t[i] == p[0] && t[i..<(i + p.count)].elementsEqual(p) }
}
