import Foundation
import StationModel
import XCTest
@testable import Priority

/// The assigner before the lean rewrite (global lottery sort, then 3-pass
/// radix grouping per tier), kept verbatim as the reference: the rewrite must
/// give the same weight to every station for any network, hand and tiers.
enum ReferenceAssigner {
    static func referenceWeights(network: RailNetwork, hand: [HandWeight], config: PriorityConfig = PriorityConfig()) -> [Int] {
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
            byLottery = referenceRadixSorted(ids.map { UInt64(bitPattern: Int64($0)) ^ (1 << 63) }, from: byLottery)
        }
        // The top 44 bits of the tickets: ties (rare) keep s_id order.
        byLottery = referenceRadixSorted(order.map { $0 >> 20 }, from: byLottery)

        var codes = [UInt64](repeating: 0, count: n)
        for tier in config.tiers {
            for k in 0..<n { codes[k] = UInt64(bitPattern: Int64(MeshCode.code(lat: lat[k], lng: lng[k], level: tier.level))) }
            let members = referenceRadixSorted(codes, from: byLottery)
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

}

func referenceRadixSorted(_ keys: [UInt64], from initial: [Int32]) -> [Int32] {
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


final class PriorityEquivalenceTests: XCTestCase {
    func network(count: Int, seed: UInt64, shuffled: Bool, dense: Bool) -> RailNetwork {
        var rng = SeededGenerator(seed: seed)
        var n = PriorityAssignerTests.syntheticNetwork(count: count, seed: seed)
        if dense {
            // Many stations per square, and exact duplicates of position.
            for i in n.stations.indices where i % 2 == 0 {
                n.stations[i].lat = 35_680_000 + rng.below(40_000); n.stations[i].lng = 139_760_000 + rng.below(40_000)
            }
        }
        if shuffled { n.stations.shuffle(using: &rng) }
        return n
    }

    func testSameWeightsAsTheReference() {
        let tierSets: [[MeshTier]] = [
            PriorityConfig.standardTiers,
            [MeshTier(weight: 11, level: .second, picks: 3), MeshTier(weight: 12, level: .fiveKilometre, picks: 1, stationsPerExtraPick: 2, maxPicks: 25),
             MeshTier(weight: 12, level: .third, picks: 2)],
            [MeshTier(weight: 11, level: .first, picks: 0), MeshTier(weight: 12, level: .quarter, picks: 1)],
        ]
        var cases = 0
        for seed in [1, 2, 3] as [UInt64] {
            for shuffled in [false, true] {
                for dense in [false, true] {
                    let n = network(count: 2500, seed: seed, shuffled: shuffled, dense: dense)
                    var rng = SeededGenerator(seed: seed &+ 99)
                    var hand: [HandWeight] = []
                    for s in n.stations where rng.below(12) == 0 { hand.append(HandWeight(stationID: s.id, weight: 1 + rng.below(10))) }
                    for tiers in tierSets {
                        for h in [[], hand] {
                            let config = PriorityConfig(seed: seed * 1000, tiers: tiers)
                            XCTAssertEqual(PriorityAssigner.weights(network: n, hand: h, config: config),
                                           ReferenceAssigner.referenceWeights(network: n, hand: h, config: config),
                                           "seed \(seed) shuffled \(shuffled) dense \(dense) tiers \(tiers) hand \(h.count)")
                            cases += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(cases, 72)
    }

    func testEmptyAndAllDisabled() {
        XCTAssertEqual(PriorityAssigner.weights(network: RailNetwork(), hand: []), [])
        var n = PriorityAssignerTests.syntheticNetwork(count: 50)
        for i in n.stations.indices { n.stations[i].enabled = false }
        XCTAssertEqual(PriorityAssigner.weights(network: n, hand: []), ReferenceAssigner.referenceWeights(network: n, hand: [], config: PriorityConfig()))
    }

    /// The fast writer gives StationWeightsFile.write's bytes.
    func testWeightsWriterMatchesStationWeightsFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("weights-writer-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var rng = SeededGenerator(seed: 5)
        let n = network(count: 500, seed: 4, shuffled: true, dense: false)
        var ids = n.stations.map(\.id)
        ids[0] = -17; ids[1] = 0; ids[2] = Int.max   // the extremes a number can take
        let weights = ids.map { _ in 1 + rng.below(13) }
        let a = dir.appendingPathComponent("a.csv").path, b = dir.appendingPathComponent("b.csv").path
        try StationWeightsFile.write(Dictionary(uniqueKeysWithValues: zip(ids, weights)), to: a)
        try WeightsWriter.write(ids: ids, weights: weights, to: b)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: a)), try Data(contentsOf: URL(fileURLWithPath: b)))
        XCTAssertEqual(try StationWeightsFile.read(from: b), Dictionary(uniqueKeysWithValues: zip(ids, weights)))
    }

    /// The lean staging read gives the stations' numbers as StagingFile.read does.
    func testStationPointsMatchTheFullRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("points-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("staging.bin").path
        let n = network(count: 300, seed: 8, shuffled: true, dense: false)
        try StagingFile.write(Staging(network: n), to: path)
        let full = try StagingFile.read(from: path).network
        let points = try StagingFile.readStationPoints(from: path)
        XCTAssertEqual(points, StationPoints(stations: full.stations))
        XCTAssertEqual(points.count, 300)
        XCTAssertThrowsError(try StagingFile.readStationPoints(from: dir.appendingPathComponent("none.sqlite").path)) { XCTAssertTrue($0 is EnvironmentError) }
    }
}
