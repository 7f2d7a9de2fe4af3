import Foundation
import Priority
import StationCore
import XCTest

final class PriorityAssignerTests: XCTestCase {
    /// A seeded synthetic network: dense clusters and sparse countryside.
    static func syntheticNetwork(count: Int = 3000, seed: UInt64 = 42) -> RailNetwork {
        var rng = SeededGenerator(seed: seed)
        var n = RailNetwork(operators: [Operator(id: 1, name: "Op", type: 5)])
        let cities = [(35_680_000, 139_760_000), (34_700_000, 135_500_000), (43_060_000, 141_350_000)]
        for i in 0..<count {
            let lat: Int, lng: Int
            if i % 3 == 0 {
                let c = cities[rng.below(cities.count)]
                lat = c.0 + rng.below(300_000) - 150_000; lng = c.1 + rng.below(300_000) - 150_000
            } else {
                lat = 31_000_000 + rng.below(12_000_000); lng = 130_000_000 + rng.below(12_000_000)
            }
            n.stations.append(Station(id: 1000 + i * 7, name: "S\(i)", pref: 13, lat: lat, lng: lng, operatorID: 1, enabled: i % 50 != 49))
        }
        return n
    }

    func testEveryStationGetsAWeightInRange() {
        let n = Self.syntheticNetwork()
        let hand = [HandWeight(stationID: 1000, weight: 3), HandWeight(stationID: 1000 + 49 * 7, weight: 5)] // the second is disabled
        let w = PriorityAssigner.assign(network: n, hand: hand)
        XCTAssertEqual(w.count, n.stations.count)
        XCTAssertEqual(w[1000], 3)
        XCTAssertEqual(w[1000 + 49 * 7], 5, "a hand weight on a disabled station is kept")
        for s in n.stations {
            XCTAssertTrue((1...13).contains(w[s.id]!))
            if !s.enabled, s.id != 1000 + 49 * 7 { XCTAssertEqual(w[s.id], 13, "disabled stations get 13") }
        }
        let c = PriorityAssigner.counts(w, liveOnly: n)
        XCTAssertGreaterThan(c[11], 0); XCTAssertGreaterThan(c[12], 0); XCTAssertGreaterThan(c[13], 0)
    }

    static let lottery = PriorityConfig(tiers: PriorityConfig.standardTiers)

    /// The classic lottery: every occupied 2nd-mesh square has exactly one weight-11
    /// station or a hand pick in its first place; no square has two 11s.
    func testOneElevenPerSecondMeshSquareUnlessHandPicked() {
        let n = Self.syntheticNetwork()
        let handID = n.stations.first { $0.enabled }!.id
        let w = PriorityAssigner.assign(network: n, hand: [HandWeight(stationID: handID, weight: 2)], config: Self.lottery)
        var elevens: [Int: Int] = [:], hasHand: [Int: Bool] = [:]
        for s in n.stations where s.enabled {
            let sq = MeshCode.code(lat: s.lat, lng: s.lng, level: .second)
            elevens[sq, default: 0] += w[s.id] == 11 ? 1 : 0
            if w[s.id]! <= 10 { hasHand[sq] = true }
        }
        for (sq, k) in elevens { XCTAssertEqual(k, hasHand[sq] == true ? 0 : 1, "square \(sq)") }
    }

    func testSameWeightsWhateverTheInputOrder() {
        let n = Self.syntheticNetwork()
        let base = PriorityAssigner.assign(network: n, hand: [])
        var shuffled = n
        var rng = SeededGenerator(seed: 99)
        for i in stride(from: shuffled.stations.count - 1, to: 0, by: -1) { shuffled.stations.swapAt(i, rng.below(i + 1)) }
        XCTAssertNotEqual(shuffled.stations.map(\.id), n.stations.map(\.id))
        XCTAssertEqual(PriorityAssigner.assign(network: shuffled, hand: []), base)
        XCTAssertEqual(PriorityAssigner.assign(network: n, hand: []), base, "same seed, same weights")
        let other = PriorityAssigner.assign(network: n, hand: [], config: PriorityConfig(seed: 7))
        XCTAssertNotEqual(other, base, "the seed decides the lottery")
        let lottery = PriorityAssigner.assign(network: n, hand: [], config: Self.lottery)
        var otherSeed = Self.lottery
        otherSeed.seed = 7
        XCTAssertEqual(PriorityAssigner.counts(PriorityAssigner.assign(network: n, hand: [], config: otherSeed), liveOnly: n)[11],
                       PriorityAssigner.counts(lottery, liveOnly: n)[11], "in the lottery the seed changes who, not how many, per square")
    }

