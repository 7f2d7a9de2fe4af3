import BuildDB
import BundleDiff
import Foundation
import StationIO
import StationModel
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
        return try await BundleBuilder().build(request)
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
            XCTAssertTrue(error is InputError)
        }

        // One of six stations renumbered away (16.7% removed > 2%), one moved ~11 km (> 5,000 m).
        var next = network
        let renumberings = Fixtures.renumber([101], in: &next, from: 110, version: 2)
        next.stations[next.stations.firstIndex { $0.id == 200 }!].lat += 100_000
        await assertThrowsAsync(try await build(next, dist: dist, renumberings: renumberings)) { error in
            guard let refusal = error as? GuardRefusal else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.reasons.count, 3, "\(refusal)")
            XCTAssertTrue(refusal.reasons[0].hasPrefix("1 of 6 stations removed (16.67%), more than the limit of 2.00%"), refusal.reasons[0])
            // The renumbered station's line row goes with its old s_id.
            XCTAssertTrue(refusal.reasons[1].hasPrefix("1 of 6 stations_lines rows removed (16.67%), more than the limit of 5.00%"), refusal.reasons[1])
            XCTAssertTrue(refusal.reasons[2].hasPrefix("1 station moved further than 5000.0 m (--max-moved-m): s_id 200 Terminal 1 111"), refusal.reasons[2])
        }
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
        await assertThrowsAsync(try await build(disabled, dist: dist)) { error in
            XCTAssertTrue(error is GuardRefusal, "\(error)")
            XCTAssertTrue("\(error)".contains("1 of 5 enabled stations disabled (20.00%)"), "\(error)")
        }
        var weights = Fixtures.weights(for: network)
        weights[100] = weights[100]! == 13 ? 12 : 13
        await assertThrowsAsync(try await build(network, dist: dist, weights: weights)) { error in
            XCTAssertTrue(error is GuardRefusal, "\(error)")
            XCTAssertTrue("\(error)".contains("1 of 5 live stations changed weight (20.00%)"), "\(error)")
        }
        XCTAssertEqual(try Fixtures.snapshot(dist), before)
        // Unchanged contents are never refused: there is nothing to publish.
        guard case .unchanged(let version) = try await build(network, dist: dist, guards: DiffGuards(maxRemovedPercent: 0)) else {
            return XCTFail("unchanged")
        }
        XCTAssertEqual(version, 1)
    }
}
