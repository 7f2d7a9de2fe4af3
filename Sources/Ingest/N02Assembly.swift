import Foundation
import StationModel

// Turns the parsed N02 features into a SourceNetwork: resolves curve references, derives
// operators and lines, groups station-on-line features into stations and orders them on lines.
// Every choice depends on codes and ids, never on where a feature sits in the file, so a
// re-ordered document gives the same network (only the origins' line numbers move).

public enum N02Classification {
    /// Japan's 16 major private railways (大手私鉄): bundle operator type 2. Official names, plus
    /// the short names ekidata-derived files use for them (京急電鉄, 東京メトロ, ...).
    public static let majorPrivateRailways: Set<String> = [
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
    public static func operatorType(company: String, serviceProviderType: Int?, railwayType: Int?) -> Int {
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
    public static func lineType(serviceProviderType: Int?) -> Int? {
        serviceProviderType == 1 ? 1 : nil
    }
}

enum N02Geometry {
    /// The point half-way along a polyline's length (micro-degrees).
    ///
    /// Curves are platform-sized, so lengths use a local flat projection (longitude scaled by
    /// cos(latitude) of the first point); only proportions matter. A curve of zero length gives
    /// its first point. Coordinates are rounded half away from zero.
    static func middle(of points: [(lat: Int, lng: Int)]) -> (lat: Int, lng: Int) {
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
enum N02Order {
    /// Natural order: runs of digits compare as numbers ("eb03_9" < "eb03_10"), the rest as bytes.
    static func naturalLess(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0, j = 0
        func isDigit(_ c: UInt8) -> Bool { c >= 48 && c <= 57 }
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
        return a < b
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
    let stations: [N02StationRecord]
    let sections: [N02FeatureCore]
    var diagnostics = DiagnosticCollector()

    /// Members within this distance of each other that share operator and name (and have no
    /// group code) are one station.
    static let sameStationMetres = 1_000.0

    init(label: String, curves: [String: N02Curve], stations: [N02StationRecord], sections: [N02FeatureCore]) {
        self.label = label; self.curves = curves; self.stations = stations; self.sections = sections
    }

    static func operatorKey(_ company: String) -> String { "n02:operator:\(company)" }
    static func lineKey(_ company: String, _ line: String) -> String { "n02:line:\(company):\(line)" }

    mutating func build() throws -> SourceNetwork {
        // Resolve every reference first: a curve may come before or after its feature.
        var located: [(record: N02StationRecord, lat: Int, lng: Int)] = []
        located.reserveCapacity(stations.count)
        for record in stations {
            if let curve = resolve(record.core, kind: "ksj:Station"), curve.valid {
                located.append((record, curve.lat, curve.lng))
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

    private var allFeatures: [N02FeatureCore] { stations.map(\.core) + sections }

    private func buildOperators() -> [SourceOperator] {
        struct Tally { var line: Int; var counts: [Int: Int] = [:] }
        var tallies: [String: Tally] = [:]
        for f in allFeatures {
            let type = N02Classification.operatorType(company: f.company, serviceProviderType: f.serviceProviderType,
                                                      railwayType: f.railwayType)
            tallies[f.company, default: Tally(line: f.line)].counts[type, default: 0] += 1
            tallies[f.company]!.line = min(tallies[f.company]!.line, f.line)
        }
        return tallies.keys.sorted().map { company in
            let tally = tallies[company]!
            // Most features decide (a major private railway's cable car line does not make it a
            // cable operator); ties go to the smaller code.
            let type = tally.counts.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.first!.key
            return SourceOperator(key: Self.operatorKey(company), name: company, type: type, enabled: nil,
                                  origin: SourceLocation(file: label, line: tally.line))
        }
    }

    private func buildLines() -> [SourceLine] {
        struct Draft { var company: String; var name: String; var line: Int; var shinkansen: Bool }
        var drafts: [String: Draft] = [:]
        for f in allFeatures {
            let key = Self.lineKey(f.company, f.lineName)
            var d = drafts[key] ?? Draft(company: f.company, name: f.lineName, line: f.line, shinkansen: false)
            d.line = min(d.line, f.line)
            if f.serviceProviderType == 1 { d.shinkansen = true }
            drafts[key] = d
        }
        return drafts.keys.sorted().map { key in
            let d = drafts[key]!
            return SourceLine(key: key, name: d.name, operatorKey: Self.operatorKey(d.company), enabled: nil,
                              type: N02Classification.lineType(serviceProviderType: d.shinkansen ? 1 : nil),
                              origin: SourceLocation(file: label, line: d.line))
        }
    }

    private typealias Member = (record: N02StationRecord, lat: Int, lng: Int)

    private func buildStations(_ located: [Member]) -> ([SourceStation], [SourceStationLine]) {
        // Canonical order first, so grouping, representatives and ranks ignore document order.
        let members = located.sorted { N02Order.memberLess($0.record, $1.record) }

        // Station key -> its members, in canonical order.
        var groups: [String: [Member]] = [:]
        var byName: [String: [[Member]]] = [:]   // name-group base key -> clusters
        for m in members {
            let r = m.record
            let suffix = r.isShinkansen ? ":shinkansen" : ""
            if let group = r.group {
                groups["n02:station:\(r.core.company):\(group)\(suffix)", default: []].append(m)
                continue
            }
            // Without a group code, same operator + name is one station only when close by:
            // a member joins the first cluster all of whose members lie within 1 km of it.
            let base = "n02:station:\(r.core.company):\(r.name)\(suffix)"
            var clusters = byName[base] ?? []
            if let i = clusters.firstIndex(where: { cluster in
                cluster.allSatisfy {
                    MicroDegrees.distanceMetres(lat1: $0.lat, lng1: $0.lng, lat2: m.lat, lng2: m.lng) <= Self.sameStationMetres
                }
            }) {
                clusters[i].append(m)
            } else {
                clusters.append([m])
            }
            byName[base] = clusters
        }
        for (base, clusters) in byName {
            // Clusters are in canonical order of their first member; the first keeps the plain key.
            for (i, cluster) in clusters.enumerated() {
                groups[i == 0 ? base : "\(base):\(i + 1)", default: []].append(contentsOf: cluster)
            }
        }

        var result: [SourceStation] = []
        var perLine: [String: [(member: Member, stationKey: String)]] = [:]
        for key in groups.keys.sorted() {
            let group = groups[key]!.sorted { N02Order.memberLess($0.record, $1.record) }
            let first = group[0]
            let codes = Set(group.compactMap { $0.record.code.map { "code:\($0)" } }).sorted()
            result.append(SourceStation(
                key: key, matchKeys: codes, name: first.record.name, yomi: nil, wiki: nil, pref: nil,
                address: nil, lat: first.lat, lng: first.lng,
                operatorKey: Self.operatorKey(first.record.core.company), enabled: nil,
                origin: SourceLocation(file: label, line: first.record.core.line)))
            var seenLines = Set<String>()
            for m in group {
                let lineKey = Self.lineKey(m.record.core.company, m.record.core.lineName)
                // Two members of one station on the same line: the first (canonical) one stays.
                if seenLines.insert(lineKey).inserted {
                    perLine[lineKey, default: []].append((m, key))
                }
            }
        }

        var links: [SourceStationLine] = []
        for lineKey in perLine.keys.sorted() {
            let entries = perLine[lineKey]!.sorted { N02Order.memberLess($0.member.record, $1.member.record) }
            for (rank, entry) in entries.enumerated() {
                links.append(SourceStationLine(lineKey: lineKey, stationKey: entry.stationKey, sort: rank + 1,
                                               origin: SourceLocation(file: label, line: entry.member.record.core.line)))
            }
        }
        return (result, links)
    }
}
