import Glibc
import StationCore

// An aid for the maintainers who keep raw/weights.csv: stations that look
// like hand-weight candidates (Shinkansen stations, junctions, gateways with
// many lines, line ends, each town's main station) but have none, ranked,
// each with its reasons, and a weight that spreads the small weights over the
// whole country (`spread`). Nothing here is applied automatically.

package struct HandWeightSuggestion: Hashable, Sendable {
    package var stationID: Int
    package var name: String
    package var pref: Int
    package var score: Int
    /// A starting point for the maintainer, 1..10 (smaller is shown first).
    package var suggestedWeight: Int
    package var reasons: [String]
}

package enum HandWeightSuggestions {
    /// Same-named live stations closer than this form one place (a gateway
    /// served by several operators counts all their lines).
    package static let interchangeMetres = 500.0
    /// The stations within this distance of a station make its place a centre.
    package static let centreMetres = 3_000.0

    package static func suggest(network: RailNetwork, hand: [HandWeight], limit: Int? = nil) -> [HandWeightSuggestion] {
        let handIDs = Set(hand.map(\.stationID))
        let liveLines = Dictionary(uniqueKeysWithValues: network.lines.filter(\.enabled).map { ($0.id, $0) })
        let live = network.stations.filter(\.enabled)
        let places = Places(network)
        let linesOf = places.linesOf, placeLines = places.lines(at:)
        var byLine: [Int: [StationLine]] = [:]
        for x in network.stationLines where linesOf[x.stationID]?.contains(x.lineID) == true { byLine[x.lineID, default: []].append(x) }
        // Line ends: the first and last live station of each live line by s_sort.
        var endsOf: [Int: [Int]] = [:]
        for lineID in byLine.keys.sorted() {
            let members = byLine[lineID]!.sorted { ($0.sort, $0.stationID) < ($1.sort, $1.stationID) }
            guard members.count >= 2 else { continue }
            endsOf[members.first!.stationID, default: []].append(lineID)
            endsOf[members.last!.stationID, default: []].append(lineID)
        }

        // How many live stations lie within `centreMetres`: a city's centre has its subway and trams
        // around it (札幌), a junction in the fields has none (苫小牧).
        let grid = PointGrid(live.map { ($0.lat, $0.lng) }, cellSize: 30_000)
        func centre(_ s: Station) -> Int { Int(15 * log2(Double(around(s)))) }
        func around(_ s: Station) -> Int {
            let c = grid.cell(lat: s.lat, lng: s.lng)
            return (-1...1).reduce(0) { sum, dy in sum + (-2...2).reduce(0) { sum, dx in
                sum + grid.points(row: c.row + dy, column: c.column + dx).count {
                    MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: live[Int($0)].lat, lng2: live[Int($0)].lng) <= centreMetres
                }
            } }
        }

        var out: [HandWeightSuggestion] = []
        for s in live where !handIDs.contains(s.id) {
            let own = linesOf[s.id] ?? []
            let place = placeLines(s)
            let shinkansen = own.contains { liveLines[$0]?.isShinkansen == true }
            let ends = endsOf[s.id] ?? []
            // Ranked by how many lines meet at the place (a Shinkansen stop counting as four more)
            // and how many stations stand around it: a city's main station before a branch line's end.
            var reasons: [String] = []
            if shinkansen { reasons.append("Shinkansen station") }
            if own.count >= 3 { reasons.append("junction of \(own.count) lines") }
            if place.count >= 3 && place.count > own.count { reasons.append("gateway: \(place.count) lines at this place") }
            if !ends.isEmpty { reasons.append("end of \(ends.sorted().compactMap { liveLines[$0]?.name }.joined(separator: ", "))") }
            guard !reasons.isEmpty else { continue }
            let score = 10 * place.count + (shinkansen ? 40 : 0) + 5 * ends.count + centre(s)
            out.append(HandWeightSuggestion(stationID: s.id, name: s.name, pref: s.pref, score: score, suggestedWeight: restWeight, reasons: reasons))
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
            func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
            out.append(HandWeightSuggestion(stationID: gateway.id, name: gateway.name, pref: gateway.pref, score: 10 * lines + centre(gateway),
                                            suggestedWeight: restWeight,
                                            reasons: ["main station of \(municipality(of: gateway.address)!) (\(count(stations.count, "station")), \(count(lines, "line")) here)"]))
        }
        out.sort { ($0.score, -$0.stationID) > ($1.score, -$1.stationID) }
        out = spread(out, live: live, hand: hand)
        if let limit { return Array(out.prefix(limit)) }
        return out
    }

    /// The weight tiers of `spread`: each weight's stations lie at least this far from
    /// every station of that weight or a smaller one. The first is about one per
    /// prefecture's worth of land, so that the whole country on a phone shows pins over
    /// all of it; each next one fills the gaps a closer view opens.
    package static let tiers: [(weight: Int, metres: Double)] = [(1, 55_000), (2, 35_000), (3, 20_000), (5, 10_000), (7, 5_000), (9, 2_500)]
    /// The weight of a candidate no tier takes: still a hand weight, before every machine one.
    package static let restWeight = 10

    /// Gives the ranked candidates their weights tier by tier: in rank order, a tier takes each
    /// candidate at least its distance from every station already weighted (by an earlier tier,
    /// or by hand with this weight or a smaller one); what no tier takes gets `restWeight`. So the
    /// best station of each stretch of the country gets the smallest weight, and the few pins an
    /// app draws for a wide view are spread over all of it instead of crowding where the
    /// stations are densest.
    static func spread(_ ranked: [HandWeightSuggestion], live: [Station], hand: [HandWeight]) -> [HandWeightSuggestion] {
        let place = Dictionary(uniqueKeysWithValues: live.map { ($0.id, (lat: $0.lat, lng: $0.lng)) })
        let picked = hand.filter { place[$0.stationID] != nil }
        let points = (ranked.map(\.stationID) + picked.map(\.stationID)).map { place[$0]! }
        func metres(_ a: Int, _ b: Int) -> Double { MicroDegrees.distanceMetres(lat1: points[a].lat, lng1: points[a].lng, lat2: points[b].lat, lng2: points[b].lng) }
        var out = ranked.map { var s = $0; s.suggestedWeight = restWeight; return s }
        for tier in tiers {
            // Weighted stations in cells a tier's distance wide (in latitude), looked up three by five.
            var taken = PointGrid(points, cellSize: max(1, Int(tier.metres / MicroDegrees.metresPerDegree * 1e6)), empty: true)
            for (j, h) in picked.enumerated() where h.weight <= tier.weight { taken.insert(ranked.count + j) }
            for i in out.indices where out[i].suggestedWeight < restWeight { taken.insert(i) }
            // East-west, a degree is shorter: two cells either way reach the distance north of 60 N.
            for i in out.indices where out[i].suggestedWeight == restWeight
                && taken.nearest(lat: points[i].lat, lng: points[i].lng, columns: 2, within: tier.metres, distance: { metres(i, $0) }) == nil {
                out[i].suggestedWeight = tier.weight
                taken.insert(i)
            }
        }
        return out
    }

    /// The live lines served at each live station's place: its own, and its same-named
    /// neighbours' (a gateway served by several operators counts all their lines); `only`:
    /// among these stations alone.
    struct Places {
        let linesOf: [Int: Set<Int>]
        let byName: [String: [Station]]

        init(_ network: RailNetwork, only: Set<Int>? = nil) {
            let live = network.stations.filter { $0.enabled && only?.contains($0.id) != false }, liveLines = Set(network.lines.filter(\.enabled).map(\.id))
            let liveIDs = Set(live.map(\.id))
            var linesOf: [Int: Set<Int>] = [:]
            for x in network.stationLines where liveLines.contains(x.lineID) && liveIDs.contains(x.stationID) { linesOf[x.stationID, default: []].insert(x.lineID) }
            self.linesOf = linesOf
            byName = Dictionary(grouping: live, by: \.name)
        }

        func lines(at s: Station) -> Set<Int> {
            var all = linesOf[s.id] ?? []
            for t in byName[s.name] ?? [] where t.id != s.id &&
                MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: t.lat, lng2: t.lng) < interchangeMetres {
                all.formUnion(linesOf[t.id] ?? [])
            }
            return all
        }
    }

    /// The municipality an address names: what follows the prefecture, up to its first
    /// 市, 区, 町 or 村 ("東京都千代田区丸の内" -> "千代田区"); nil when there is none.
    static func municipality(of address: String) -> String? {
        var rest = Substring(address)
        if let end = rest.prefix(4).firstIndex(where: { "都道府県".contains($0) }) { rest = rest[rest.index(after: end)...] }
        guard let end = rest.firstIndex(where: { "市区町村".contains($0) }), end > rest.startIndex else { return nil }
        return String(rest[...end])
    }

    /// As raw/weights.csv rows (s_id,weight,note), ready to review and paste.
    package static func csv(_ suggestions: [HandWeightSuggestion]) -> String {
        "s_id,weight,note\n" + suggestions.map {
            CSVWriter.line([String($0.stationID), String($0.suggestedWeight), "\($0.name): \($0.reasons.joined(separator: "; ")) (score \($0.score))"])
        }.joined()
    }
}