    func testTicketsAreFixedValues() {
        // SplitMix64, not Swift's per-process Hasher: these never change between runs.
        XCTAssertEqual(SplitMix64.mix(0), 0xE220_A839_7B1D_CDAF)
        XCTAssertEqual(StationHash.ticket(seed: 1, stationID: 1), StationHash.ticket(seed: 1, stationID: 1))
        XCTAssertNotEqual(StationHash.ticket(seed: 1, stationID: 1), StationHash.ticket(seed: 2, stationID: 1))
    }

    /// The squares (at every tier's level) a point lies in.
    private func squares(_ lat: Int, _ lng: Int) -> Set<MeshCode> {
        Set(PriorityConfig.standardTiers.map { MeshCode(lat: lat, lng: lng, level: $0.level) })
    }

    private func changedOutside(_ before: [Int: Int], _ after: [Int: Int], network: RailNetwork, squares allowed: Set<MeshCode>) -> [Int] {
        network.stations.filter { s in
            guard let a = before[s.id], let b = after[s.id], a != b else { return false }
            return squares(s.lat, s.lng).isDisjoint(with: allowed)
        }.map(\.id)
    }

    func testMovingOneStationChangesWeightsOnlyInTheSquaresItLeftOrEntered() {
        let n = Self.syntheticNetwork()
        let before = PriorityAssigner.assign(network: n, hand: [], config: Self.lottery)
        var rng = SeededGenerator(seed: 5)
        var totalChanged = 0
        for _ in 0..<40 {
            var fixed = n
            let i = rng.below(n.stations.count)
            let old = fixed.stations[i]
            // Move it to another live station's place (a dense square) or a few km away.
            let target = n.stations[rng.below(n.stations.count)]
            fixed.stations[i].lat = rng.below(2) == 0 ? target.lat + 1 : old.lat + 30_000
            fixed.stations[i].lng = rng.below(2) == 0 ? target.lng + 1 : old.lng - 40_000
            let after = PriorityAssigner.assign(network: fixed, hand: [], config: Self.lottery)
            let allowed = squares(old.lat, old.lng).union(squares(fixed.stations[i].lat, fixed.stations[i].lng))
            XCTAssertEqual(changedOutside(before, after, network: fixed, squares: allowed), [])
            totalChanged += WeightChanges.between(previous: before, current: after).changed
        }
        XCTAssertGreaterThan(totalChanged, 0, "some moves must change something, or the test tests nothing")
    }

    func testAddingOrRemovingOneStationChangesWeightsOnlyInItsSquares() {
        let n = Self.syntheticNetwork()
        let before = PriorityAssigner.assign(network: n, hand: [], config: Self.lottery)
        var rng = SeededGenerator(seed: 6)
        for _ in 0..<30 {
            let i = rng.below(n.stations.count)
            var removed = n
            let gone = removed.stations.remove(at: i)
            let afterRemoval = PriorityAssigner.assign(network: removed, hand: [], config: Self.lottery)
            XCTAssertEqual(changedOutside(before, afterRemoval, network: removed, squares: squares(gone.lat, gone.lng)), [])
            XCTAssertEqual(WeightChanges.between(previous: before, current: afterRemoval).removed, 1)

            var added = n
            var extra = n.stations[i]
            extra.id = 999_999; extra.enabled = true
            added.stations.append(extra)
            let afterAdding = PriorityAssigner.assign(network: added, hand: [], config: Self.lottery)
            XCTAssertEqual(changedOutside(before, afterAdding, network: n, squares: squares(extra.lat, extra.lng)), [])
            XCTAssertEqual(WeightChanges.between(previous: before, current: afterAdding).added, 1)
        }
    }

