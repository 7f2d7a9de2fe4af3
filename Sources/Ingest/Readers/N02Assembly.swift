import FoundationEssentials
import Glibc
import StationCore

// Turns the parsed N02 features into a SourceNetwork: resolves curve references, derives
// operators and lines, groups station-on-line features into stations and orders them on lines.
// Every choice depends on codes and ids, never on where a feature sits in the file, so a
// re-ordered document gives the same network (only the origins' line numbers move).

package enum N02Classification {
    /// Japan's 16 major private railways (大手私鉄): bundle operator type 2. Official names, plus
    /// the short names ekidata-derived files use for them (京急電鉄, 東京メトロ, ...).
    package static let majorPrivateRailways: Set<String> = [
        "東武鉄道", "西武鉄道", "京成電鉄", "京王電鉄", "小田急電鉄", "東京急行電鉄", "東急電鉄",
        "京浜急行電鉄", "東京地下鉄", "相模鉄道", "名古屋鉄道", "近畿日本鉄道", "南海電気鉄道",
        "京阪電気鉄道", "阪急電鉄", "阪神電気鉄道", "西日本鉄道",
        // Short names
        "東急", "京急電鉄", "京浜急行", "東京メトロ", "相鉄", "名鉄", "近鉄", "南海電鉄", "京阪電鉄",
        "阪神電鉄", "西鉄",
    ]

    /// The bundle's operators.type for one N02 feature, first matching rule wins:
    /// 1. serviceProviderType 1 (Shinkansen) or 2 (JR conventional) -> 1 JR;
    /// 2. serviceProviderType 3 (public) -> 4 public;
    /// 3. railwayType 13 (cable) -> 8; 14, 15, 22, 23 (suspended/straddle, monorail) -> 6;
    ///    16, 24 (guideway) -> 7; 25 (maglev) -> 10;
    /// 4. serviceProviderType 5 (third sector) -> 5;
    /// 5. otherwise (private, or no provider type) -> 2 for the 16 major private railways, else 5.
    /// An operator whose features disagree takes the type most of its features give (see N02Assembly).
    package static func operatorType(company: String, serviceProviderType: Int?, railwayType: Int?) -> Int {
        switch serviceProviderType {
        case 1, 2: return 1
        case 3: return 4
        default: break
        }
        switch railwayType {
        case 13: return 8
        case 14, 15, 22, 23: return 6
        case 16, 24: return 7
        case 25: return 10
        default: break
        }
        if serviceProviderType == 5 { return 5 }
        return majorPrivateRailways.contains(company) ? 2 : 5
    }

    /// lines.l_type: 1 for a Shinkansen line, else unknown (a later source may fill it in).
    package static func lineType(serviceProviderType: Int?) -> Int? {
        serviceProviderType == 1 ? 1 : nil
    }
}

package enum N02Geometry {
    /// The point half-way along a polyline's length (micro-degrees).
    ///
    /// Curves are platform-sized, so lengths use a local flat projection (longitude scaled by
    /// cos(latitude) of the first point); only proportions matter. A curve of zero length gives
    /// its first point. Coordinates are rounded half away from zero.
    package static func middle(of points: [(lat: Int, lng: Int)]) -> (lat: Int, lng: Int) {
        guard let first = points.first else { return (0, 0) }
        if points.count == 1 { return first }
        let scale = cos(Double(first.lat) / 1_000_000 * .pi / 180)
        var lengths: [Double] = []
        lengths.reserveCapacity(points.count - 1)
        var total = 0.0
        for i in 1..<points.count {
            let dy = Double(points[i].lat - points[i - 1].lat)
            let dx = Double(points[i].lng - points[i - 1].lng) * scale
            let length = (dx * dx + dy * dy).squareRoot()
            lengths.append(length)
            total += length
        }
        guard total > 0 else { return first }
        let half = total / 2
        var walked = 0.0
        for i in 1..<points.count {
            let length = lengths[i - 1]
            if length > 0 && walked + length >= half {
                let t = (half - walked) / length
                let a = points[i - 1], b = points[i]
                let lat = (Double(a.lat) + Double(b.lat - a.lat) * t).rounded(.toNearestOrAwayFromZero)
                let lng = (Double(a.lng) + Double(b.lng - a.lng) * t).rounded(.toNearestOrAwayFromZero)
                return (Int(lat), Int(lng))
            }
            walked += length
        }
        return points[points.count - 1]
    }
}

