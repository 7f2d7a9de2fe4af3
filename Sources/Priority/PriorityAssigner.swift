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
        let w = weights(network: network, hand: hand, config: config)
        var result: [Int: Int] = [:]
        result.reserveCapacity(w.count)
        for i in w.indices { result[network.stations[i].id] = w[i] }
        return result
    }

    /// The same weights as an array parallel to `network.stations` (the
    /// assignment itself, without building a dictionary; what the bench times).
    public static func weights(network: RailNetwork, hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [Int] {
        let stations = network.stations
        var handWeight: [Int: Int] = [:]
        handWeight.reserveCapacity(hand.count)
        for h in hand { handWeight[h.stationID] = h.weight }

        var weights = [Int](repeating: config.restWeight, count: stations.count)
        // The live stations, as plain arrays (no String copies in the loops).
        var liveIndex: [Int32] = [], lat: [Int] = [], lng: [Int] = [], ids: [Int] = []
        var order: [UInt64] = []   // 0 for a hand pick (first in its square), else its ticket
        liveIndex.reserveCapacity(stations.count); lat.reserveCapacity(stations.count)
        lng.reserveCapacity(stations.count); ids.reserveCapacity(stations.count); order.reserveCapacity(stations.count)
        for i in stations.indices {
            let id = stations[i].id, enabled = stations[i].enabled
            let hand = handWeight.isEmpty ? nil : handWeight[id]
            if let hand { weights[i] = hand } else if !enabled { weights[i] = config.disabledWeight }
            guard enabled else { continue }
            liveIndex.append(Int32(i)); lat.append(stations[i].lat); lng.append(stations[i].lng); ids.append(id)
            order.append(hand != nil ? 0 : StationHash.ticket(seed: config.seed, stationID: id))
        }
        let n = liveIndex.count

        // Order the live stations once by lottery (hand picks first, then
        // ticket, ties by s_id), then per tier group them by square with a
        // stable radix sort on the code: each square's stations come out in
        // lottery order and its first places are its picks. Every step is a
        // linear radix pass; nothing compares pairs of stations.
        var byLottery = (0..<Int32(n)).map { $0 }
        if !ids.indices.dropFirst().allSatisfy({ ids[$0 - 1] < ids[$0] }) {
            byLottery = radixSorted(ids.map { UInt64(bitPattern: Int64($0)) ^ (1 << 63) }, from: byLottery)
        }
        // The top 44 bits of the tickets: ties (rare) keep s_id order.
        byLottery = radixSorted(order.map { $0 >> 20 }, from: byLottery)

        var codes = [UInt64](repeating: 0, count: n)
        for tier in config.tiers {
            for k in 0..<n { codes[k] = UInt64(bitPattern: Int64(MeshCode.code(lat: lat[k], lng: lng[k], level: tier.level))) }
            let members = radixSorted(codes, from: byLottery)
            var start = 0
            while start < n {
                let square = codes[Int(members[start])]
                var end = start + 1
                while end < n, codes[Int(members[end])] == square { end += 1 }
                let picks = min(end - start, tier.picks(inSquareOf: end - start))
                for k in start..<(start + picks) {
                    let m = Int(members[k])
                    let i = Int(liveIndex[m])
                    if order[m] != 0, weights[i] > tier.weight { weights[i] = tier.weight }
                }
                start = end
            }
        }
        return weights
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

/// `initial` (a permutation of keys' indexes) stably ordered by key: LSD
/// radix sort, 11 bits a pass, as many passes as the largest key needs (a
/// 10-digit mesh code: 3; a 44-bit ticket prefix: 4). Keys travel with their
/// indexes so every pass reads sequentially.
func radixSorted(_ keys: [UInt64], from initial: [Int32]) -> [Int32] {
    let n = initial.count
    let maxKey = keys.max() ?? 0
    var passes = 0
    while passes * 11 < 64, (maxKey >> UInt64(passes * 11)) > 0 { passes += 1 }
    if passes == 0 { return initial }
    var ka = [UInt64](repeating: 0, count: n), kb = ka
    var ia = initial, ib = [Int32](repeating: 0, count: n)
    var count = [Int](repeating: 0, count: 2049)
    keys.withUnsafeBufferPointer { key in
        ka.withUnsafeMutableBufferPointer { pka in
            kb.withUnsafeMutableBufferPointer { pkb in
                ia.withUnsafeMutableBufferPointer { pia in
                    ib.withUnsafeMutableBufferPointer { pib in
                        count.withUnsafeMutableBufferPointer { c in
                            for j in 0..<n { pka[j] = key[Int(pia[j])] }
                            var sk = pka, dk = pkb, si = pia, di = pib
                            for pass in 0..<passes {
                                let shift = UInt64(pass * 11)
                                for k in 0..<c.count { c[k] = 0 }
                                for j in 0..<n { c[Int((sk[j] >> shift) & 2047) + 1] += 1 }
                                for k in 1..<c.count { c[k] += c[k - 1] }
                                for j in 0..<n {
                                    let k = sk[j]
                                    let d = Int((k >> shift) & 2047)
                                    let at = c[d]
                                    dk[at] = k; di[at] = si[j]; c[d] = at + 1
                                }
                                swap(&sk, &dk); swap(&si, &di)
                            }
                        }
                    }
                }
            }
        }
    }
    return passes % 2 == 0 ? ia : ib
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
