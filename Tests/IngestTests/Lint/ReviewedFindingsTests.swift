import Foundation
import Ingest
import StationCore
import TestSupport
import XCTest

/// Findings a maintainer has looked at and found right have a place in raw/reviewed.csv,
/// with what lint said and why it stands: lint lists them apart and counts them no more,
/// until a change makes them read otherwise. The default raw/'s three border stations
/// (気仙沼, 古河, 甲浦) and four lines whose company the upstream does not list yet never
/// let lint reach zero.
final class ReviewedFindingsTests: XCTestCase {
    var raw = ""

    override func setUpWithError() throws {
        raw = FileManager.default.temporaryDirectory.appendingPathComponent("reviewed-\(UUID().uuidString)").path + "/raw"
        try FileManager.default.createDirectory(atPath: parentFolder(of: raw), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: RepositoryData.raw, toPath: raw)
    }

    override func tearDown() { Files.remove(parentFolder(of: raw)) }

    func lint() async throws -> LintReport {
        try await Lint.run(IngestOptions(rawFolder: raw, rawLabel: "raw"), handWeights: raw + "/weights.csv")
    }

    /// The default raw/'s fixes and these rows after them.
    func fixes(_ rows: String) throws {
        try Files.write(try Files.read(raw + "/fixes.csv") + Array(rows.utf8), to: raw + "/fixes.csv")
    }