/// Orders of codes and ids that do not depend on the document.
package enum N02Order {
    /// Natural order: runs of digits compare as numbers ("eb03_9" < "eb03_10"), the rest as bytes;
    /// strings equal that way ("01" and "1") fall back to byte order.
    package static func naturalLess(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { x in b.withUTF8 { y in naturalLess(x, y) } }
    }

    static func naturalLess(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var i2 = i, j2 = j
                while i2 < x.count && isDigit(x[i2]) { i2 += 1 }
                while j2 < y.count && isDigit(y[j2]) { j2 += 1 }
                var ai = i, bj = j
                while ai < i2 - 1 && x[ai] == 48 { ai += 1 }
                while bj < j2 - 1 && y[bj] == 48 { bj += 1 }
                let la = i2 - ai, lb = j2 - bj
                if la != lb { return la < lb }
                for k in 0..<la where x[ai + k] != y[bj + k] { return x[ai + k] < y[bj + k] }
                i = i2; j = j2
            } else {
                if x[i] != y[j] { return x[i] < y[j] }
                i += 1; j += 1
            }
        }
        if x.count - i != y.count - j { return x.count - i < y.count - j }
        return x.lexicographicallyPrecedes(y)
    }

    /// Members with a station code first, by code; then the rest by gml:id; the document line
    /// only breaks ties between duplicate ids.
    static func memberLess(_ a: N02StationRecord, _ b: N02StationRecord) -> Bool {
        switch (a.code, b.code) {
        case let (x?, y?) where x != y: return naturalLess(x, y)
        case (.some, nil): return true
        case (nil, .some): return false
        default: break
        }
        if a.core.gmlID != b.core.gmlID { return naturalLess(a.core.gmlID, b.core.gmlID) }
        return a.core.line < b.core.line
    }
}

struct N02Assembly {
    let label: String
    let curves: [String: N02Curve]
    let companies: [String]
    let lineNames: [String]
    let stations: [N02StationRecord]
    let sections: [N02FeatureCore]
    var diagnostics = DiagnosticCollector()

    /// Members within this distance of each other that share operator and name (and have no
    /// group code) are one station.
    static let sameStationMetres = 1_000.0

    init(label: String, curves: [String: N02Curve], companies: [String], lineNames: [String],
         stations: [N02StationRecord], sections: [N02FeatureCore]) {
        self.label = label; self.curves = curves; self.companies = companies; self.lineNames = lineNames
        self.stations = stations; self.sections = sections
    }

    func operatorKey(_ company: Int) -> String { "n02:operator:\(companies[company])" }
    func lineKey(_ line: LineID) -> String { "n02:line:\(companies[line.company]):\(lineNames[line.name])" }

    struct LineID: Hashable { var company: Int; var name: Int }

    mutating func build() throws -> SourceNetwork {
        // Resolve every reference first: a curve may come before or after its feature.
        var located: [Member] = []
        located.reserveCapacity(stations.count)
        for record in stations {
            if let curve = resolve(record.core, kind: "ksj:Station"), curve.valid {
                located.append(Member(record: record, lat: curve.lat, lng: curve.lng))
            }
        }
        for section in sections { _ = resolve(section, kind: "ksj:RailroadSection") }
        try diagnostics.check()

        var network = SourceNetwork(kind: .n02, label: label)
        network.operators = buildOperators()
        network.lines = buildLines()
        (network.stations, network.stationLines) = buildStations(located)
        network.sortByKey()
        return network
    }

