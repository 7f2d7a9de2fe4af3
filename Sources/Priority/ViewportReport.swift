import Glibc
import StationCore

// Scores a weighting the way users meet it: replays the clients' map query
// (bundle.md, "How the clients read it") over random phone-shaped viewports and
// measures, over the viewports that hold more stations than N:
//
// - coverage: the share of the viewport's occupied 8 x 8 cells (cells holding
//   at least one live station) that show at least one pin;
// - pan stability: after a pan by 10% of the view in a random direction, the
//   share of the pins shown before, among those still inside the view, that
//   are still shown;
// - zoom stability: the same after zooming out by 10% (zooming in can never
//   hide a pin that stays inside, since the order is unchanged, so out is the
//   direction that tests a weighting).
//
// It needs only (s_id, lat, lng, weight, enabled), so it runs on any bundle:
// ours, a previous one, a foreign one.

/// What the report needs of a station.
package struct WeightedStation: Hashable, Sendable {
    package var id: Int
    package var lat: Int
    package var lng: Int
    package var weight: Int
    package var enabled: Bool
    /// 1...47, for the pins per region (0 when unknown).
    package var pref: Int

    package init(id: Int, lat: Int, lng: Int, weight: Int, enabled: Bool, pref: Int = 0) {
        self.id = id; self.lat = lat; self.lng = lng; self.weight = weight; self.enabled = enabled; self.pref = pref
    }
}

