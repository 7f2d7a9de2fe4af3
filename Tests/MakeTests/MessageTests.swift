import Foundation
import StationCore
import TestSupport
import XCTest

/// What make says last is true to the target that failed: fetch, lint and plan failures
/// ended "nothing was published", a publish's words, and `make install` advised "or log in
/// again", which puts no folder on PATH for root, for any PREFIX, or where the profile
/// does not add ~/.local/bin.
final class MessageTests: MakeTestCase {
    func testAFailedFetchLintOrPlanIsToldInItsOwnWords() throws {
        let f = try fixture()
        try Files.createFolder(f.folder + "/site")
        let server = try StaticServer(root: f.folder + "/site")
        try f.write(#"{ "sources": [ { "kind": "native", "path": "native", "url": "\#(server.baseURL)/nothing/" } ] }"#, to: "raw/sources.json")
        let fetched = try f.make("fetch")
        XCTAssertEqual(fetched.status, 2, fetched.err)
        XCTAssertEqual(fetched.lastMessage,
                       "make: fetch refused: bad input (exit 2 from stationdb): see the message above; the source it names is left as it was in raw/")

        try FileManager.default.removeItem(atPath: f.raw + "/sources.json")
        try f.write("action,table,match,field,value,expect,note\ndisable,stations,sid=3,,,,\n", to: "raw/fixes.csv")
        let linted = try f.make("lint"), planned = try f.make("plan")
        XCTAssertEqual(linted.status, 2, linted.err)
        XCTAssertEqual(linted.lastMessage, "make: lint stopped: bad input (exit 2 from stationdb): mend raw/ as the message above says")
        XCTAssertEqual(planned.status, 2, planned.err)
        XCTAssertEqual(planned.lastMessage,
                       "make: plan stopped: bad input (exit 2 from stationdb): mend raw/ as the message above says; dist/ and raw/ are as they were")
        for run in [fetched, linted, planned] { XCTAssertFalse(run.err.contains("published"), run.err) }
    }

    /// The line make install gives, run in a shell, puts the stationdb it installed on PATH.
    func testMakeInstallGivesTheLineThatPutsItOnPath() throws {
        let f = try fixture()
        let prefix = f.folder + "/a prefix"
        let run = try f.make("install", "PREFIX=\(prefix)")
        XCTAssertEqual(run.status, 0, run.err)
        let lines = run.err.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines, [
            "make install: \(prefix)/bin is not on PATH; put it there with this line, now and in your shell's startup file (~/.bashrc, ~/.profile):",
            "  export PATH=\"\(prefix)/bin:$PATH\"",
        ])
        let shell = try runWithTimeout("/bin/sh", ["-c", lines[1] + "; command -v stationdb"], in: f.folder, timeout: 30)
        XCTAssertEqual(shell.out, prefix + "/bin/stationdb\n", shell.err)
        // Already on PATH: not a word.
        let again = try runWithTimeout("/bin/sh", ["-c", lines[1] + "; exec \"$0\" \"$@\"", try MakeFixture.make(), "-s", "-f", MakeFixture.root + "/Makefile",
                                                   "BIN=\(try MakeFixture.stationdb())", "PREFIX=\(prefix)", "install"], in: f.folder, timeout: 60)
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertEqual(again.err, "")
    }
}