    private mutating func resolve(_ core: N02FeatureCore, kind: String) -> N02Curve? {
        if let curve = curves[core.curveID] { return curve }
        let field = core.gmlID.isEmpty ? kind : "\(kind) \(core.gmlID)"
        diagnostics.add(SourceLocation(file: label, line: core.hrefLine, field: field),
                        "xlink:href \"#\(core.curveID)\" names no gml:Curve in the file")
        return nil
    }

    private func forEachFeature(_ body: (N02FeatureCore) -> Void) {
        for s in stations { body(s.core) }
        for f in sections { body(f) }
    }

    private func buildOperators() -> [SourceOperator] {
        var counts = Array(repeating: [Int](repeating: 0, count: 11), count: companies.count)
        var firstLine = Array(repeating: Int.max, count: companies.count)
        forEachFeature { f in
            let type = N02Classification.operatorType(company: companies[f.company],
                                                      serviceProviderType: f.serviceProviderType,
                                                      railwayType: f.railwayType)
            counts[f.company][type] += 1
            firstLine[f.company] = min(firstLine[f.company], f.line)
        }
        return companies.indices.compactMap { company in
            guard firstLine[company] != .max else { return nil }
            // Most features decide (a major private railway's cable car line does not make it a
            // cable operator); ties go to the smaller code.
            let tally = counts[company]
            let type = tally.indices.max { (tally[$0], -$0) < (tally[$1], -$1) }!
            return SourceOperator(key: operatorKey(company), name: companies[company], type: type, enabled: nil,
                                  origin: SourceLocation(file: label, line: firstLine[company]))
        }
    }

    private func buildLines() -> [SourceLine] {
        struct Draft { var line: Int; var shinkansen: Bool }
        var drafts: [LineID: Draft] = [:]
        forEachFeature { f in
            let id = LineID(company: f.company, name: f.lineName)
            var d = drafts[id] ?? Draft(line: f.line, shinkansen: false)
            d.line = min(d.line, f.line)
            if f.serviceProviderType == 1 { d.shinkansen = true }
            drafts[id] = d
        }
        // Any order: sortByKey orders the result.
        return drafts.map { id, d in
            SourceLine(key: lineKey(id), name: lineNames[id.name], operatorKey: operatorKey(id.company), enabled: nil,
                       type: N02Classification.lineType(serviceProviderType: d.shinkansen ? 1 : nil),
                       origin: SourceLocation(file: label, line: d.line))
        }
    }

    struct Member {
        var record: N02StationRecord
        var lat: Int
        var lng: Int
    }

    private struct GroupID: Hashable {
        var company: Int
        var shinkansen: Bool
        var groupCode: String?
        var name: String?
    }

    private func buildStations(_ located: [Member]) -> ([SourceStation], [SourceStationLine]) {
        // One canonical order, so grouping, representatives and ranks ignore document order;
        // from here on a member is its index in this order.
        // Indices are sorted rather than the records, which are costly to move, and all-digit
        // station codes (the usual case) compare as numbers without touching the strings.
        let numericCodes = located.map { m -> Int in
            guard let code = m.record.code, code.utf8.count <= 18,
                  code.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return -1 }
            return Int(code)!
        }
        let order = located.withUnsafeBufferPointer { records in
            numericCodes.withUnsafeBufferPointer { codes in
                records.indices.sorted { a, b in
                    if codes[a] >= 0 && codes[b] >= 0 && codes[a] != codes[b] { return codes[a] < codes[b] }
                    return N02Order.memberLess(records[a].record, records[b].record)
                }
            }
        }
        let members = order.map { located[$0] }