    func testWeightChangesCount() {
        let c = WeightChanges.between(previous: [1: 11, 2: 12, 3: 13], current: [1: 11, 2: 13, 4: 12])
        XCTAssertEqual(c, WeightChanges(changed: 1, added: 1, removed: 1))
    }

    func testWeightsFileRoundTrip() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("priority-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let n = Self.syntheticNetwork(count: 300)
        let w = PriorityAssigner.assign(network: n, hand: [])
        let path = dir.appendingPathComponent("weights.csv").path
        try StationWeightsFile.write(w, to: path)
        XCTAssertEqual(try StationWeightsFile.read(from: path), w)
    }

    /// `weights(stations:)` is `assign` as an array parallel to the stations, whatever their order.
    func testWeightsAreParallelToTheStations() {
        let n = Self.syntheticNetwork(count: 500)
        let hand = [HandWeight(stationID: n.stations[3].id, weight: 4)]
        let byID = PriorityAssigner.assign(network: n, hand: hand)
        let reversed = Array(n.stations.reversed())
        let parallel = PriorityAssigner.weights(stations: reversed, hand: hand)
        XCTAssertEqual(parallel.count, reversed.count)
        XCTAssertEqual(parallel, reversed.map { byID[$0.id]! })
        XCTAssertEqual(parallel[reversed.count - 4], 4)
        XCTAssertEqual(PriorityAssigner.weights(stations: [], hand: hand), [])
    }

    func testTiersAsWrittenOnTheCommandLine() throws {
        XCTAssertEqual(try MeshTier.parse(list: "11:2nd:1,12:5km:1:6:20"), PriorityConfig.standardTiers)
        XCTAssertEqual(try MeshTier.parse(list: "12:quarter:0"), [MeshTier(weight: 12, level: .quarter, picks: 0)])
        XCTAssertEqual(PriorityConfig.standardTiers.map(\.description),
                       ["weight 11: 1 per 2nd square", "weight 12: 1 per 5km square +1 per 6 stations (at most 20)"])
        func message(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
            do {
                _ = try MeshTier.parse(list: text)
                XCTFail("expected bad input", file: file, line: line)
            } catch let e as StationError where e.kind == .badInput {
                return e.diagnostics.map(\.description)
            } catch {
                XCTFail("expected bad input, got \(error)", file: file, line: line)
            }
            return []
        }
        let levels = "1st, 2nd, 5km, 3rd, half, quarter"
        let shape = "expected weight:level:picks[:stationsPerExtraPick:maxPicks], weight 11 or 12, level one of \(levels)"
        XCTAssertEqual(message("11:2nd:1,13:2nd:1"), ["--tiers: 13:2nd:1: \(shape)"])
        XCTAssertEqual(message("11:10km:1"), ["--tiers: 11:10km:1: \(shape)"])
        XCTAssertEqual(message("11:2nd"), ["--tiers: 11:2nd: \(shape)"])
        XCTAssertEqual(message("11:2nd:-1"), ["--tiers: 11:2nd:-1: \(shape)"])
        XCTAssertEqual(message("12:5km:3:0:5"), ["--tiers: 12:5km:3:0:5: expected stationsPerExtraPick > 0 and maxPicks >= picks"])
        XCTAssertEqual(message("12:5km:3:6:2"), ["--tiers: 12:5km:3:6:2: expected stationsPerExtraPick > 0 and maxPicks >= picks"])
    }