package enum WeightedStations {
    /// The stations table of any bundle (or any SQLite file with those columns).
    package static func read(bundle path: String) throws -> [WeightedStation] {
        guard Files.exists(path) else { throw StationError.environment("no bundle at \(path)") }
        do {
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            let st = try db.prepare("SELECT s_id, lat, lng, weight, enabled, pref FROM stations ORDER BY s_id")
            var out: [WeightedStation] = []
            while try st.step() {
                out.append(WeightedStation(id: st.int(0), lat: st.int(1), lng: st.int(2), weight: st.int(3), enabled: st.int(4) != 0, pref: st.int(5)))
            }
            return out
        } catch let e as SQLiteError {
            throw StationError.environment("cannot read the stations of \(path): \(e)")
        }
    }

    /// A network with weights from this stage (stations without one get 13).
    package static func from(network: RailNetwork, weights: [Int: Int]) -> [WeightedStation] {
        network.stations.map { WeightedStation(id: $0.id, lat: $0.lat, lng: $0.lng, weight: weights[$0.id] ?? 13, enabled: $0.enabled, pref: $0.pref) }
    }

    /// The network weighed with these hand weights and the machine tiers around them.
    package static func weighed(network: RailNetwork, hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [WeightedStation] {
        from(network: network, weights: PriorityAssigner.assign(network: network, hand: hand, config: config))
    }

    /// The baseline a weighting must beat: the same hand weights (1..10), and
    /// the live machine-weighted stations' weights 11/12/13 shuffled among them
    /// by a seeded lottery, so every count per weight stays the same.
    package static func randomMachineWeights(_ stations: [WeightedStation], seed: UInt64) -> [WeightedStation] {
        var out = stations.sorted { $0.id < $1.id }
        let machine = out.indices.filter { out[$0].enabled && (11...13).contains(out[$0].weight) }
        var pool = machine.map { out[$0].weight }
        var rng = SeededGenerator(seed: seed ^ 0xBA5E_11E5)
        if pool.count > 1 {
            for i in stride(from: pool.count - 1, to: 0, by: -1) { pool.swapAt(i, rng.below(i + 1)) }
        }
        for (k, i) in machine.enumerated() { out[i].weight = pool[k] }
        return out
    }
}

/// Japan's regions by prefecture code, with their land (km²): a weighting should give each
/// of them pins when the apps show the whole country.
package enum Region {
    package static let all: [(name: String, prefs: ClosedRange<Int>, land: Double)] = [
        ("Hokkaido", 1...1, 83_424), ("Tohoku", 2...7, 66_948), ("Kanto", 8...14, 32_433), ("Chubu", 15...23, 66_807),
        ("Kinki", 24...30, 33_126), ("Chugoku", 31...35, 31_922), ("Shikoku", 36...39, 18_803), ("Kyushu", 40...46, 42_231),
        ("Okinawa", 47...47, 2_282)]

    /// The whole country in one view: the box of every live station.
    package static func countryView(_ stations: [WeightedStation]) -> Viewport {
        let live = stations.filter(\.enabled)
        guard let south = live.map(\.lat).min(), let north = live.map(\.lat).max(), let west = live.map(\.lng).min(),
              let east = live.map(\.lng).max() else { return Viewport(lat: 0, lng: 0, halfLat: 0, halfLng: 0) }
        return Viewport(lat: (south + north) / 2, lng: (west + east) / 2, halfLat: (north - south) / 2, halfLng: (east - west) / 2)
    }

    /// How many of the pins the apps show at the country view lie in each region, in `all`'s order.
    package static func pins(_ stations: [WeightedStation], pins: Int) -> [Int] {
        let pref = Dictionary(stations.map { ($0.id, $0.pref) }, uniquingKeysWith: { first, _ in first })
        let shown = ViewportReport.shown(stations: stations, viewport: countryView(stations), pins: pins)
        return all.map { region in shown.count { region.prefs.contains(pref[$0] ?? 0) } }
    }
}

/// One map view: centre and half-sizes in micro-degrees (the visible region).
package struct Viewport: Hashable, Sendable {
    package var lat: Int
    package var lng: Int
    package var halfLat: Int
    package var halfLng: Int
    /// Direction of this viewport's test pan, radians.
    package var panAngle: Double

    package init(lat: Int, lng: Int, halfLat: Int, halfLng: Int, panAngle: Double = 0) {
        self.lat = lat; self.lng = lng; self.halfLat = halfLat; self.halfLng = halfLng; self.panAngle = panAngle
    }

    /// "35.68,139.76,0.5": centre and latitude span in degrees, phone-shaped.
    package init?(text: String) {
        let parts = text.split(separator: ",").map { $0.filter { $0 != " " } }
        guard parts.count == 3, let la = MicroDegrees.parse(parts[0]), let lo = MicroDegrees.parse(parts[1]),
              let span = Double(parts[2]), span > 0 else { return nil }
        self = Viewport.phone(lat: la, lng: lo, latSpan: span)
    }

    /// Screen 9 : 19.5 (portrait), so the ground width is 0.46 of the height.
    package static let phoneAspect = 9.0 / 19.5

    package static func phone(lat: Int, lng: Int, latSpan: Double, panAngle: Double = 0) -> Viewport {
        let halfLat = latSpan / 2
        let halfLng = halfLat * phoneAspect / cos(MicroDegrees.degrees(lat) * .pi / 180)
        return Viewport(lat: lat, lng: lng, halfLat: Int(halfLat * 1e6), halfLng: Int(halfLng * 1e6), panAngle: panAngle)
    }

    package var latSpanDegrees: Double { Double(2 * halfLat) / 1e6 }

    /// The region the clients query: the visible one enlarged 1.1x.
    var queried: Viewport { scaled(1.1) }

    func scaled(_ f: Double) -> Viewport {
        Viewport(lat: lat, lng: lng, halfLat: Int(Double(halfLat) * f), halfLng: Int(Double(halfLng) * f), panAngle: panAngle)
    }

    func panned(_ fraction: Double) -> Viewport {
        var v = self
        v.lat += Int(Double(2 * halfLat) * fraction * sin(panAngle))
        v.lng += Int(Double(2 * halfLng) * fraction * cos(panAngle))
        return v
    }

    @inline(__always)
    func contains(lat a: Int, lng b: Int) -> Bool {
        a >= lat - halfLat && a < lat + halfLat && b >= lng - halfLng && b < lng + halfLng
    }
}

package struct ViewportReportConfig: Hashable, Sendable {
    package var viewports: Int = 1000
    package var pins: Int = 100
    package var seed: UInt64 = StationHash.defaultSeed
    package var minLatSpan: Double = 0.05
    package var maxLatSpan: Double = 13
    package var panFraction: Double = 0.1
    package var zoomOut: Double = 1.1
    package var grid: Int = 8

    /// `span`: every viewport this latitude span (degrees), instead of log-uniform spans.
    package init(viewports: Int = 1000, pins: Int = 100, seed: UInt64 = StationHash.defaultSeed, span: Double? = nil) {
        self.viewports = viewports; self.pins = pins; self.seed = seed
        if let span { minLatSpan = span; maxLatSpan = span }
    }
}

/// The scores over one set of viewports.
package struct ViewportScore: Hashable, Sendable {
    package var viewports: Int = 0          // crowded viewports scored
    package var coverage: Double = 0
    package var panStability: Double = 0
    package var zoomStability: Double = 0
}

package struct ViewportReportResult: Hashable, Sendable {
    package var drawn: Int
    package var overall: ViewportScore
    /// Per span band (label, score), small views first.
    package var bands: [(label: String, score: ViewportScore)] { bandLabels.indices.map { (bandLabels[$0], bandScores[$0]) } }
    var bandLabels: [String]
    var bandScores: [ViewportScore]
}

package enum ViewportReport {
    /// Random phone-shaped viewports, centred near random live stations, latitude
    /// spans log-uniform between the config's bounds. Depends only on the seed
    /// and the live stations' positions, so two weightings of the same stations
    /// meet the same viewports.
    package static func viewports(stations: [WeightedStation], config: ViewportReportConfig) -> [Viewport] {
        let live = stations.filter(\.enabled).sorted { $0.id < $1.id }
        guard !live.isEmpty else { return [] }
        var rng = SeededGenerator(seed: config.seed)
        let lo = log(config.minLatSpan), hi = log(config.maxLatSpan)
        return (0..<config.viewports).map { _ in
            let s = live[rng.below(live.count)]
            let span = exp(lo + (hi - lo) * rng.unit())
            let angle = rng.unit() * 2 * .pi
            let jitterLat = (rng.unit() - 0.5) * 0.2 * span, jitterLng = (rng.unit() - 0.5) * 0.2 * span
            return Viewport.phone(lat: s.lat + Int(jitterLat * 1e6), lng: s.lng + Int(jitterLng * 1e6), latSpan: span, panAngle: angle)
        }
    }

    static let bandEdges: [Double] = [0.3, 2]
    package static var bandLabels: [String] {
        ["span < \(bandEdges[0])"] + (1..<bandEdges.count).map { "span \(bandEdges[$0 - 1])..\(bandEdges[$0])" } + ["span >= \(bandEdges.last!)"]
    }

    package static func run(stations: [WeightedStation], config: ViewportReportConfig) -> ViewportReportResult {
        run(stations: stations, config: config, over: viewports(stations: stations, config: config))
    }

    /// The same over `views`: those drawn for another weighting of (nearly) the same
    /// stations, so that the two meet the same viewports and compare fairly.
    package static func run(stations: [WeightedStation], config: ViewportReportConfig, over views: [Viewport]) -> ViewportReportResult {
        let map = PinMap(stations: stations)
        let labels = bandLabels
        var sums = [Sums](repeating: Sums(), count: labels.count)
        var total = Sums()
        for v in views {
            guard let m = map.measure(v, config: config) else { continue }
            let band = bandEdges.firstIndex { v.latSpanDegrees < $0 } ?? bandEdges.count
            sums[band].add(m); total.add(m)
        }
        return ViewportReportResult(drawn: views.count, overall: total.score, bandLabels: labels, bandScores: sums.map(\.score))
    }

    /// The s_ids the clients would show for one viewport, in their order.
    package static func shown(stations: [WeightedStation], viewport: Viewport, pins: Int) -> [Int] {
        let map = PinMap(stations: stations)
        return map.query(viewport.queried, pins: pins).map { map.ids[Int($0)] }
    }

    struct Sums {
        var n = 0, coverage = 0.0, panN = 0, pan = 0.0, zoomN = 0, zoom = 0.0
        mutating func add(_ m: PinMap.Measure) {
            n += 1; coverage += m.coverage
            if let p = m.pan { panN += 1; pan += p }
            if let z = m.zoom { zoomN += 1; zoom += z }
        }
        var score: ViewportScore {
            ViewportScore(viewports: n, coverage: n > 0 ? coverage / Double(n) : 0,
                          panStability: panN > 0 ? pan / Double(panN) : 0, zoomStability: zoomN > 0 ? zoom / Double(zoomN) : 0)
        }
    }
}

/// The live stations sorted by latitude, answering the clients' query.
final class PinMap {
    let lats: [Int], lngs: [Int], weights: [Int], ids: [Int]
    private var stamp: [UInt32]
    private var generation: UInt32 = 0

    init(stations: [WeightedStation]) {
        let live = stations.filter(\.enabled).sorted { ($0.lat, $0.id) < ($1.lat, $1.id) }
        lats = live.map(\.lat); lngs = live.map(\.lng); weights = live.map(\.weight); ids = live.map(\.id)
        stamp = [UInt32](repeating: 0, count: live.count)
    }

    /// Indexes of live stations inside a region, by latitude band then longitude.
    func inside(_ r: Viewport) -> [Int32] {
        var lo = 0, hi = lats.count
        let south = r.lat - r.halfLat, north = r.lat + r.halfLat
        while lo < hi { let m = (lo + hi) / 2; if lats[m] < south { lo = m + 1 } else { hi = m } }
        var out: [Int32] = []
        var i = lo
        let west = r.lng - r.halfLng, east = r.lng + r.halfLng
        while i < lats.count, lats[i] < north {
            if lngs[i] >= west, lngs[i] < east { out.append(Int32(i)) }
            i += 1
        }
        return out
    }

    /// ORDER BY weight, distance LIMIT pins (ties by s_id, for determinism).
    func query(_ r: Viewport, pins: Int) -> [Int32] {
        select(inside(r), centre: r, pins: pins)
    }

    func select(_ candidates: [Int32], centre r: Viewport, pins: Int) -> [Int32] {
        if candidates.count <= pins { return candidates }
        // All of the smaller weights, then the boundary weight nearest first.
        var perWeight = [Int](repeating: 0, count: 16)
        for i in candidates { perWeight[min(15, max(0, weights[Int(i)]))] += 1 }
        var boundary = 0, before = 0
        while before + perWeight[boundary] < pins { before += perWeight[boundary]; boundary += 1 }
        var out: [Int32] = []
        out.reserveCapacity(pins)
        var tier: [(d: Int, id: Int, i: Int32)] = []
        for i in candidates {
            let w = min(15, max(0, weights[Int(i)]))
            if w < boundary { out.append(i) } else if w == boundary {
                let dl = lats[Int(i)] - r.lat, dg = lngs[Int(i)] - r.lng
                tier.append((dl * dl + dg * dg, ids[Int(i)], i))
            }
        }
        tier.sort { ($0.d, $0.id) < ($1.d, $1.id) }
        for t in tier.prefix(pins - out.count) { out.append(t.i) }
        return out
    }

    struct Measure { var coverage: Double; var pan: Double?; var zoom: Double? }

    /// The scores of one viewport, or nil when it holds no more stations than pins.
    func measure(_ v: Viewport, config: ViewportReportConfig) -> Measure? {
        let q = v.queried
        let candidates = inside(q)
        guard candidates.count > config.pins else { return nil }
        let shownNow = select(candidates, centre: q, pins: config.pins)

        let g = config.grid
        var occupied = [Bool](repeating: false, count: g * g), covered = occupied
        func cell(_ i: Int32) -> Int? {
            let a = lats[Int(i)], b = lngs[Int(i)]
            guard v.contains(lat: a, lng: b) else { return nil }
            let row = (a - (v.lat - v.halfLat)) * g / (2 * v.halfLat)
            let col = (b - (v.lng - v.halfLng)) * g / (2 * v.halfLng)
            return min(g - 1, row) * g + min(g - 1, col)
        }
        for i in candidates { if let c = cell(i) { occupied[c] = true } }
        for i in shownNow { if let c = cell(i) { covered[c] = true } }
        let occ = occupied.filter { $0 }.count
        let cov = zip(occupied, covered).filter { $0 && $1 }.count
        let coverage = occ > 0 ? Double(cov) / Double(occ) : 1

        func kept(after w: Viewport) -> Double? {
            let after = query(w.queried, pins: config.pins)
            generation &+= 1
            for i in after { stamp[Int(i)] = generation }
            var inside = 0, still = 0
            for i in shownNow where w.contains(lat: lats[Int(i)], lng: lngs[Int(i)]) {
                inside += 1
                if stamp[Int(i)] == generation { still += 1 }
            }
            return inside > 0 ? Double(still) / Double(inside) : nil
        }
        return Measure(coverage: coverage, pan: kept(after: v.panned(config.panFraction)), zoom: kept(after: v.scaled(config.zoomOut)))
    }
}

/// A weighting's scores beside the reference points that say what good looks like: the same
/// hand weights with the machine weights 11/12/13 shuffled at random (same counts: what
/// any weighting must beat) and, when there is one, the weights the previous version
/// published (what this one replaces). All over the viewports drawn for this weighting.
package struct WeightingComparison: Sendable {
    package struct Row: Sendable {
        package var label: String
        package var result: ViewportReportResult
    }

    package static let randomLabel = "random 11/12/13, same counts"

    package var ours: Row
    /// The random weights first, then the previous version's.
    package var references: [Row]

    /// `previous`: the previous version's stations with their label ("version 4, published before").
    package static func make(ours stations: [WeightedStation], previous: (label: String, stations: [WeightedStation])?,
                            config: ViewportReportConfig) -> WeightingComparison {
        let views = ViewportReport.viewports(stations: stations, config: config)
        var references = [Row(label: randomLabel, result: ViewportReport.run(stations: WeightedStations.randomMachineWeights(stations, seed: config.seed),
                                                                            config: config, over: views))]
        if let previous {
            references.append(Row(label: previous.label, result: ViewportReport.run(stations: previous.stations, config: config, over: views)))
        }
        return WeightingComparison(ours: Row(label: "these weights", result: ViewportReport.run(stations: stations, config: config, over: views)),
                                   references: references)
    }
}
