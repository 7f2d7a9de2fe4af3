import Foundation
import Lint
import StationIO
import TestSupport
import XCTest

/// What the commands say of themselves agrees with what they do.
final class HelpTests: XCTestCase {
    func stationdb(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try BuiltTools.stationdb())
        p.arguments = arguments
        p.currentDirectoryURL = FileManager.default.temporaryDirectory
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self))
    }

    /// lint --help listed 8 rules where lint reports 10.
    func testLintsHelpListsEveryRule() throws {
        let help = try stationdb("lint", "--help").out
        let listed = help.split(separator: "\n").compactMap { line in LintRule.allCases.first { line.hasPrefix("  \($0.rawValue) ") } }
        XCTAssertEqual(listed, LintRule.allCases, help)
    }

    /// plan offered --force and --as-version as "Publish even when..." and "Publish as version N".
    func testPlansHelpSpeaksOfPlanning() throws {
        let help = try stationdb("plan", "--help").out
        for option in ["--force", "--as-version <N>"] {
            let line = try XCTUnwrap(help.split(separator: "\n").first { $0.hasPrefix("  \(option) ") }, help)
            XCTAssertTrue(line.dropFirst(2 + option.count).trimmed().hasPrefix("Plan"), String(line))
        }
    }

    /// `preview build/staging.bin.candidate`, as README shows it, failed right after `make` with
    /// no word of `make plan`, which prepares it.
    func testPreviewOfAMissingCandidateSaysToPlanFirst() throws {
        let run = try stationdb("preview", "no-build-\(UUID().uuidString)/staging.bin.candidate", "--out", "/dev/null/x.html")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("make plan"), run.err)
    }
}