    /// Density-aware tiers: one more pick per `stationsPerExtraPick` stations beyond the first, at most `maxPicks`.
    func testDensityAwarePicks() {
        let tier = MeshTier(weight: 12, level: .fiveKilometre, picks: 1, stationsPerExtraPick: 6, maxPicks: 3)
        XCTAssertEqual([1, 6, 7, 12, 13, 100].map { tier.picks(inSquareOf: $0) }, [1, 1, 2, 2, 3, 3])
        XCTAssertEqual(MeshTier(weight: 11, level: .second, picks: 2).picks(inSquareOf: 50), 2)
        // Twenty live stations in one 5 km square, no 2nd-mesh tier: 1 + 19 / 6 = 4 of them get 12.
        let stations = (0..<20).map { Station(id: $0 + 1, name: "S\($0)", pref: 13, lat: 35_681_000 + $0, lng: 139_767_000 + $0, operatorID: 1) }
        let w = PriorityAssigner.weights(stations: stations, hand: [], config: PriorityConfig(tiers: [
            MeshTier(weight: 12, level: .fiveKilometre, picks: 1, stationsPerExtraPick: 6, maxPicks: 20)]))
        XCTAssertEqual(w.filter { $0 == 12 }.count, 4)
        XCTAssertEqual(w.filter { $0 == 13 }.count, 16)
    }

    /// Blue noise: in a patch of even density every station has the same radius, so no two
    /// stations of weight 11 or less lie within it of each other, nor two of weight 12 or less
    /// within the 12s' radius; hand pins are in the set from the start.
    func testBlueNoiseSpacing() {
        // 400 stations 500 m apart on a 20 x 20 grid near Tokyo: one density everywhere.
        var stations: [Station] = []
        for row in 0..<20 {
            for column in 0..<20 {
                stations.append(Station(id: row * 20 + column + 1, name: "S", pref: 13, lat: 35_600_000 + row * 4_500,
                                        lng: 139_600_000 + column * 5_500, operatorID: 1))
            }
        }
        let hand = [HandWeight(stationID: 210, weight: 5)]
        let tiers = BlueNoiseTiers.standard
        let w = PriorityAssigner.weights(stations: stations, hand: hand)
        XCTAssertEqual(w[209], 5)
        // All 400 lie in one 3 x 3 block of 2nd-mesh squares or its edge: radii from the count around each.
        func oval(_ a: Station, _ b: Station) -> Double {
            let dy = Double(a.lat - b.lat) / 1e6 * 111.2 * tiers.northSouth
            let dx = Double(a.lng - b.lng) / 1e6 * 111.2 * cos(Double(a.lat) / 1e6 * .pi / 180)
            return (dx * dx + dy * dy).squareRoot()
        }
        let shrink = pow(100 / BlueNoiseTiers.density(ofBin: BlueNoiseTiers.densityBin(400)), tiers.exponent)
        for (tier, limit) in [(11, tiers.radius[0] * shrink), (12, tiers.radius[1] * shrink)] {
            let pins = stations.indices.filter { w[$0] <= tier }
            XCTAssertGreaterThan(pins.filter { w[$0] == tier }.count, 1)
            for a in pins { for b in pins where a < b { XCTAssertGreaterThanOrEqual(oval(stations[a], stations[b]), limit * 0.999, "weights \(w[a]), \(w[b])") } }
        }
        XCTAssertGreaterThan(w.filter { $0 == 13 }.count, 200, "13 stays a real tier")
    }

    func testBlueNoiseSettingsAsWrittenForTuning() throws {
        XCTAssertEqual(try BlueNoiseTiers.parse("5:1.5").radius, [5, 1.5])
        let all = try BlueNoiseTiers.parse("4:1:0.5:1:0.3:10:3:0.7")
        XCTAssertEqual([all.exponent, all.minRadius[0], all.minRadius[1], all.maxRadius[0], all.maxRadius[1], all.northSouth], [0.5, 1, 0.3, 10, 3, 0.7])
        XCTAssertThrowsError(try BlueNoiseTiers.parse("5")) { XCTAssertTrue($0.station(.badInput) != nil) }
        XCTAssertThrowsError(try BlueNoiseTiers.parse("0:1")) { XCTAssertTrue($0.station(.badInput) != nil) }
    }
}
