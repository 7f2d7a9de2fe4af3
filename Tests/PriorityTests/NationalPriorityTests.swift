import Foundation
import Priority
import StationCore
import TestSupport
import XCTest

/// On the national data (raw/, as ingest reads it). The tests hold what the weights are
/// for, whatever this edition's counts: every live station weighted once, tiers that
/// grow from 11 to 13, pins spread wider than chance.
final class NationalPriorityTests: XCTestCase {
    /// The live stations' weights per tier, index 0 unused.
    func counts(_ network: RailNetwork, _ weights: [Int: Int]) -> [Int] { PriorityAssigner.counts(weights, liveOnly: network) }

    func testMachineWeightsOnNationalData() async throws {
        let network = try await NationalNetwork.network()
        let live = network.liveStations
        XCTAssertTrue((8_000...12_000).contains(live.count), "\(live.count) live stations: a country's worth")
        XCTAssertTrue(live.allSatisfy { MicroDegrees.inJapan(lat: $0.lat, lng: $0.lng) })

        // Blue noise with no hand pins: every live station one machine weight, disabled ones 13;
        // few 11s (they are far apart), 13 still the largest tier.
        let w = PriorityAssigner.assign(network: network, hand: [])
        XCTAssertEqual(w.count, network.stations.count)
        XCTAssertTrue(network.stations.allSatisfy { (($0.enabled ? 11 : 13)...13).contains(w[$0.id] ?? 0) })
        let c = counts(network, w)
        XCTAssertEqual(c[11] + c[12] + c[13], live.count)
        XCTAssertTrue(0 < c[11] && c[11] < c[12] && c[12] < c[13], "\(c[11...13])")
        // The 11s are spread out, blue noise and not a sample: the typical 11 lies well farther
        // (half as far again) from the nearest other 11 than uniform random tiers of the same
        // counts place theirs, which crowd where the stations do.
        let ours = WeightedStations.from(network: network, weights: w)
        let random = WeightedStations.randomMachineWeights(ours, seed: StationHash.defaultSeed)
        let spread = medianNearestMetres(ours.filter { $0.enabled && $0.weight == 11 })
        let chance = medianNearestMetres(random.filter { $0.enabled && $0.weight == 11 })
        XCTAssertGreaterThan(spread, 1.5 * chance, "median distance from an 11 to the nearest other 11, blue noise against random")

        // The classic lottery: exactly one 11 in every 2nd-mesh square (10 km) holding live
        // stations, and in every 5 km square at least its tier's picks at 11 or 12.
        let lottery = PriorityAssigner.assign(network: network, hand: [], config: PriorityConfig(tiers: PriorityConfig.standardTiers))
        let tiers = PriorityConfig.standardTiers
        XCTAssertEqual(tiers.map(\.weight), [11, 12])
        let second = Dictionary(grouping: live) { MeshCode.code(lat: $0.lat, lng: $0.lng, level: tiers[0].level) }
        for (square, stations) in second {
            XCTAssertEqual(stations.count { lottery[$0.id] == 11 }, 1, "2nd-mesh square \(square)")
        }
        let fiveKilometre = Dictionary(grouping: live) { MeshCode.code(lat: $0.lat, lng: $0.lng, level: tiers[1].level) }
        for (square, stations) in fiveKilometre {
            XCTAssertGreaterThanOrEqual(stations.count { lottery[$0.id]! <= 12 }, tiers[1].picks(inSquareOf: stations.count), "5 km square \(square)")
        }
        let l = counts(network, lottery)
        XCTAssertEqual(l[11], second.count)
        XCTAssertEqual(l[11] + l[12] + l[13], live.count)
        XCTAssertGreaterThan(l[13], max(l[11], l[12]), "\(l[11...13])")
    }