        // Each group lists its members' indices ascending, so its first is its representative.
        var groups: [(key: String, members: [Int])] = []
        var byGroupCode: [GroupID: Int] = [:]
        var byName: [GroupID: [Int]] = [:]     // clusters (indices into groups) sharing company + name
        for (i, m) in members.enumerated() {
            let r = m.record
            let company = companies[r.core.company]
            let suffix = r.isShinkansen ? ShinkansenKey.mark : ""
            if let code = r.group {
                let id = GroupID(company: r.core.company, shinkansen: r.isShinkansen, groupCode: code, name: nil)
                if let g = byGroupCode[id] {
                    groups[g].members.append(i)
                } else {
                    byGroupCode[id] = groups.count
                    groups.append(("n02:station:\(company):\(code)\(suffix)", [i]))
                }
                continue
            }
            // Without a group code, same operator + name is one station only when close by:
            // a member joins the first cluster all of whose members lie within 1 km of it;
            // the first cluster keeps the plain key, later ones get ":2", ":3", ...
            let id = GroupID(company: r.core.company, shinkansen: r.isShinkansen, groupCode: nil, name: r.name)
            let clusters = byName[id] ?? []
            if let g = clusters.first(where: { g in
                groups[g].members.allSatisfy {
                    MicroDegrees.distanceMetres(lat1: members[$0].lat, lng1: members[$0].lng,
                                                lat2: m.lat, lng2: m.lng) <= Self.sameStationMetres
                }
            }) {
                groups[g].members.append(i)
            } else {
                let base = "n02:station:\(company):\(r.name)\(suffix)"
                byName[id, default: []].append(groups.count)
                groups.append((clusters.isEmpty ? base : "\(base):\(clusters.count + 1)", [i]))
            }
        }

        // Station keys in byte order, which is sortByKey's order for NFC text, so its sort has
        // little left to do; anything else it still puts right.
        let keyBytes = groups.map { Array($0.key.utf8) }
        let keyOrder = keyBytes.withUnsafeBufferPointer { keys in
            groups.indices.sorted { a, b in
                keys[a].withUnsafeBufferPointer { p in
                    keys[b].withUnsafeBufferPointer { q in
                        let n = min(p.count, q.count)
                        let c = memcmp(p.baseAddress!, q.baseAddress!, n)
                        return c != 0 ? c < 0 : p.count < q.count
                    }
                }
            }
        }
        var result: [SourceStation] = []
        result.reserveCapacity(groups.count)
        var perLine: [LineID: [(member: Int, station: Int)]] = [:]
        for g in keyOrder {
            let group = groups[g]
            let first = members[group.members[0]]
            var codes = group.members.compactMap { members[$0].record.code.map { "code:\($0)" } }
            if codes.count > 1 { codes = Array(Set(codes)).sorted() }
            result.append(SourceStation(
                key: group.key, matchKeys: codes, name: first.record.name, yomi: nil, wiki: nil, pref: nil,
                address: nil, lat: first.lat, lng: first.lng,
                operatorKey: operatorKey(first.record.core.company), enabled: nil,
                origin: SourceLocation(file: label, line: first.record.core.line)))
            var seenLines = Set<LineID>()
            for i in group.members {
                let line = LineID(company: members[i].record.core.company, name: members[i].record.core.lineName)
                // Two members of one station on the same line: the first (canonical) one stays.
                if seenLines.insert(line).inserted {
                    perLine[line, default: []].append((i, result.count - 1))
                }
            }
        }

        var links: [SourceStationLine] = []
        links.reserveCapacity(members.count)
        // Lines in key order and stations by rank, so that sortByKey finds the links in order.
        for (line, key) in perLine.keys.map({ ($0, lineKey($0)) }).sorted(by: { $0.1 < $1.1 }) {
            let entries = perLine[line]!
            for (rank, entry) in entries.sorted(by: { $0.member < $1.member }).enumerated() {
                links.append(SourceStationLine(lineKey: key, stationKey: result[entry.station].key, sort: rank + 1,
                                               origin: SourceLocation(file: label, line: members[entry.member].record.core.line)))
            }
        }
        return (result, links)
    }
}
