import Foundation
import StationCore
import TestSupport
import XCTest

/// The maintainer's loop through make, and CI's through scripts/ci-plan: look
/// first (make plan changes nothing), then publish exactly what was shown.
final class ReviewMakeTests: MakeTestCase {
    func digests(_ f: MakeFixture) throws -> [String: String] {
        var all: [String: String] = [:]
        for (k, v) in try MakeFixture.snapshot(f.dist) { all["dist/" + k] = v }
        for (k, v) in try MakeFixture.snapshot(f.raw) { all["raw/" + k] = v }
        return all
    }

    func addFix(_ f: MakeFixture, _ rows: String...) throws {
        try ("action,table,match,field,value,expect,note\n" + rows.map { $0 + "\n" }.joined()).write(toFile: f.raw + "/fixes.csv", atomically: true, encoding: .utf8)
    }

    func testMakePlanTouchesNothingAndMakePublishesWhatItShowed() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        var before = try digests(f)
        var plan = try f.make("plan")
        XCTAssertEqual(plan.status, 0, plan.err)
        XCTAssertTrue(plan.out.contains("nothing would change"), plan.out)
        XCTAssertEqual(try digests(f), before, "make plan after make leaves every file of dist/ and raw/ as it was")

        try addFix(f, "move,stations,s_id=5,,35.610000 139.720000,station=駅5,re-survey")
        before = try digests(f)
        plan = try f.make("plan", "FORMAT=markdown")
        XCTAssertEqual(plan.status, 0, "make plan succeeds when a version would be published: \(plan.err)")
        XCTAssertTrue(plan.out.hasPrefix("### stationdb plan: version 2 would be published"), plan.out)
        XCTAssertTrue(plan.out.contains("s_id 5 駅5"), plan.out)
        XCTAssertEqual(try digests(f), before)
        let candidate = try MakeFixture.snapshot(f.build + "/staging.bin.candidate")

        let run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("ingest: up to date") && run.err.contains("priority: up to date"), run.err)
        XCTAssertTrue(run.err.contains("as it was prepared"), "the plan's version taken, not made again: \(run.err)")
        XCTAssertTrue(run.err.contains("look at this: moved s_id 5 駅5"), "a move over 1 km is said as it is published: \(run.err)")
        XCTAssertEqual(try MakeFixture.snapshot(f.dist + "/2"), candidate, "the planned bytes")

        // A guard that would refuse: make plan fails, naming stationdb's status, and still touches nothing.
        try addFix(f, (1...10).map { "disable,stations,s_id=\($0),,,," }.joined(separator: "\n"))
        before = try digests(f)
        plan = try f.make("plan")
        XCTAssertEqual(plan.status, 2)
        XCTAssertTrue(plan.lastMessage.contains("exit 4 from stationdb"), plan.lastMessage)
        XCTAssertEqual(try digests(f), before)
    }

    /// The stationdb binary's own statuses: 0 nothing would change, 1 a version would be published.
    func testPlanExitStatuses() throws {
        let f = try fixture()
        XCTAssertEqual(try f.stationdb("plan").status, 1, "nothing published yet: version 1 would be")
        XCTAssertEqual(try f.make().status, 0)
        XCTAssertEqual(try f.stationdb("plan").status, 0)
        try "not,a,fix\n".write(toFile: f.raw + "/fixes.csv", atomically: true, encoding: .utf8)
        XCTAssertEqual(try f.stationdb("plan").status, 2)
    }

    func testCIPlanAgainstTheServedDist() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        let server = try StaticServer(root: f.dist)
        try addFix(f, "set,stations,s_id=7,station,新駅7,station=駅7,renamed")

        // What make plan says against the served dist is what it says against the local one.
        let local = try f.make("plan", "FORMAT=json"), remote = try f.make("plan", "FORMAT=json", "AGAINST=\(server.baseURL)")
        XCTAssertEqual(local.status, 0, local.err)
        XCTAssertEqual(remote.status, 0, remote.err)
        func entries(_ out: String) throws -> [[String: String]] {
            let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
            return (json?["entries"] as? [[String: Any]] ?? []).map { $0.mapValues { "\($0)" } }
        }
        XCTAssertEqual(try entries(remote.out), try entries(local.out))
        XCTAssertFalse(try entries(local.out).isEmpty)

        let before = try digests(f)
        let report = f.folder + "/plan.md"
        var ci = try ciPlan(f, server.baseURL, report)
        XCTAssertEqual(ci.status, 0, ci.err)
        let markdown = try String(contentsOfFile: report, encoding: .utf8)
        XCTAssertTrue(markdown.contains("version 2 would be published (against version 1 of \(server.baseURL))"), markdown)
        XCTAssertTrue(markdown.contains("renamed"), markdown)
        XCTAssertEqual(try digests(f), before)

        // Fails on a guard (4) and on an unreachable dist (3); never on a change as such.
        try addFix(f, (1...10).map { "disable,stations,s_id=\($0),,,," }.joined(separator: "\n"))
        ci = try ciPlan(f, server.baseURL, report)
        XCTAssertEqual(ci.status, 4, ci.err)
        ci = try ciPlan(f, "http://127.0.0.1:9", report)
        XCTAssertEqual(ci.status, 3, ci.err)
    }

    func ciPlan(_ f: MakeFixture, _ url: String, _ report: String) throws -> MakeFixture.Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: MakeFixture.root + "/scripts/ci-plan")
        p.arguments = [url, report]
        var environment = ProcessInfo.processInfo.environment
        environment["STATIONDB"] = try MakeFixture.stationdb()
        environment["RAW"] = f.raw
        environment["BUILD"] = f.build + "/ci"
        p.environment = environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        return MakeFixture.finish((p, out, err))
    }
}
