import StationIO
import StationModel

// An aid for the maintainers who keep raw/weights.csv: stations that look
// like hand-weight candidates (Shinkansen stations, junctions, gateways with
// many lines, line ends) but have none, ranked, each with its reasons.
// Nothing here is applied automatically.

public struct HandWeightSuggestion: Hashable, Sendable {
    public var stationID: Int
    public var name: String
    public var pref: Int
    public var score: Int
    /// A starting point for the maintainer, 1..10 (smaller is shown first).
    public var suggestedWeight: Int
    public var reasons: [String]
}

public enum HandWeightSuggestions {
    /// Same-named live stations closer than this form one place (a gateway
    /// served by several operators counts all their lines).
    public static let interchangeMetres = 500.0

    public static func suggest(network: RailNetwork, hand: [HandWeight], limit: Int? = nil) -> [HandWeightSuggestion] {
        let handIDs = Set(hand.map(\.stationID))
        let liveLines = Dictionary(uniqueKeysWithValues: network.lines.filter(\.enabled).map { ($0.id, $0) })
        let live = network.stations.filter(\.enabled)
        let liveIDs = Set(live.map(\.id))

        var linesOf: [Int: Set<Int>] = [:]
        var byLine: [Int: [StationLine]] = [:]
        for x in network.stationLines where liveLines[x.lineID] != nil && liveIDs.contains(x.stationID) {
            linesOf[x.stationID, default: []].insert(x.lineID)
            byLine[x.lineID, default: []].append(x)
        }
        // Line ends: the first and last live station of each live line by s_sort.
        var endsOf: [Int: [Int]] = [:]
        for lineID in byLine.keys.sorted() {
            let members = byLine[lineID]!.sorted { ($0.sort, $0.stationID) < ($1.sort, $1.stationID) }
            guard members.count >= 2 else { continue }
            endsOf[members.first!.stationID, default: []].append(lineID)
            endsOf[members.last!.stationID, default: []].append(lineID)
        }
        // Lines served at the place: this station's and its same-named neighbours'.
        var byName: [String: [Station]] = [:]
        for s in live { byName[s.name, default: []].append(s) }
        func placeLines(_ s: Station) -> Set<Int> {
            var all = linesOf[s.id] ?? []
            for t in byName[s.name] ?? [] where t.id != s.id &&
                MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: t.lat, lng2: t.lng) < interchangeMetres {
                all.formUnion(linesOf[t.id] ?? [])
            }
            return all
        }

        var out: [HandWeightSuggestion] = []
        for s in live where !handIDs.contains(s.id) {
            let own = linesOf[s.id] ?? []
            let place = placeLines(s)
            let shinkansen = own.contains { liveLines[$0]?.isShinkansen == true }
            let ends = endsOf[s.id] ?? []
            var reasons: [String] = [], score = 0, weight = 10
            if shinkansen { reasons.append("Shinkansen station"); score += 100; weight = min(weight, 3) }
            if own.count >= 3 { reasons.append("junction of \(own.count) lines"); score += 10 * own.count; weight = min(weight, 5) }
            if place.count >= 3 && place.count > own.count {
                reasons.append("gateway: \(place.count) lines at this place"); score += 8 * place.count; weight = min(weight, place.count >= 6 ? 4 : 6)
            }
            if !ends.isEmpty {
                let names = ends.sorted().compactMap { liveLines[$0]?.name }
                reasons.append("end of \(names.joined(separator: ", "))"); score += 15 * ends.count; weight = min(weight, 8)
            }
            guard !reasons.isEmpty else { continue }
            out.append(HandWeightSuggestion(stationID: s.id, name: s.name, pref: s.pref, score: score, suggestedWeight: weight, reasons: reasons))
        }
        // A town's gateway: in each municipality that has none of the above, the station with
        // the most lines at its place (then the smaller s_id).
        let suggested = Set(out.map(\.stationID))
        var towns: [String: [Station]] = [:]
        for s in live where !handIDs.contains(s.id) { if let town = municipality(of: s.address) { towns[s.pref.description + town, default: []].append(s) } }
        for key in towns.keys.sorted() {
            let stations = towns[key]!
            guard !stations.contains(where: { suggested.contains($0.id) }),
                  let gateway = stations.max(by: { (placeLines($0).count, -$0.id) < (placeLines($1).count, -$1.id) }) else { continue }
            let lines = placeLines(gateway).count
            out.append(HandWeightSuggestion(stationID: gateway.id, name: gateway.name, pref: gateway.pref, score: 5 + lines, suggestedWeight: 9,
                                            reasons: ["main station of \(municipality(of: gateway.address)!) (\(stations.count) stations, \(lines) lines here)"]))
        }
        out.sort { ($0.score, -$0.stationID) > ($1.score, -$1.stationID) }
        if let limit { return Array(out.prefix(limit)) }
        return out
    }

    /// The municipality an address names: what follows the prefecture, up to its first
    /// 市, 区, 町 or 村 ("東京都千代田区丸の内" -> "千代田区"); nil when there is none.
    static func municipality(of address: String) -> String? {
        var rest = Substring(address)
        if let end = rest.prefix(4).firstIndex(where: { "都道府県".contains($0) }) { rest = rest[rest.index(after: end)...] }
        guard let end = rest.firstIndex(where: { "市区町村".contains($0) }), end > rest.startIndex else { return nil }
        return String(rest[...end])
    }

    /// A real master's hand weights by weight 1..10: 1,416 of its 9,520 live stations.
    public static let realMasterCounts = [53, 102, 354, 0, 406, 1, 313, 29, 156, 2]

    /// A test bed as dense as a real master's hand weights: the top suggestions, in rank
    /// order, given weights 1..10 in the real master's proportions (scaled to this
    /// network's live stations), the best ranked the smallest weight.
    public static func testBed(network: RailNetwork) -> [HandWeight] {
        let live = network.stations.count(where: \.enabled)
        let scale = Double(live) / 9_520
        let counts = realMasterCounts.map { Int((Double($0) * scale).rounded()) }
        let ranked = suggest(network: network, hand: [], limit: counts.reduce(0, +))
        var weights: [HandWeight] = []
        var weight = 1, left = counts[0]
        for s in ranked {
            while left == 0, weight < 10 { weight += 1; left = counts[weight - 1] }
            weights.append(HandWeight(stationID: s.stationID, weight: weight, note: "test bed", location: SourceLocation(file: "test bed")))
            left -= 1
        }
        return weights.sorted { $0.stationID < $1.stationID }
    }

    /// As raw/weights.csv rows (s_id,weight,note), ready to review and paste.
    public static func csv(_ suggestions: [HandWeightSuggestion]) -> String {
        var out = "s_id,weight,note\n"
        for s in suggestions {
            out += CSVWriter.line([String(s.stationID), String(s.suggestedWeight), "\(s.name): \(s.reasons.joined(separator: "; ")) (score \(s.score))"])
        }
        return out
    }
}
