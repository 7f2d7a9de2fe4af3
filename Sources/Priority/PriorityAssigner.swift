import StationModel

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
public struct MeshTier: Hashable, Sendable, CustomStringConvertible {
    public var weight: Int
    public var level: MeshLevel
    public var picks: Int
    /// Density awareness: one more pick for every this many live stations in
    /// the square beyond the first, up to `maxPicks`; nil for a fixed count.
    public var stationsPerExtraPick: Int?
    public var maxPicks: Int

    public init(weight: Int, level: MeshLevel, picks: Int, stationsPerExtraPick: Int? = nil, maxPicks: Int? = nil) {
        self.weight = weight; self.level = level; self.picks = picks
        self.stationsPerExtraPick = stationsPerExtraPick; self.maxPicks = maxPicks ?? picks
    }

    @inline(__always)
    func picks(inSquareOf count: Int) -> Int {
        guard let step = stationsPerExtraPick, step > 0 else { return picks }
        return min(maxPicks, picks + (count - 1) / step)
    }

    public var description: String {
        var s = "weight \(weight): \(picks) per \(level.rawValue) square"
        if let step = stationsPerExtraPick { s += " +1 per \(step) stations (at most \(maxPicks))" }
        return s
    }
}

public struct PriorityConfig: Hashable, Sendable {
    public var seed: UInt64
    /// Tiers from the smallest weight up; stations no tier picks get `restWeight`.
    public var tiers: [MeshTier]
    public var restWeight: Int
    /// Disabled stations take no part in the lottery (clients never show them)
    /// and get this weight, so the column is never empty.
    public var disabledWeight: Int

    public init(seed: UInt64 = StationHash.defaultSeed, tiers: [MeshTier] = PriorityConfig.standardTiers,
                restWeight: Int = 13, disabledWeight: Int = 13) {
        self.seed = seed; self.tiers = tiers; self.restWeight = restWeight; self.disabledWeight = disabledWeight
    }

    /// The tuned tiers (chosen with `stationdb priority report`, see the stage
    /// report): 11 for the first ticket of each 2nd-mesh square (10 km); 12 for
    /// the first ticket of each 5 km square plus one more per 6 live stations
    /// in it beyond the first (dense squares get more 12s, at most 20), so a
    /// dense city view is not left to the distance order of the 13s. On the
    /// national stand-in data (9,521 live stations) this gives 1,823 at 11,
    /// 2,189 at 12 and 5,509 at 13 without hand weights; with 1,207 hand
    /// weights from `suggest`, 1,322 / 1,768 / 5,224.
    public static let standardTiers = [
        MeshTier(weight: 11, level: .second, picks: 1),
        MeshTier(weight: 12, level: .fiveKilometre, picks: 1, stationsPerExtraPick: 6, maxPicks: 20),
    ]
}

public enum PriorityAssigner {
    /// Every station's weight (1...13), keyed by s_id: hand weights as given,
    /// machine weights for every other live station, `disabledWeight` for
    /// disabled ones without a hand weight.
    public static func assign(network: RailNetwork, hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [Int: Int] {
        let stations = network.stations
        var handWeight: [Int: Int] = [:]
        handWeight.reserveCapacity(hand.count)
        for h in hand { handWeight[h.stationID] = h.weight }

        var weights = [Int](repeating: config.restWeight, count: stations.count)
        var isHand = [Bool](repeating: false, count: stations.count)
        var live: [Int32] = []   // indexes into `stations`
        live.reserveCapacity(stations.count)
        var tickets = [UInt64](repeating: 0, count: stations.count)
        for (i, s) in stations.enumerated() {
            if let w = handWeight[s.id] {
                weights[i] = w; isHand[i] = true
            } else if !s.enabled {
                weights[i] = config.disabledWeight
            }
            if s.enabled {
                live.append(Int32(i))
                tickets[i] = StationHash.ticket(seed: config.seed, stationID: s.id)
            }
        }

        // One sort per tier, by (square, hand first, ticket, s_id): the first
        // places of each run of equal squares are its picks.
        struct Entry { var square: Int; var order: UInt64; var id: Int; var index: Int32 }
        var entries: [Entry] = []
        entries.reserveCapacity(live.count)
        for tier in config.tiers {
            entries.removeAll(keepingCapacity: true)
            for i in live {
                let s = stations[Int(i)]
                let square = MeshCode.code(lat: s.lat, lng: s.lng, level: tier.level)
                entries.append(Entry(square: square, order: isHand[Int(i)] ? 0 : tickets[Int(i)] | 1, id: s.id, index: i))
            }
            entries.sort { a, b in
                if a.square != b.square { return a.square < b.square }
                if a.order != b.order { return a.order < b.order }
                return a.id < b.id
            }
            var start = 0
            while start < entries.count {
                var end = start + 1
                while end < entries.count, entries[end].square == entries[start].square { end += 1 }
                let picks = tier.picks(inSquareOf: end - start)
                var k = start
                while k < min(end, start + picks) {
                    let i = Int(entries[k].index)
                    if !isHand[i], weights[i] > tier.weight { weights[i] = tier.weight }
                    k += 1
                }
                start = end
            }
        }

        var result: [Int: Int] = [:]
        result.reserveCapacity(stations.count)
        for (i, s) in stations.enumerated() { result[s.id] = weights[i] }
        return result
    }

    /// How many stations hold each weight, index 0 unused: counts[w] for w in 1...13.
    public static func counts(_ weights: [Int: Int], liveOnly network: RailNetwork? = nil) -> [Int] {
        var counts = [Int](repeating: 0, count: 14)
        if let network {
            for s in network.stations where s.enabled { if let w = weights[s.id], (1...13).contains(w) { counts[w] += 1 } }
        } else {
            for w in weights.values where (1...13).contains(w) { counts[w] += 1 }
        }
        return counts
    }
}

/// How a new weighting differs from a previous bundle's.
public struct WeightChanges: Hashable, Sendable {
    public var changed: Int     // in both, different weight
    public var added: Int       // only in the new weights
    public var removed: Int     // only in the previous bundle

    public static func between(previous: [Int: Int], current: [Int: Int]) -> WeightChanges {
        var c = WeightChanges(changed: 0, added: 0, removed: 0)
        for (id, w) in current {
            if let p = previous[id] { if p != w { c.changed += 1 } } else { c.added += 1 }
        }
        for id in previous.keys where current[id] == nil { c.removed += 1 }
        return c
    }
}
