import Foundation
import StationModel
import XCTest
@testable import Priority

/// On the national stand-in data (../shared/data/ekidata; skipped where absent).
final class NationalPriorityTests: XCTestCase {
    func testCountsPerWeightOnNationalData() throws {
        let network = try NationalData.network()
        XCTAssertEqual(network.liveStations.count, 9521)
        let w = PriorityAssigner.assign(network: network, hand: [])
        let c = PriorityAssigner.counts(w, liveOnly: network)
        // Blue noise with no hand pins: few 11s (they are far apart), 13 still the largest tier.
        XCTAssertEqual([c[11], c[12], c[13]], [790, 3413, 5318])
        XCTAssertEqual(w.count, network.stations.count)
        // The classic lottery: the counts documented on PriorityConfig.standardTiers.
        let lottery = PriorityAssigner.assign(network: network, hand: [], config: PriorityConfig(tiers: PriorityConfig.standardTiers))
        let l = PriorityAssigner.counts(lottery, liveOnly: network)
        XCTAssertEqual([l[11], l[12], l[13]], [1823, 2189, 5509])
    }

    func testCountsWithSuggestedHandWeights() throws {
        let network = try NationalData.network()
        let suggestions = HandWeightSuggestions.suggest(network: network, hand: [])
        let hand = suggestions.map { HandWeight(stationID: $0.stationID, weight: $0.suggestedWeight) }
        // Junctions, line ends, Shinkansen stations and one main station per town.
        XCTAssertEqual(hand.count, 2020)
        let w = PriorityAssigner.assign(network: network, hand: hand)
        let c = PriorityAssigner.counts(w, liveOnly: network)
        XCTAssertEqual([c[1...10].reduce(0, +), c[11], c[12], c[13]], [2020, 229, 2633, 4639])
    }

    /// With no hand weights, on fewer viewports than the CLI's 1,000 to keep the
    /// debug test quick: blue noise beats random tiers of the same counts by 0.04
    /// in coverage without losing pan stability.
    func testMeshWeightsBeatRandomOnNationalData() throws {
        let network = try NationalData.network()
        let ours = WeightedStations.from(network: network, weights: PriorityAssigner.assign(network: network, hand: []))
        let random = WeightedStations.randomMachineWeights(ours, seed: StationHash.defaultSeed)
        XCTAssertEqual(random.filter(\.enabled).map(\.weight).sorted(), ours.filter(\.enabled).map(\.weight).sorted(), "same counts")
        let config = ViewportReportConfig(viewports: 300, pins: 100)
        let a = ViewportReport.run(stations: ours, config: config), b = ViewportReport.run(stations: random, config: config)
        XCTAssertEqual(a.overall.viewports, b.overall.viewports, "same viewports for both")
        XCTAssertGreaterThan(a.overall.viewports, 100)
        XCTAssertGreaterThanOrEqual(a.overall.coverage - b.overall.coverage, 0.04, "\(a.overall) vs \(b.overall)")
        XCTAssertGreaterThanOrEqual(a.overall.panStability, b.overall.panStability, "\(a.overall) vs \(b.overall)")
    }

    func testSuggestionsRankJunctionsAndSkipHandPicks() throws {
        let network = try NationalData.network()
        let all = HandWeightSuggestions.suggest(network: network, hand: [], limit: 20)
        XCTAssertEqual(all.count, 20)
        XCTAssertEqual(all.first?.name, "東京")
        XCTAssertTrue(all.allSatisfy { !$0.reasons.isEmpty && (1...10).contains($0.suggestedWeight) })
        XCTAssertEqual(all.map(\.score), all.map(\.score).sorted(by: >))
        let without = HandWeightSuggestions.suggest(network: network, hand: [HandWeight(stationID: all[0].stationID, weight: 1)], limit: 20)
        XCTAssertFalse(without.contains { $0.stationID == all[0].stationID })
        let csv = HandWeightSuggestions.csv(Array(all.prefix(3)))
        XCTAssertTrue(csv.hasPrefix("s_id,weight,note\n\(all[0].stationID),"))
        // Usable as a hand file as it stands.
        XCTAssertEqual(try HandWeights.parse(csv, label: "suggested.csv", network: network).weights.count, 3)
    }
}
