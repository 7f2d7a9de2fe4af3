import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// What the maintainer's loop tells, as events (the command says each as a sentence), and
/// its whole reports against golden files: plan's text and markdown, a version's summary.txt.
final class EventTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var dist: String { folder + "/dist" }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    var pipeline: Pipeline { Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist)) }

    /// The publish's events of the maintainer's loop, and its report.
    func publish() async throws -> (report: RunReport, events: [PublishEvent]) {
        let (report, events) = try await Events.collect { try await pipeline.publish() }
        return (report, events.compactMap { $0 as? PublishEvent })
    }

    func stages(_ events: [PublishEvent]) -> [String: String?] {
        var out: [String: String?] = [:]
        for case .stage(let name, let reason) in events { out[name] = reason }
        return out
    }

    func testEachStageRunsOnlyWhenWhatItReadsChanged() async throws {
        var (report, events) = try await publish()
        XCTAssertEqual(report.outcome, .published)
        XCTAssertEqual(stages(events).mapValues { $0 != nil }, ["ingest": true, "priority": true, "build": true])
        XCTAssertEqual(events.last, .publishedInto(version: 1, dist: dist))

        (report, events) = try await publish()
        XCTAssertEqual(report.outcome, .unchanged)
        XCTAssertEqual(stages(events), ["ingest": nil, "priority": nil, "build": nil])
        XCTAssertEqual(events.last, .nothingChanged(dist: dist, version: 1))

        // A deleted fixes.csv leaves no newer file behind, and is still a change.
        try Files.write(Array("action,table,match,field,value,note\nset,stations,s_id=3,yomi,えきさん,reading\n".utf8), to: raw + "/fixes.csv")
        _ = try await publish()
        unlink(raw + "/fixes.csv")
        (report, events) = try await publish()
        XCTAssertEqual(stages(events)["ingest"], "fixes removed")
        XCTAssertEqual(report.version, 3)

        try Files.write(Array("s_id,weight,note\n5,1,junction\n".utf8), to: raw + "/weights.csv")
        (report, events) = try await publish()
        XCTAssertEqual(stages(events), ["ingest": "hand weights added", "priority": "hand weights added", "build": "weights changed"])
        XCTAssertEqual(report.version, 4)

        // Deleted, the hand weights are a change too, and their loss is refused like a guard.
        unlink(raw + "/weights.csv")
        (report, events) = try await publish()
        XCTAssertEqual(stages(events)["priority"], "hand weights removed")
        XCTAssertEqual(report.outcome, .refused)
        guard case .refused(let reasons, dist, false)? = events.last else { return XCTFail("\(events)") }
        XCTAssertEqual(reasons.count, 1)
        XCTAssertTrue(reasons[0].hasPrefix("1 of the 1 hand weights (stations with weight 1..10) of version 4 are gone"), reasons[0])
    }

    func testAPlanPreparedBeforeIsTakenOrMadeAgainAndSaysWhich() async throws {
        _ = try await publish()
        try Files.write(Array("action,table,match,field,value,expect,note\nset,stations,s_id=60,yomi,えきろくじゅう,,\n".utf8), to: raw + "/fixes.csv")
        _ = try await pipeline.plan()
        var (_, events) = try await publish()
        XCTAssertTrue(events.contains(.candidateTaken(version: 2, folder: folder + "/build/staging.bin.candidate")), "\(events)")

        try Files.write(Array("action,table,match,field,value,expect,note\nset,stations,s_id=61,yomi,えきろくじゅういち,,\n".utf8), to: raw + "/fixes.csv")
        _ = try await pipeline.plan()
        try Files.write(Array("s_id,weight,note\n5,1,junction\n".utf8), to: raw + "/weights.csv")
        (_, events) = try await publish()
        XCTAssertTrue(events.contains(.candidateRedone(folder: folder + "/build/staging.bin.candidate", changes: ["weights changed"])), "\(events)")
    }

    /// Whole reports, byte for byte: a plan of a move over a kilometre, a rename, a disabled
    /// station and a reading, in text and markdown, and the summary.txt of the version it
    /// publishes. The folders differ from run to run and read as <folder> here.
    func testPlanReportsAndSummaryAreTheGoldenFiles() async throws {
        _ = try await publish()
        try Files.write(Array("""
            action,table,match,field,value,expect,note
            move,stations,s_id=5,,35.630000 139.740000,station=駅5,re-survey
            set,stations,s_id=7,station,新駅7,station=駅7,renamed
            disable,stations,s_id=60,,,station=駅60,closed
            set,stations,s_id=61,yomi,えきろくじゅういち,station=駅61,reading

            """.utf8), to: raw + "/fixes.csv")
        let plan = try await pipeline.plan()
        func golden(_ name: String, _ text: String) throws {
            try assertGolden(text.replacingOccurrences(of: folder, with: "<folder>"), at: "Tests/PublishingTests/Golden/" + name)
        }
        try golden("plan.txt", try plan.report.render(.text, preview: plan.preview))
        try golden("plan.md", try plan.report.render(.markdown, preview: plan.preview))
        _ = try await publish()
        try golden("summary.txt", String(decoding: try Files.read(dist + "/2/summary.txt"), as: UTF8.self))
    }
}