    func testTheDefaultRawsFindingsAreReviewedAndLintReachesZero() async throws {
        let report = try await lint()
        XCTAssertEqual(report.count, 0, report.findings.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(report.reviewed.filter { $0.finding.rule == "pref" }.map(\.finding.stationID), [674, 1615, 9125], "気仙沼, 古河, 甲浦")
        XCTAssertEqual(report.reviewed.filter { $0.finding.rule == "code" }.count, 4)
        XCTAssertEqual(report.reviewed.first { $0.finding.stationID == 1615 }?.review, "raw/reviewed.csv:7")
        XCTAssertTrue(report.reviewed.allSatisfy { !$0.note.isEmpty })
        XCTAssertEqual(report.summary, "0 warnings; 7 reviewed (code 4, pref 3)")
    }

    /// `make RAW=raw/` (as tab completion writes it) counted the reviewed findings of files
    /// (raw//station_database/line.csv) as open: raw/ is a path, compared as one.
    func testARawFolderGivenWithATrailingSlashReviewsTheSame() async throws {
        let report = try await Lint.run(IngestOptions(rawFolder: raw + "/", rawLabel: "raw/"), handWeights: raw + "/weights.csv")
        XCTAssertEqual(report.count, 0, report.findings.map(\.description).joined(separator: "\n"))
        XCTAssertEqual(report.reviewed.count, 7)
        XCTAssertEqual(IngestOptions(rawFolder: "raw/").rawLabel, "raw")
    }

    /// 80,000 rows that find nothing took 14 s, 160,000 took 52 s: each looked through every
    /// open finding for one to reopen. Each looks one up: 80,000 rows take well under a second.
    func testRowsAreAppliedInLinearTime() throws {
        let findings = (1...2_000).map { LintFinding(.pref, SourceLocation(file: "raw/stations.csv", line: $0 + 1, field: "pref"), "finding \($0)", station: $0) }
        let text = "rule,subject,expect,note\n" + (1...80_000).map { "pref,s_id \(100_000 + $0),reviewed \($0),why\n" }.joined() + "pref,s_id 7,as it read before,why\n"
        try Files.write(Array(text.utf8), to: raw + "/reviewed.csv")
        let rows = try LintReviews.read(path: raw + "/reviewed.csv", label: "raw/reviewed.csv")
        // Processor time, which other work on the machine does not stretch as it does the wall clock's.
        let started = cpuSecondsOfThisThread()
        let (open, reviewed) = LintReviews.apply(rows, to: findings, rawLabel: "raw")
        XCTAssertLessThan(cpuSecondsOfThisThread() - started, 5, "quadratic in the rows")
        XCTAssertEqual(reviewed.count, 0)
        XCTAssertEqual(open.count, 2_000 + 80_000)
        XCTAssertEqual(open.filter { $0.reopened != nil }.map(\.stationID), [7])
    }

    /// 古河 moved 500 m: its finding reads otherwise, and is open again, naming its review.
    func testAChangeThatMakesAFindingReadOtherwiseReopensIt() async throws {
        try fixes("set,stations,s_id=1615,lat,36.198875,station=古河,moved north\n")
        let report = try await lint()
        XCTAssertEqual(report.count, 1)
        let reopened = try XCTUnwrap(report.findings.first)
        XCTAssertEqual(reopened.rule, "pref")
        XCTAssertEqual(reopened.stationID, 1615)
        XCTAssertEqual(reopened.reopened, "raw/reviewed.csv:7")
        XCTAssertEqual(report.reviewed.count, 6)
    }

    /// Without raw/fixes.csv's rows, the four operators the upstream keeps live with no line
    /// of their own left (大阪市交通局's lines passed to Osaka Metro) are each named: the apps
    /// would list them with nothing under them. The operator is not disabled behind the
    /// maintainer's back.
    func testAnOperatorLeftWithoutALineIsNamed() async throws {
        try Files.write(Array("action,table,match,field,value,expect,note\n".utf8), to: raw + "/fixes.csv")
        let report = try await lint()
        let lineless = report.findings.filter { $0.rule == LintRule.emptyOperator.rawValue }
        // In the order lint lists findings: by place, as text.
        XCTAssertEqual(lineless.map(\.location), [112, 117, 134, 71].map { SourceLocation(file: "raw", field: "o_id \($0)") })
        XCTAssertEqual(lineless.first { $0.location.field == "o_id 112" }?.message,
                       "大阪市交通局: a live operator with no live line (its last line closed, or passed to another operator): the apps "
                       + "would list it with nothing under it; disable it in fixes.csv (disable,operators,o_id=112,,,,why)")
        XCTAssertEqual(report.count, 4)
    }

    /// 古河 given Saitama's code: there is nothing to find; the row that reviewed it says so.
    func testARowThatFindsNothingAnyMoreIsAFindingOfItsOwn() async throws {
        try fixes("set,stations,s_id=1615,pref,11,station=古河,a test\n")
        let report = try await lint()
        XCTAssertEqual(report.findings.map(\.location), [SourceLocation(file: "raw/reviewed.csv", line: 7, field: "expect")])
        XCTAssertEqual(report.findings.map(\.rule), ["reviewed"])
        XCTAssertEqual(report.findings.first?.message, "lint no longer finds pref for s_id 1615 as this row expects it (the value was mended, "
                       + "or the finding reads otherwise): look again, then mend the row or remove it")
    }

    /// A review needs its rule, subject, the finding and a note: each missing one is an error at its line.
    func testARowWithoutANoteOrWithAnUnknownRuleIsAnErrorAtItsLine() async throws {
        try Files.write(Array("rule,subject,expect,note\npref,s_id 1615,station 1615 古河 has pref 8,\npref-x,s_id 1,something,why\n".utf8),
                        to: raw + "/reviewed.csv")
        do {
            _ = try await lint()
            XCTFail("expected bad input")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.map(\.location), [SourceLocation(file: "raw/reviewed.csv", line: 2, field: "note"),
                                                               SourceLocation(file: "raw/reviewed.csv", line: 3, field: "rule")])
        }
    }

    /// `--format csv`'s rows, pasted with a note, review exactly those findings.
    func testTheRowsLintPrintsReviewWhatTheyName() async throws {
        unlink(raw + "/reviewed.csv")
        let open = try await lint()
        XCTAssertEqual(open.count, 7)
        let rows = open.findings.map { LintReviews.row(for: $0, rawLabel: "raw").dropLast() + "looked at\n" }.joined()
        try Files.write(Array(("rule,subject,expect,note\n" + rows).utf8), to: raw + "/reviewed.csv")
        let reviewed = try await lint()
        XCTAssertEqual(reviewed.count, 0)
        XCTAssertEqual(reviewed.reviewed.map(\.finding), open.findings)
    }
}
