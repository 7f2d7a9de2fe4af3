import Foundation
import Ingest
import Publishing
import StationCore
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

    /// ArgumentParser breaks a line of 80 columns or more at its last space: `lint --help` left
    /// "three" alone at column 0, `ingest --help` had "fixes giving one" on a short line of its
    /// own, and `fetch --help` put a URL on a line of its own after an empty indented one.
    /// Every line of every command's help, and of lint's list of rules, is printed as written.
    func testEveryLineOfEveryHelpIsPrintedAsWritten() throws {
        // Every command's help but the bench's hidden `synth read`, and that one's.
        let printed = Set((try stationdb("reference").out + (try stationdb("synth", "read", "--help").out)).split(separator: "\n").map(String.init))
        let folder = RepositoryData.root + "/Sources/stationdb/Help"
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".txt") }.sorted()
        XCTAssertGreaterThan(files.count, 10)
        for name in files {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8).replacing("{exit statuses}", with: ExitStatus.paragraph)
                .replacing("{lint rules}", with: LintRule.help)
            for line in text.split(separator: "\n") where !printed.contains(String(line)) {
                XCTFail("\(name): not printed as written: \(line)")
            }
        }
        let lint = Set(try stationdb("lint", "--help").out.split(separator: "\n").map(String.init))
        for line in LintRule.help.split(separator: "\n") where !lint.contains(String(line)) {
            XCTFail("lint --help: not printed as written: \(line)")
        }
    }

    /// `stationdb priority report` with no options printed stationdb's usage, not its own.
    func testAPriorityCommandGivenNoStationsSaysItsOwnUsage() throws {
        for command in [["priority", "report"], ["priority", "map"]] {
            let run = try stationdb(command[0], command[1])
            XCTAssertEqual(run.status, 2, run.err)
            let lines = run.err.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines.first, "Error: give --bundle PATH, or --staging PATH --weights PATH", run.err)
            // Its own usage: with many options, ArgumentParser writes them as <options>.
            let usage = "Usage: stationdb \(command.joined(separator: " ")) "
            XCTAssertTrue(lines.contains { line in ["[--bundle <bundle>]", "<options>"].contains { line.hasPrefix(usage + $0) } }, run.err)
            XCTAssertTrue(lines.contains("  See 'stationdb \(command.joined(separator: " ")) --help' for more information."), run.err)
        }
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

/// `stationdb explain` on the default raw/: an s_id's pair as a waterfall whose total is the
/// sum of its terms, as json too; an s_id never published is bad input (exit 2), named.
final class ExplainCommandTests: XCTestCase {
    func stationdb(_ arguments: String...) throws -> (status: Int32, out: String, err: String) {
        let run = try runWithTimeout(try BuiltTools.stationdb(), arguments, in: FileManager.default.temporaryDirectory.path, timeout: 120)
        return (run.status, run.out, run.err)
    }

    func testAnSIDsEvidenceAndAnUnknownOne() throws {
        let json = try stationdb("explain", "--raw", RepositoryData.raw, "--format", "json", "1274")
        XCTAssertEqual(json.status, 0, json.err)
        let explained = try JSONDecoder().decode([IdentityExplanation].self, from: Data(json.out.utf8))
        let pair = try XCTUnwrap(explained.first?.pairs.first)
        XCTAssertEqual(explained.first?.outcome, "kept")
        XCTAssertEqual(pair.total, pair.weight.terms.reduce(0) { $0 + $1.weight }, accuracy: 1e-9)
        XCTAssertGreaterThanOrEqual(pair.total, IdentityModel.estimated.link)
        let text = try stationdb("explain", "--raw", RepositoryData.raw, "1274")
        XCTAssertEqual(text.status, 0, text.err)
        XCTAssertTrue(text.out.hasPrefix("s_id 1274: kept\n  pair: s_id 1274 新橋 (JR東日本)"), text.out)
        let unknown = try stationdb("explain", "--raw", RepositoryData.raw, "1274", "99999999", "99999998")
        XCTAssertEqual(unknown.status, 2)
        XCTAssertEqual(unknown.out, "")
        XCTAssertTrue(unknown.err.contains("s_id 99999999 was never published") && unknown.err.contains("s_id 99999998"), unknown.err)
    }
}
