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

    /// `priority suggest --retier` prints the whole file, the same bytes from its own output;
    /// report and map take it as --proposal; a --keep of an s_id with no hand weight is bad input.
    func testTheRetierPrintsAFileTheReportAndTheMapCompare() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retier-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        try SmallNetwork.write(to: folder + "/raw")
        try Files.write(Array(("s_id,weight,note\n" + (1...40).map { "\($0),\($0 <= 20 ? 1 : 3),pick \($0)\n" }.joined()).utf8), to: folder + "/raw/weights.csv")
        _ = try await Pipeline(PublishSettings(raw: folder + "/raw", build: folder + "/build", dist: folder + "/dist")).plan()
        func stationdb(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            let run = try runWithTimeout(try BuiltTools.stationdb(), ["priority"] + arguments + ["--staging", "build/staging.bin"], in: folder, timeout: 120)
            return (run.status, run.out, run.err)
        }
        let first = try stationdb(["suggest", "--retier"])
        XCTAssertEqual(first.status, 0, first.err)
        let network = try StagingFile.read(from: folder + "/build/staging.bin").network
        XCTAssertEqual(try HandWeights.parse(first.out, label: "out", network: network).weights.map(\.stationID), Array(1...40))
        try Files.write(Array(first.out.utf8), to: folder + "/build/retiered.csv")
        let second = try stationdb(["suggest", "--retier", "--hand", "build/retiered.csv"])
        XCTAssertEqual(second.status, 0, second.err)
        XCTAssertEqual(second.out, first.out, "a second run over its own output changes nothing")
        XCTAssertEqual(try stationdb(["suggest", "--retier", "--keep", "99"]).status, ExitStatus.badInput.rawValue)

        let report = try stationdb(["report", "--proposal", "build/retiered.csv", "--viewports", "50"])
        XCTAssertEqual(report.status, 0, report.err)
        XCTAssertEqual(report.out.split(separator: "\n").prefix(3).map { String($0.prefix(2)) }, ["A:", "B:", "C:"], report.out)
        let map = try stationdb(["map", "--proposal", "build/retiered.csv", "--out", "build/retier.svg"])
        XCTAssertEqual(map.status, 0, map.err)
        XCTAssertTrue(Files.exists(folder + "/build/retier.svg"))
    }
}
