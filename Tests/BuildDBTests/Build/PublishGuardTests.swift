import BuildDB
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// The nightly's guards in `stationdb build`: checked against the published version
/// before anything is written; a refusal leaves dist/ exactly as it was.
final class PublishGuardTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    func build(_ network: RailNetwork, dist: String, weights: [Int: Int]? = nil, guards: DiffGuards = .nightly, force: Bool = false,
               renumberings: [Renumbering: SourceLocation] = [:]) async throws -> BuildOutcome {
        var request = Fixtures.request(network, dist: dist, weights: weights, renumberings: renumberings)
        request.guards = guards
        request.force = force
        return try await publish(request)
    }

    /// What a refused outcome was refused for; fails the test for any other outcome.
    func refusal(_ outcome: BuildOutcome, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        guard case .refused(let candidate) = outcome else {
            XCTFail("expected a refusal, got \(outcome)", file: file, line: line)
            return []
        }
        return candidate.violations
    }

    func testRefusalPublishesNothingAndForcePublishes() async throws {
        let dist = try Fixtures.temporaryFolder()
        let network = Fixtures.smallNetwork()
        // The first version has nothing to compare with: no guard applies.
        guard case .published = try await build(network, dist: dist, guards: DiffGuards(maxRemovedPercent: 0, maxDisabledPercent: 0, maxMovedMetres: 0, maxWeightChurnPercent: 0)) else {
            return XCTFail("the first version is published")
        }
        let before = try Fixtures.snapshot(dist)

        // A station gone without a renumbering is bad input, --force or not: its s_id would be lost.
        var gone = network
        gone.stations.removeAll { $0.id == 101 }
        gone.stationLines.removeAll { $0.stationID == 101 }
        await assertThrowsAsync(try await build(gone, dist: dist, force: true)) { error in
            XCTAssertTrue("\(error)".contains("s_id 101: station 101 (上野), published in version 1, is missing from this build"), "\(error)")
            XCTAssertTrue(error.station(.badInput) != nil)
        }

        // One of six stations renumbered away (16.7% removed > 2%), one moved ~11 km (> 5,000 m).
        var next = network
        let renumberings = Fixtures.renumber([101], in: &next, from: 110, version: 2)
        next.stations[next.stations.firstIndex { $0.id == 200 }!].lat += 100_000
        let reasons = refusal(try await build(next, dist: dist, renumberings: renumberings))
        XCTAssertEqual(reasons, [
            "1 of 6 stations removed (16.67%), more than the limit of 2.00% (--max-removed)",
            // The renumbered station's line row goes with its old s_id.
            "1 of 6 stations_lines rows removed (16.67%), more than the limit of 5.00% (--max-line-rows-removed): the apps' line lists would lose them",
            "1 station moved further than 5000.0 m (--max-moved-m): s_id 200 Terminal 1 11119.5 m",
            "1 of 6 stations moved more than 300.0 m (16.67%), more than the limit of 2.00% (--max-moved-far)",
        ])
        XCTAssertEqual(try Fixtures.snapshot(dist), before, "a refusal leaves dist/ untouched")
        XCTAssertEqual(try Fixtures.latest(dist)["version"] as? Int, 1)

        // Looser limits let it through; so does --force with the nightly ones.
        let loose = DiffGuards(maxRemovedPercent: 20, maxDisabledPercent: 2, maxLineRowsRemovedPercent: 50, maxMovedMetres: 20_000, maxWeightChurnPercent: 10)
        let dist2 = try Fixtures.temporaryFolder()
        try Fixtures.copy(dist + "/1", to: dist2 + "/1")
        try Fixtures.copy(dist + "/latest.json", to: dist2 + "/latest.json")
        let loosely = try Fixtures.published(try await build(next, dist: dist2, guards: loose, renumberings: renumberings), dist: dist2)
        XCTAssertEqual(loosely.version, 2)

        let forced = try Fixtures.published(try await build(next, dist: dist, force: true, renumberings: renumberings), dist: dist)
        XCTAssertEqual(forced.version, 2)
        XCTAssertEqual(try Fixtures.latest(dist)["version"] as? Int, 2)
        XCTAssertEqual(forced.difference?["stations"]?.removed.count, 1)
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist))
    }

    func testDisabledAndWeightChurnRefuseToo() async throws {
        let dist = try Fixtures.temporaryFolder()
        let network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist)
        let before = try Fixtures.snapshot(dist)

        var disabled = network
        disabled.stations[0].enabled = false
        let disabledRefusal = refusal(try await build(disabled, dist: dist))
        XCTAssertEqual(disabledRefusal,
                       ["1 of 5 enabled stations disabled (20.00%), more than the limit of 2.00% (--max-disabled)"])
        var weights = Fixtures.weights(for: network)
        weights[100] = weights[100]! == 13 ? 12 : 13
        let churnRefusal = refusal(try await build(network, dist: dist, weights: weights))
        // Station 100's was a hand weight (10): it is lost, refused like a guard too.
        XCTAssertEqual(churnRefusal,
                       ["1 of 5 live stations changed weight (20.00%), more than the limit of 10.00% (--max-weight-churn)",
                        "1 of the 4 hand weights (stations with weight 1..10) of version 1 are gone, 3 left (25.00%), more than the limit of 10.00%: is weights.csv emptied or cut short?"])
        XCTAssertEqual(try Fixtures.snapshot(dist), before)
        // Unchanged contents are never refused: there is nothing to publish.
        guard case .unchanged(let version) = try await build(network, dist: dist, guards: DiffGuards(maxRemovedPercent: 0)) else {
            return XCTFail("unchanged")
        }
        XCTAssertEqual(version, 1)
    }
}