    /// The median over `stations` of the distance to the nearest other one, in metres.
    func medianNearestMetres(_ stations: [WeightedStation]) -> Double {
        let nearest = stations.indices.map { i in
            stations.indices.lazy.filter { $0 != i }.map {
                MicroDegrees.distanceMetres(lat1: stations[i].lat, lng1: stations[i].lng, lat2: stations[$0].lat, lng2: stations[$0].lng)
            }.min() ?? 0
        }.sorted()
        return nearest.isEmpty ? 0 : nearest[nearest.count / 2]
    }

    /// The suggestions (junctions, line ends, Shinkansen stations and one main station per
    /// town) as hand weights: the machine tiers fill the gaps those pins leave instead of
    /// doubling them.
    func testCountsWithSuggestedHandWeights() async throws {
        let network = try await NationalNetwork.network()
        let live = network.liveStations
        let suggestions = HandWeightSuggestions.suggest(network: network, hand: [])
        let suggested = Set(suggestions.map(\.stationID))
        XCTAssertEqual(suggested.count, suggestions.count, "each station once")
        XCTAssertTrue(suggested.isSubset(of: Set(live.map(\.id))), "live stations only")
        // More than one per two lines (each has two ends), fewer than one live station in two.
        XCTAssertTrue(suggestions.count > network.lines.count / 2 && suggestions.count < live.count / 2, "\(suggestions.count) suggestions")
        // Both ends of every live line, and every station on three or more live lines.
        let liveIDs = Set(live.map(\.id)), liveLines = Set(network.lines.filter(\.enabled).map(\.id))
        let links = network.stationLines.filter { liveLines.contains($0.lineID) && liveIDs.contains($0.stationID) }
        for (line, members) in Dictionary(grouping: links, by: \.lineID) where members.count >= 2 {
            let order = members.sorted { ($0.sort, $0.stationID) < ($1.sort, $1.stationID) }
            XCTAssertTrue(suggested.contains(order.first!.stationID) && suggested.contains(order.last!.stationID), "ends of line \(line)")
        }
        for (station, rows) in Dictionary(grouping: links, by: \.stationID) where rows.count >= 3 {
            XCTAssertTrue(suggested.contains(station), "junction \(station) of \(rows.count) lines")
        }

        let hand = suggestions.map { HandWeight(stationID: $0.stationID, weight: $0.suggestedWeight) }
        let w = PriorityAssigner.assign(network: network, hand: hand)
        XCTAssertTrue(hand.allSatisfy { w[$0.stationID] == $0.weight }, "hand weights are kept as given")
        let c = counts(network, w), without = counts(network, PriorityAssigner.assign(network: network, hand: []))
        XCTAssertEqual(c[1...10].reduce(0, +), hand.count)
        XCTAssertEqual(c[1...13].reduce(0, +), live.count)
        XCTAssertLessThan(c[11], without[11], "\(c[11...13]) with pins, \(without[11...13]) without")
        XCTAssertLessThan(c[12], without[12], "\(c[11...13]) with pins, \(without[11...13]) without")
    }

    /// With no hand weights, on fewer viewports than the CLI's 1,000 to keep the
    /// debug test quick: blue noise beats random tiers of the same counts by 0.04
    /// in coverage without losing pan stability (beyond the noise of 169 viewports).
    func testMeshWeightsBeatRandomOnNationalData() async throws {
        let network = try await NationalNetwork.network()
        let ours = WeightedStations.from(network: network, weights: PriorityAssigner.assign(network: network, hand: []))
        let random = WeightedStations.randomMachineWeights(ours, seed: StationHash.defaultSeed)
        XCTAssertEqual(random.filter(\.enabled).map(\.weight).sorted(), ours.filter(\.enabled).map(\.weight).sorted(), "same counts")
        let config = ViewportReportConfig(viewports: 300, pins: 100)
        let a = ViewportReport.run(stations: ours, config: config), b = ViewportReport.run(stations: random, config: config)
        XCTAssertEqual(a.overall.viewports, b.overall.viewports, "same viewports for both")
        XCTAssertGreaterThan(a.overall.viewports, 100)
        XCTAssertGreaterThanOrEqual(a.overall.coverage - b.overall.coverage, 0.04, "\(a.overall) vs \(b.overall)")
        // Pans keep as many pins as chance does (the two are within 0.003 on the default raw/).
        XCTAssertGreaterThanOrEqual(a.overall.panStability, b.overall.panStability - 0.01, "\(a.overall) vs \(b.overall)")
    }

