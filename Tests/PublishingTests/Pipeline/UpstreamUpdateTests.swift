import BuildDB
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// An upstream update as a maintainer meets it: raw/ at the upstream's v20260227 published
/// as version 1, then raw/'s own release (v20260529, which closes 仁山, 二股 and the 留萌本線)
/// with three fixes of the maintainer's: a station disabled, a line and an operator renamed.
/// The reports name every changed line and operator, give each change its cause, group the
/// machine weights that follow, and name the release.
final class UpstreamUpdateTests: XCTestCase {
    struct Update {
        var folder: String
        var raw: String { folder + "/raw" }
        var dist: String { folder + "/dist" }
        var pipeline: Pipeline { Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist)) }
        var plan: Plan
        /// The plan's markdown, and version 2's summary.txt and latest.json once published.
        var markdown: String
        var summary: [String]
        var latest: [String: Any]
        /// The preview the plan wrote, as Chromium shows it.
        var dom: String
        /// The warnings the plan told.
        var warnings: [Warning]
    }

    nonisolated(unsafe) static var made: Update?

    override class func tearDown() {
        if let made { Files.remove(made.folder) }
        made = nil
    }

    static let fixes = """
        action,table,match,field,value,expect,note
        disable,stations,s_id=5302,,,station=上野,closed for works
        set,lines,l_id=451,line,アルピコ交通上高地線(新),line=アルピコ交通上高地線,renamed
        set,operators,o_id=65,operator,アルピコ交通株式会社,operator=アルピコ交通,the formal name

        """

    func update() async throws -> Update {
        if let made = Self.made { return made }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("update-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: RepositoryData.raw, toPath: folder + "/raw")
        try FileManager.default.removeItem(atPath: folder + "/raw/station_database")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabaseEarlier, toPath: folder + "/raw/station_database")
        let pipeline = Pipeline(PublishSettings(raw: folder + "/raw", build: folder + "/build", dist: folder + "/dist"))
        let first = try await pipeline.publish()
        XCTAssertEqual(first.version, 1)

        try FileManager.default.removeItem(atPath: folder + "/raw/station_database")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase, toPath: folder + "/raw/station_database")
        // This update's fixes, then the default raw/'s own (the operators left without a line).
        let kept = try String(contentsOfFile: folder + "/raw/fixes.csv", encoding: .utf8).split(separator: "\n").dropFirst().map { $0 + "\n" }.joined()
        try Files.write(Array((Self.fixes + kept).utf8), to: folder + "/raw/fixes.csv")
        let (plan, events) = try await Events.collect { try await pipeline.plan() }
        let preview = try XCTUnwrap(plan.preview)
        let scratch = folder + "/browser"
        try Files.createFolder(scratch)
        let dom = try Chromium.doms(of: ["file://\(preview)#lat=43.9&lng=141.8&span=0.8&pins=100"], scratch: scratch)[0]
        let markdown = try plan.report.render(.markdown)
        let second = try await pipeline.publish()
        XCTAssertEqual(second.version, 2)
        let summary = String(decoding: try Files.read(folder + "/dist/2/summary.txt"), as: UTF8.self)
        let latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/dist/latest.json"))) as! [String: Any]
        let made = Update(folder: folder, plan: plan, markdown: markdown, summary: summary.split(separator: "\n", omittingEmptySubsequences: false).map(String.init),
                          latest: latest, dom: dom, warnings: events.compactMap { $0 as? Warning })
        Self.made = made
        return made
    }

    /// The lines of summary.txt under `heading` ("lines:"), up to the next blank line.
    func section(_ lines: [String], _ heading: String) -> [String] {
        guard let start = lines.firstIndex(of: heading) else { return [] }
        return Array(lines[(start + 1)...].prefix { !$0.isEmpty })
    }

    /// The change buttons of the preview's list: (table, id, kind) -> the button.
    func changeButtons(_ dom: String) -> [String: Chromium.Element] {
        var out: [String: Chromium.Element] = [:]
        for b in Chromium.elements("button", in: dom) {
            guard let table = b.attributes["data-table"], let id = b.attributes["data-id"], let kind = b.attributes["data-kind"] else { continue }
            out["\(table) \(id) \(kind)"] = b
        }
        return out
    }

    static let upstream = "upstream v20260227 -> v20260529"

    /// "lines: 1 disabled" named no line: the preview, the markdown plan and summary.txt name
    /// every changed line and operator, as the text plan did.
    func testEveryChangedLineAndOperatorIsNamedInThePreviewThePlanAndTheSummary() async throws {
        let u = try await update()
        let lines = section(u.summary, "lines:"), operators = section(u.summary, "operators:")
        XCTAssertEqual(lines, [
            "  renamed   l_id 451 アルピコ交通上高地線(新) (アルピコ交通株式会社): アルピコ交通上高地線 -> アルピコ交通上高地線(新) [raw/fixes.csv:3]",
            "  disabled  l_id 24 JR留萌本線 (JR北海道) [\(Self.upstream)]",
        ], u.summary.joined(separator: "\n"))
        XCTAssertEqual(operators, ["  renamed   o_id 65 アルピコ交通株式会社: アルピコ交通 -> アルピコ交通株式会社 [raw/fixes.csv:4]"])

        XCTAssertTrue(u.markdown.split(separator: "\n").contains("| disabled | l_id 24 JR留萌本線 (JR北海道) | \(Self.upstream) |"), u.markdown)
        XCTAssertTrue(u.markdown.split(separator: "\n").contains("| renamed | o_id 65 アルピコ交通株式会社: アルピコ交通 -> アルピコ交通株式会社 | raw/fixes.csv:4 |"),
                      u.markdown)

        let buttons = changeButtons(u.dom)
        XCTAssertNil(Chromium.bodyAttributes(u.dom)["data-error"])
        let closedLine = try XCTUnwrap(buttons["lines 24 disabled"], "the page lists the 留萌本線: \(buttons.keys.sorted())")
        XCTAssertTrue(closedLine.text.hasPrefix("JR留萌本線 (JR北海道) l_id 24"), closedLine.text)
        XCTAssertEqual(closedLine.attributes["data-cause"], Self.upstream)
        let renamedLine = try XCTUnwrap(buttons["lines 451 renamed"])
        XCTAssertTrue(renamedLine.text.hasPrefix("アルピコ交通上高地線(新) (アルピコ交通株式会社) l_id 451"), renamedLine.text)
        let renamedOperator = try XCTUnwrap(buttons["operators 65 renamed"])
        XCTAssertTrue(renamedOperator.text.hasPrefix("アルピコ交通株式会社 o_id 65"), renamedOperator.text)
        XCTAssertEqual(renamedOperator.attributes["data-cause"], "raw/fixes.csv:4")
    }

    /// A station the upstream closed and one a fix disabled read the same, and the stations
    /// whose machine weights followed a closure each had a line of their own. Every change
    /// says its cause, and the weights that follow are one group.
    func testEachChangeSaysItsCauseAndTheWeightsThatFollowAreGrouped() async throws {
        let u = try await update()
        let entries = try XCTUnwrap(u.plan.report.entries)
        XCTAssertFalse(entries.isEmpty)
        XCTAssertEqual(entries.filter { $0.cause == nil }.map(ChangeList.describe), [], "every change has its cause")
        func cause(_ table: String, _ id: Int, _ kind: ChangeList.Kind) -> String? {
            entries.first { $0.table == table && $0.id == id && $0.kind == kind }?.cause
        }
        XCTAssertEqual(cause("stations", 7, .disabled), Self.upstream, "仁山, closed upstream")
        XCTAssertEqual(cause("stations", 5302, .disabled), "raw/fixes.csv:2", "上野, disabled by a fix")
        XCTAssertEqual(cause("lines", 451, .renamed), "raw/fixes.csv:3")

        let weights = entries.filter { $0.kind == .weight }
        XCTAssertFalse(weights.isEmpty, "closures draw machine weights again")
        XCTAssertTrue(weights.allSatisfy { $0.follows == true && $0.cause == ChangeCauses.machineWeights }, "\(weights)")
        // One line for them all, in the text plan and in summary.txt.
        let text = try u.plan.report.render(.text).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let steps = Dictionary(grouping: weights) { "\($0.old ?? "") -> \($0.new ?? "")" }.map { "\($0.key): \($0.value.count)" }.sorted()
        for listing in [section(text, "stations:"), section(u.summary, "stations:")] {
            XCTAssertEqual(listing.filter { $0.hasPrefix("  weight ") },
                           ["  weight    \(weights.count) machine weights follow the changes above (\(steps.joined(separator: ", "))): "
                            + weights.map { "s_id \($0.id) \($0.name)" }.joined(separator: ", ")], listing.joined(separator: "\n"))
            XCTAssertTrue(listing.contains("  disabled  s_id 5302 上野 (東京メトロ) [raw/fixes.csv:2]"), listing.joined(separator: "\n"))
            XCTAssertTrue(listing.contains("  disabled  s_id 7 仁山 (JR北海道) [\(Self.upstream)]"), listing.joined(separator: "\n"))
        }
        // In the preview, the fix's station says its line of fixes.csv, and the weights that follow are a group of their own.
        let buttons = changeButtons(u.dom)
        XCTAssertEqual(buttons["stations 5302 disabled"]?.attributes["data-cause"], "raw/fixes.csv:2")
        XCTAssertEqual(buttons["stations 7 disabled"]?.attributes["data-cause"], Self.upstream)
        let following = Chromium.elements("details", in: u.dom).filter { $0.text.hasPrefix("Machine weights that follow the changes above (\(weights.count))") }
        XCTAssertEqual(following.count, 1, u.dom)
        for w in weights { XCTAssertTrue(following.first?.text.contains(w.name) ?? false, w.name) }
    }

    /// The release was never named. The plan, summary.txt and latest.json name it.
    func testTheUpstreamReleaseIsNamedInThePlanTheSummaryAndLatestJSON() async throws {
        let u = try await update()
        XCTAssertEqual(u.plan.report.releases, [SourceRelease(source: "station_database", previous: "v20260227", current: "v20260529")])
        XCTAssertEqual(try u.plan.report.render(.text).split(separator: "\n")[1], "upstream: station_database v20260227 -> v20260529")
        XCTAssertEqual(u.summary[1], "upstream: station_database v20260227 -> v20260529")
        XCTAssertEqual(u.latest["releases"] as? [String: String], ["station_database": "v20260529"])
        let manifest = try PublishedBundle.read(path: u.dist + "/2/manifest.json")
        XCTAssertEqual(manifest.releases, ["station_database": "v20260529"])
        XCTAssertEqual(try PublishedBundle.read(path: u.dist + "/1/manifest.json").releases, ["station_database": "v20260227"])
    }

    /// raw/reviewed.csv reviews the four lines whose company the upstream does not list: the
    /// plan counts them no more, and no longer repeats them as warnings either. What is left
    /// is this update's own: the hand weight of 上野, which the fix disabled.
    func testReviewedFindingsAreNeitherCountedNorRepeated() async throws {
        let u = try await update()
        XCTAssertEqual(u.plan.report.lintWarnings, 1)
        XCTAssertEqual(u.warnings.map(\.diagnostic.message), ["station 5302 is disabled; its hand weight 10 is kept but not shown"])
    }

    /// A plan that finds nothing to publish said nothing of it on the page: the page says so.
    func testThePreviewOfAPlanThatChangesNothingSaysSo() async throws {
        let u = try await update()
        let plan = try await u.pipeline.plan()
        XCTAssertEqual(plan.report.outcome, .unchanged)
        let scratch = u.folder + "/browser-unchanged"
        try Files.createFolder(scratch)
        let dom = try Chromium.doms(of: ["file://\(try XCTUnwrap(plan.preview))"], scratch: scratch)[0]
        XCTAssertNil(Chromium.bodyAttributes(dom)["data-error"])
        XCTAssertEqual(Chromium.elements("p", in: dom).filter { $0.id == "nothing-changed" }.map(\.text),
                       ["Nothing changed: the bundle equals version 2 of \(u.dist); the next make publishes nothing."])
        XCTAssertEqual(Chromium.bodyAttributes(dom)["data-changes"], "0")
    }
}
