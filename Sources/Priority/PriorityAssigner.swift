import StationCore

// Machine weights from the grid mesh.
//
// The clients show at most N pins, ordered by weight then distance from the
// centre (bundle.md). With too many stations in view, all of a lower weight
// show and the next weight fills what is left, nearest the centre first, which
// bunches those pins in the middle. So each weight tier should be spread
// evenly over the country: per grid square, a few stations are drawn by a
// seeded lottery (their "ticket", a hash of seed and s_id), and the first
// tickets in each square get the tier's weight. Sparse regions get a pin as
// surely as Tokyo does, which is what makes the first pins cover the view.
//
// Stability: a station's weight depends only on the stations in the squares
// it lies in (one per tier), so moving, adding or removing one station
// changes weights only in the squares it left or entered.

/// One machine tier: in every square of `level`, the stations holding the
/// first `picks` tickets get `weight` (unless a smaller weight already holds
/// them). Stations with a hand weight fill the first places of their square,
/// since they already give the square a pin.
package struct MeshTier: Hashable, Sendable, CustomStringConvertible {
    package var weight: Int
    package var level: MeshLevel
    package var picks: Int
    /// Density awareness: one more pick for every this many live stations in
    /// the square beyond the first, up to `maxPicks`; nil for a fixed count.
    package var stationsPerExtraPick: Int?
    package var maxPicks: Int

    package init(weight: Int, level: MeshLevel, picks: Int, stationsPerExtraPick: Int? = nil, maxPicks: Int? = nil) {
        self.weight = weight; self.level = level; self.picks = picks
        self.stationsPerExtraPick = stationsPerExtraPick; self.maxPicks = maxPicks ?? picks
    }

    package func picks(inSquareOf count: Int) -> Int {
        guard let step = stationsPerExtraPick, step > 0 else { return picks }
        return min(maxPicks, picks + (count - 1) / step)
    }

    /// Tiers as written for `--tiers`: "11:2nd:1,12:5km:2", or with density
    /// "12:5km:1:8:3" (one more pick per 8 stations in the square, at most 3).
    package static func parse(list text: String) throws -> [MeshTier] {
        try text.split(separator: ",").map { item in
            let p = item.split(separator: ":").map(String.init)
            let levels = MeshLevel.allCases.map(\.rawValue).joined(separator: ", ")
            guard p.count == 3 || p.count == 5, let w = Int(p[0]), (11...12).contains(w), let level = MeshLevel(rawValue: p[1]),
                  let picks = Int(p[2]), picks >= 0 else {
                throw StationError.badInput(SourceLocation(file: "--tiers", field: String(item)),
                                 "expected weight:level:picks[:stationsPerExtraPick:maxPicks], weight 11 or 12, level one of \(levels)")
            }
            if p.count == 5 {
                guard let step = Int(p[3]), step > 0, let most = Int(p[4]), most >= picks else {
                    throw StationError.badInput(SourceLocation(file: "--tiers", field: String(item)), "expected stationsPerExtraPick > 0 and maxPicks >= picks")
                }
                return MeshTier(weight: w, level: level, picks: picks, stationsPerExtraPick: step, maxPicks: most)
            }
            return MeshTier(weight: w, level: level, picks: picks)
        }
    }

    package var description: String {
        var s = "weight \(weight): \(picks) per \(level.rawValue) square"
        if let step = stationsPerExtraPick { s += " +1 per \(step) stations (at most \(maxPicks))" }
        return s
    }
}

/// How the machine weights are drawn.
package enum PriorityMethod: Hashable, Sendable {
    /// The default: blue noise that sees the neighbouring squares and the hand pins.
    case blueNoise(BlueNoiseTiers)
    /// The classic per-square lottery (`--tiers` or `--method mesh-lottery`).
    case meshLottery([MeshTier])

    package var description: String {
        switch self {
        case .blueNoise(let t): t.description
        case .meshLottery(let tiers): "mesh lottery: " + tiers.map(\.description).joined(separator: "; ")
        }
    }
}

package struct PriorityConfig: Hashable, Sendable {
    package var seed: UInt64
    package var method: PriorityMethod
    /// Stations no tier picks get `restWeight`. Disabled stations take no part in the lottery
    /// (clients never show them) and get `disabledWeight`, so the column is never empty.
    package static let restWeight = 13, disabledWeight = 13

    package init(seed: UInt64 = StationHash.defaultSeed, method: PriorityMethod = .blueNoise(.standard)) {
        self.seed = seed; self.method = method
    }

    /// The classic lottery with these tiers.
    package init(seed: UInt64 = StationHash.defaultSeed, tiers: [MeshTier]) {
        self.init(seed: seed, method: .meshLottery(tiers))
    }

    /// The classic lottery's tuned tiers (chosen with `stationdb priority report`):
    /// 11 for the first ticket of each 2nd-mesh square (10 km); 12 for the first
    /// ticket of each 5 km square plus one more per 6 live stations in it beyond
    /// the first (at most 20). On the national stand-in data (9,521 live stations)
    /// this gives 1,823 at 11, 2,189 at 12 and 5,509 at 13 without hand weights.
    package static let standardTiers = [
        MeshTier(weight: 11, level: .second, picks: 1),
        MeshTier(weight: 12, level: .fiveKilometre, picks: 1, stationsPerExtraPick: 6, maxPicks: 20),
    ]
}

