import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// `merge` decisions over the default raw/'s version 1 (issue 50): a merge moves every
/// user's records of an s_id to its survivor, so a survivor that is not beyond doubt is an
/// error at its line (exit 2) and nothing is published or written. JR東日本's 新橋 (s_id
/// 1274) and 浜松町 (1318) stand where other operators' rows of the same name stand.
final class MergeDecisionTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var dist: String { folder + "/dist" }
    var build: String { folder + "/build" }

    override func setUp() async throws { folder = try await IdentityGuardTests.copyOfVersion1("merge") }

    override func tearDown() { Files.remove(folder) }
    override class func tearDown() { IdentityGuardTests.removePublished() }

    func pipeline() -> Pipeline { Pipeline(PublishSettings(raw: raw, build: build, dist: dist)) }

    func writeDecisions(_ rows: String...) throws {
        try ("s_id,decision,expect,note\n" + rows.map { $0 + "\n" }.joined()).write(toFile: raw + "/identity.csv", atomically: true, encoding: .utf8)
    }

    /// JR東日本 no longer serves 新橋 and 浜松町 in the upstream (their JR lines' rows gone):
    /// the other operators' rows of each stay; their hand weights go with them.
    func dropJRRows() throws {
        let register = raw + "/station_database/register.csv"
        let kept = try String(contentsOfFile: register, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !($0.hasPrefix("1130102,113") || $0.hasPrefix("1130227,113")) }
        try kept.joined(separator: "\n").write(toFile: register, atomically: true, encoding: .utf8)
        let weights = raw + "/weights.csv"
        let hand = try String(contentsOfFile: weights, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !($0.hasPrefix("1274,") || $0.hasPrefix("1318,")) }
        try hand.joined(separator: "\n").write(toFile: weights, atomically: true, encoding: .utf8)
    }

    /// The plan and the publish both refuse at these places of raw/identity.csv; dist/, raw/
    /// and build/ are left as they were.
    func assertRefused(at places: [String], file: StaticString = #filePath, line: UInt = #line) async throws {
        let distBefore = try folderDigests(dist), rawBefore = try folderDigests(raw)
        for run in ["plan", "publish"] {
            do {
                if run == "plan" { _ = try await pipeline().plan() } else { _ = try await pipeline().publish() }
                XCTFail("\(run): published or planned", file: file, line: line)
            } catch let e as StationError where e.kind == .badInput {
                XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, places, "\(run): \(e)", file: file, line: line)
            }
        }
        XCTAssertEqual(try folderDigests(dist), distBefore, "dist/ untouched", file: file, line: line)
        XCTAssertEqual(try folderDigests(raw), rawBefore, "raw/ untouched", file: file, line: line)
        XCTAssertFalse(Files.exists(build + "/staging.bin"), "build/ untouched", file: file, line: line)
    }

    /// A loop: 新橋 into 浜松町 and 浜松町 into 新橋 would swap every user's records between
    /// them. The source still gives both stations: neither may merge.
    func testALoopOfMergesIsAnError() async throws {
        try writeDecisions("1274,merge,station=浜松町,one station", "1318,merge,station=新橋,one station")
        try await assertRefused(at: ["raw/identity.csv:2: expect", "raw/identity.csv:3: expect"])
    }

    /// A chain: 新橋 into 浜松町, whose own s_id (東京モノレール's, 7452) a `new` retires:
    /// the survivor would not keep its s_id, and its users' records would be left behind.
    func testAChainOfDecisionsIsAnError() async throws {
        try dropJRRows()
        try writeDecisions("1274,merge,station=浜松町,one station", "7452,new,station=浜松町,a new station")
        try await assertRefused(at: ["raw/identity.csv:2: expect"])
    }

    /// A merge into itself: えちごトキめき's 上越妙高 (2038) named as its own survivor. It
    /// would come back under a new s_id, its users' records on a station no one sees.
    func testAMergeIntoItselfIsAnError() async throws {
        try writeDecisions("2038,merge,station=上越妙高;o_id=160,one row")
        try await assertRefused(at: ["raw/identity.csv:2: expect"])
    }

    /// 新橋 with JR東日本's rows gone: three operators' 新橋 stand at one place. Naming none
    /// of them is an error listing each; naming one with o_id= publishes the pair.
    func testAnAmbiguousSurvivorIsAnErrorUntilOneIsNamed() async throws {
        try dropJRRows()
        try writeDecisions("1274,merge,station=新橋,one station", "1318,merge,station=浜松町,one station")
        do {
            _ = try await pipeline().plan()
            XCTFail("an ambiguous survivor was picked")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/identity.csv:2: expect"])
            XCTAssertEqual(e.diagnostics.first?.message, "3 live stations within 5 km are station=新橋: 新橋 (o_id 21, s_id 6923), 新橋 (o_id 28, s_id 7090), "
                           + "新橋 (o_id 88, s_id 5310); name one, with o_id=")
        }
        try writeDecisions("1274,merge,station=新橋;o_id=28,one station", "1318,merge,station=浜松町,one station")
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .wouldPublish, "\(plan.report.guards)")
        let merged = (plan.report.identity?.entries ?? []).filter { $0.kind == .merged }.map { [$0.stationID, $0.successor ?? 0] }
        XCTAssertEqual(merged, [[1274, 7090], [1318, 7452]])
        let report = try await pipeline().publish()
        XCTAssertEqual(report.outcome, .published)
        let db = try SQLiteDatabase(path: dist + "/2/stations.sqlite", mode: .readOnly)
        defer { db.close() }
        XCTAssertEqual(try db.query("SELECT new_s_id, old_s_id FROM renumbered_stations ORDER BY old_s_id").map { $0.map { $0.intValue ?? 0 } }, [[7090, 1274], [7452, 1318]])
    }

    /// The docs' old example: JR東日本's 上越妙高 (9797) into えちごトキめき's (2038). The
    /// source still gives 9797's station (the Shinkansen's): a merge would publish it again
    /// under a new s_id, its users' records moved to another operator's station.
    func testAMergeOfAStationTheSourceStillGivesIsAnError() async throws {
        try writeDecisions("9797,merge,station=上越妙高;o_id=160,one row for both")
        try await assertRefused(at: ["raw/identity.csv:2: expect"])
    }

    /// A hand weight left on an s_id a merge retires stops the run at its line, naming the survivor.
    func testAHandWeightOnAMergedStationNamesItsSurvivor() async throws {
        try dropJRRows()
        try ((try String(contentsOfFile: raw + "/weights.csv", encoding: .utf8)) + "1274,3,新橋\n").write(toFile: raw + "/weights.csv", atomically: true, encoding: .utf8)
        try writeDecisions("1274,merge,station=新橋;o_id=28,one station", "1318,merge,station=浜松町,one station")
        let lines = try String(contentsOfFile: raw + "/weights.csv", encoding: .utf8).split(separator: "\n").count
        do {
            _ = try await pipeline().plan()
            XCTFail("a hand weight on a merged s_id")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/weights.csv:\(lines): s_id"])
            XCTAssertEqual(e.diagnostics.first?.message, "s_id 1274 was merged into s_id 7090 (新橋), where its records go: move its hand weight to that s_id, or remove the row")
        }
    }

    /// raw/identity.csv with a typo on line 2 (`sme`) and an s_id never published on line 3:
    /// both at once, not one run each.
    func testEveryDecisionErrorIsReportedAtOnce() async throws {
        try writeDecisions("1274,sme,station=新橋,typo", "99999999,new,station=新橋,never published")
        do {
            _ = try await pipeline().plan()
            XCTFail("bad decisions")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/identity.csv:2: decision", "raw/identity.csv:3: s_id"])
        }
    }
}
