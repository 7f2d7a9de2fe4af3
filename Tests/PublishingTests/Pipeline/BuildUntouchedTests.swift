import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// A run that stops on bad input leaves build/ as it was (docs/maintaining.md, "When make
/// fails"): a hand weight on no station stopped the lint after build/staging.bin had been
/// replaced (issue 50).
final class BuildUntouchedTests: XCTestCase {
    override class func tearDown() { IdentityGuardTests.removePublished() }

    func testAHandWeightOnNoStationLeavesBuildUntouched() async throws {
        let folder = try await IdentityGuardTests.copyOfVersion1("build-untouched")
        defer { Files.remove(folder) }
        let raw = folder + "/raw", build = folder + "/build"
        let pipeline = Pipeline(PublishSettings(raw: raw, build: build, dist: folder + "/dist"))
        let first = try await pipeline.publish()
        XCTAssertEqual(first.outcome, .unchanged)
        let before = try folderDigests(build)
        XCTAssertNotNil(before["staging.bin"])

        // A change ingest must read, and a hand weight on an s_id no version gave.
        let stations = raw + "/station_database/station.csv"
        try (try String(contentsOfFile: stations, encoding: .utf8)).replacingOccurrences(of: "\n1110101,1,函館,函館,", with: "\n1110101,1,函館港,函館港,")
            .write(toFile: stations, atomically: true, encoding: .utf8)
        let weights = try String(contentsOfFile: raw + "/weights.csv", encoding: .utf8)
        try (weights + "99999999,3,no such station\n").write(toFile: raw + "/weights.csv", atomically: true, encoding: .utf8)
        let line = weights.split(separator: "\n").count + 1
        for run in ["plan", "publish"] {
            do {
                if run == "plan" { _ = try await pipeline.plan() } else { _ = try await pipeline.publish() }
                XCTFail("\(run): a hand weight on no station")
            } catch let e as StationError where e.kind == .badInput {
                XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/weights.csv:\(line): s_id"], run)
            }
            XCTAssertEqual(try folderDigests(build), before, "\(run): build/ as it was")
        }
    }
}