    func testSuggestionsRankJunctionsAndSkipHandPicks() async throws {
        let network = try await NationalNetwork.network()
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

    /// raw/weights.csv (what `priority suggest --complete` proposed from raw/) with the machine
    /// weights, as the default bundle publishes them: the apps' 100 pins cover the country on a
    /// phone (span 12.8) and a region (span 3.2), measured as `stationdb priority report --span`;
    /// re-tiered (`priority suggest --retier`), they cover as much.
    func testTheDefaultHandWeightsCoverTheCountryAndEachRegion() async throws {
        let network = try await NationalNetwork.network()
        let hand = try HandWeights.read(path: RepositoryData.raw + "/weights.csv", network: network).weights
        let stations = WeightedStations.weighed(network: network, hand: hand)
        let retiered = WeightedStations.weighed(network: network, hand: HandWeightRetier.retier(network: network, hand: hand).rows.map {
            HandWeight(stationID: $0.stationID, weight: $0.level)
        })
        for (span, least) in [(12.8, 0.90), (3.2, 0.88)] {
            let config = ViewportReportConfig(viewports: 1000, pins: 100, span: span)
            let score = ViewportReport.run(stations: stations, config: config).overall
            XCTAssertGreaterThan(score.viewports, 900)
            XCTAssertGreaterThanOrEqual(score.coverage, least, "span \(span): \(score)")
            XCTAssertGreaterThanOrEqual(ViewportReport.run(stations: retiered, config: config).overall.coverage, score.coverage, "span \(span), re-tiered")
        }

        // The whole country at once (the apps' query over every live station's box, 100 pins):
        // every region shows pins, in proportion to its land rather than to its distance from
        // the middle of the map.
        let pins = Region.pins(stations, pins: 100)
        XCTAssertEqual(pins.reduce(0, +), 100)
        let land = Region.all.map(\.land).reduce(0, +)
        for (region, n) in zip(Region.all, pins) {
            XCTAssertGreaterThan(n, 0, region.name)
            XCTAssertLessThanOrEqual(abs(Double(n) / 100 - region.land / land), 0.08, "\(region.name): \(n) pins")
        }
    }

    /// Each tier of the suggested weights keeps its distance from every station of its
    /// weight or a smaller one, so the smallest weights are spread over the whole country.
    func testSuggestedWeightsAreSpreadTierByTier() async throws {
        let network = try await NationalNetwork.network()
        let suggested = HandWeightSuggestions.suggest(network: network, hand: [])
        let place = Dictionary(uniqueKeysWithValues: network.stations.map { ($0.id, $0) })
        for tier in HandWeightSuggestions.tiers {
            let these = suggested.filter { $0.suggestedWeight == tier.weight }.map { place[$0.stationID]! }
            let before = suggested.filter { $0.suggestedWeight <= tier.weight }.map { place[$0.stationID]! }
            XCTAssertFalse(these.isEmpty, "weight \(tier.weight)")
            for a in these {
                for b in before where b.id != a.id {
                    let metres = MicroDegrees.distanceMetres(lat1: a.lat, lng1: a.lng, lat2: b.lat, lng2: b.lng)
                    XCTAssertGreaterThanOrEqual(metres, tier.metres, "weight \(tier.weight): \(a.name) \(Int(metres)) m from \(b.name)")
                }
            }
        }
        // Every operator running a live station gets a hand weight: small operators get a pin too.
        let weighted = Set(suggested.map { place[$0.stationID]!.operatorID })
        XCTAssertEqual(weighted, Set(network.liveStations.map(\.operatorID)))
        XCTAssertTrue(suggested.allSatisfy { (1...10).contains($0.suggestedWeight) })
    }
}