package enum PriorityAssigner {
    /// Every station's weight (1...13), keyed by s_id: hand weights as given,
    /// machine weights for every other live station, `disabledWeight` for
    /// disabled ones without a hand weight.
    package static func assign(network: RailNetwork, hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: zip(network.stations.map(\.id), weights(stations: network.stations, hand: hand, config: config)))
    }

    /// The weights as an array parallel to `stations`.
    package static func weights(stations: [Station], hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [Int] {
        let handWeight = Dictionary(hand.map { ($0.stationID, $0.weight) }, uniquingKeysWith: { first, _ in first })
        var weights = stations.map { handWeight[$0.id] ?? ($0.enabled ? PriorityConfig.restWeight : PriorityConfig.disabledWeight) }
        // The live stations in s_id order: a station's place here breaks ties between equal tickets.
        let live = stations.indices.filter { stations[$0].enabled }.sorted { stations[$0].id < stations[$1].id }
        switch config.method {
        case .blueNoise(let tiers):
            let tickets = live.map { StationHash.ticket(seed: config.seed, stationID: stations[$0].id) }
            tiers.assign(stations: stations, live: live, weights: &weights, tickets: tickets, restWeight: PriorityConfig.restWeight)
        case .meshLottery(let tiers):
            meshLottery(tiers, stations: stations, live: live, handWeight: handWeight, weights: &weights, seed: config.seed)
        }
        return weights
    }

    /// The classic lottery: in every square of a tier's level, the first tickets get its weight.
    static func meshLottery(_ tiers: [MeshTier], stations: [Station], live: [Int], handWeight: [Int: Int], weights: inout [Int], seed: UInt64) {
        // A hand-weighted station holds ticket 0, so it takes the first place of its square.
        let tickets = live.map { handWeight[stations[$0].id] != nil ? 0 : StationHash.ticket(seed: seed, stationID: stations[$0].id) }
        for tier in tiers {
            // Live stations by square; in each square the lottery's order: the tickets'
            // top 44 bits, equal ones to the smaller s_id.
            let drawn = live.indices.map { k in
                (square: MeshCode.code(lat: stations[live[k]].lat, lng: stations[live[k]].lng, level: tier.level), ticket: tickets[k] >> 20, k: k)
            }.sorted { ($0.square, $0.ticket, $0.k) < ($1.square, $1.ticket, $1.k) }
            var start = 0
            while start < drawn.count {
                var end = start
                while end < drawn.count, drawn[end].square == drawn[start].square { end += 1 }
                let picks = max(0, min(end - start, tier.picks(inSquareOf: end - start)))
                for entry in drawn[start..<(start + picks)] where tickets[entry.k] != 0 {
                    weights[live[entry.k]] = min(weights[live[entry.k]], tier.weight)
                }
                start = end
            }
        }
    }

    /// How many live stations hold each weight, index 0 unused: counts[w] for w in 1...13.
    package static func counts(_ weights: [Int: Int], liveOnly network: RailNetwork) -> [Int] {
        var counts = [Int](repeating: 0, count: 14)
        for s in network.stations where s.enabled {
            if let w = weights[s.id], (1...13).contains(w) { counts[w] += 1 }
        }
        return counts
    }

    /// "9521 live stations: hand 1-10 150, 11 753, 12 3355, 13 5263", for the run's summary.
    package static func countsText(_ weights: [Int: Int], network: RailNetwork) -> String {
        let c = counts(weights, liveOnly: network)
        let live = network.stations.count(where: \.enabled)
        return "\(live) live stations: hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13])"
    }
}

/// How a new weighting differs from a previous bundle's.
package struct WeightChanges: Hashable, Sendable {
    package var changed: Int     // in both, different weight
    package var added: Int       // only in the new weights
    package var removed: Int     // only in the previous bundle

    package init(changed: Int, added: Int, removed: Int) { self.changed = changed; self.added = added; self.removed = removed }

    package static func between(previous: [Int: Int], current: [Int: Int]) -> WeightChanges {
        var c = WeightChanges(changed: 0, added: 0, removed: 0)
        for (id, w) in current {
            if let p = previous[id] { if p != w { c.changed += 1 } } else { c.added += 1 }
        }
        for id in previous.keys where current[id] == nil { c.removed += 1 }
        return c
    }
}
