import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// `stationdb priority report` gave coverage numbers with no reference unless asked: it
/// shows, by default, the same weights drawn at random and the weights the previous version
/// published, each a row beside the weighting's own.
final class PriorityReportTests: XCTestCase {
    func testTheReportShowsRandomAndThePreviousVersionBesideTheWeights() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("report-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        try SmallNetwork.write(to: folder + "/raw")
        let pipeline = Pipeline(PublishSettings(raw: folder + "/raw", build: folder + "/build", dist: folder + "/dist"))
        _ = try await pipeline.publish()
        try Files.write(Array("s_id,weight,note\n5,1,junction\n".utf8), to: folder + "/raw/weights.csv")
        let second = try await pipeline.publish()
        XCTAssertEqual(second.version, 2)

        let run = try runWithTimeout(try BuiltTools.stationdb(), ["priority", "report", "--bundle", "dist/2", "--viewports", "100", "--pins", "10"],
                                     in: folder, timeout: 120)
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.out.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("reference points: random 11/12/13, same counts (what any weighting must beat), "
                                     + "and version 1, published before (what these replace)"), run.out)
        // The rows of the table (not its span bands): the weighting, then each reference point.
        let table = lines.drop { !$0.hasPrefix("N = ") }.dropFirst()
        let rows = table.filter { !$0.hasPrefix(" ") }.map { String($0.prefix(34)).trimmed() }
        XCTAssertEqual(rows.filter { !$0.hasPrefix("these - ") }, ["these weights", "random 11/12/13, same counts", "version 1, published before"], run.out)
    }
}
