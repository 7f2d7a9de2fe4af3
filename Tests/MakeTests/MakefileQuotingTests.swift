import Foundation
import StationCore
import TestSupport
import XCTest

/// What the Makefile hands stationdb, word for word: `make` under a folder with a space
/// failed (`No rule to make target`), so did RAW=, BUILD= and DIST= with one (`3 unexpected
/// arguments`), `make fetch UPSTREAM='http://127.0.0.1:1/;touch FILE;#'` ran touch, and
/// `make -j2 plan all` could publish before the plan. A stand-in stationdb records the
/// arguments it is given, one per line, and when each run starts and ends.
final class MakefileQuotingTests: XCTestCase {
    var folder = ""
    /// Under a space, as a user's home or a mounted disk may be.
    var spaced: String { folder + "/my stations" }
    var log: String { folder + "/calls.log" }
    var stub: String { spaced + "/stand in/stationdb" }

    override func setUpWithError() throws {
        folder = NSTemporaryDirectory() + "makefile-quoting-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: spaced + "/stand in", withIntermediateDirectories: true)
        try Self.writeStub(at: stub, log: log)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// A stationdb that logs `start <command>`, then each argument as `arg <value>`, sleeps a
    /// little (so that two runs at once would overlap in the log), logs `end <command>` and
    /// succeeds.
    static func writeStub(at path: String, log: String) throws {
        try """
            #!/bin/sh
            log='\(log)'
            echo "start $1" >> "$log"
            for a in "$@"; do printf 'arg %s\\n' "$a" >> "$log"; done
            sleep 0.5
            echo "end $1" >> "$log"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
    }

    /// The arguments of each call, in order.
    func calls() throws -> [[String]] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        var out: [[String]] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("start ") { out.append([]) }
            if line.hasPrefix("arg ") { out[out.count - 1].append(String(line.dropFirst(4))) }
        }
        return out
    }

    func make(_ arguments: [String], makefile: String = MakeFixture.root + "/Makefile", in directory: String? = nil) throws -> MakeFixture.Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try MakeFixture.make())
        p.currentDirectoryURL = URL(fileURLWithPath: directory ?? folder)
        p.environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"].contains($0.key) }
        p.arguments = ["-f", makefile] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        return MakeFixture.finish((p, out, err))
    }

    func testEveryVariableReachesStationdbAsOneWordAndShellTextIsNeverRun() throws {
        let raw = spaced + "/raw dir", build = spaced + "/build dir", dist = spaced + "/dist dir"
        let touched = folder + "/FILE", quoted = folder + "/QUOTED"
        let upstream = "http://127.0.0.1:1/;touch \(touched);#"
        // ($ is make's own in a variable's value: `$(touch x)` is a make variable, empty.)
        let sneaky = "http://127.0.0.1:1/'`touch \(quoted)`'\"; touch \(quoted) #"
        let paths = ["BIN=\(stub)", "RAW=\(raw)", "BUILD=\(build)", "DIST=\(dist)"]
        let runs: [([String], [String])] = [
            (["fetch", "UPSTREAM=\(upstream)"], ["fetch", "--raw", raw, "--dist", dist, "--upstream", upstream]),
            (["fetch", "UPSTREAM=\(sneaky)", "ALLOW_OLDER_RELEASE=1", "ALLOW_FUTURE_RELEASE=1"],
             ["fetch", "--raw", raw, "--dist", dist, "--upstream", sneaky, "--allow-older-release", "--allow-future-release"]),
            // (SEED, VERSION and FORMAT with shell text are refused before stationdb runs: MakeVariableTests.)
            (["SEED=7", "VERSION=45", "GUARDS=--max-removed 5 ;touch \(touched)", "NO_WAIT=1"],
             ["publish", "--raw", raw, "--build", build, "--dist", dist, "--seed", "7", "--as-version", "45",
              "--max-removed", "5", ";touch", touched, "--no-wait"]),
            (["plan", "AGAINST=http://x/;touch \(touched)", "FORMAT=json"],
             ["plan", "--raw", raw, "--build", build, "--dist", dist, "--against", "http://x/;touch \(touched)", "--format", "json"]),
            (["lint"], ["lint", "--raw", raw]),
            (["diff", "OLD=\(dist)/1", "NEW=\(dist)/2 `touch \(touched)`", "FORMAT=sql"],
             ["diff", "\(dist)/1", "\(dist)/2 `touch \(touched)`", "--format", "sql"]),
            (["deploy", "TARGET=\(spaced)/www;touch \(touched)", "CHECK=http://x/\"'; touch \(touched)"],
             ["deploy", "--check=http://x/\"'; touch \(touched)", "--", dist, "\(spaced)/www;touch \(touched)"]),
        ]
        for (arguments, expected) in runs {
            try? FileManager.default.removeItem(atPath: log)
            let run = try make(paths + arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.err)")
            XCTAssertEqual(try calls(), [expected], "\(arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: touched), "make ran shell text from a variable")
        XCTAssertFalse(FileManager.default.fileExists(atPath: quoted), "make ran shell text from a variable")
    }

    /// A clone under a folder with a space, as `make` there runs it: its own release binary
    /// (here the stand-in, newer than every source, so nothing is built) on its own raw/.
    func testMakeInACloneUnderAFolderWithASpace() throws {
        let clone = spaced + "/clone"
        try FileManager.default.createDirectory(atPath: clone + "/Sources", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: clone + "/.build/release", withIntermediateDirectories: true)
        for name in ["Makefile", "Package.swift"] {
            try FileManager.default.copyItem(atPath: MakeFixture.root + "/" + name, toPath: clone + "/" + name)
        }
        try Self.writeStub(at: clone + "/.build/release/stationdb", log: log)
        for target in [[], ["plan"]] {
            try? FileManager.default.removeItem(atPath: log)
            let run = try make(target, makefile: "Makefile", in: clone)
            XCTAssertEqual(run.status, 0, run.err)
            XCTAssertEqual(try calls(), [[target.first ?? "publish", "--raw", clone + "/raw", "--build", clone + "/build", "--dist", clone + "/dist"]])
        }
        // And from elsewhere, through -f.
        try? FileManager.default.removeItem(atPath: log)
        let run = try make(["lint"], makefile: clone + "/Makefile")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try calls(), [["lint", "--raw", clone + "/raw"]])
    }

    /// `make -j2 plan all`: the plan runs, whole, before the publish (.NOTPARALLEL).
    func testTargetsRunOneAfterAnotherUnderJ2() throws {
        let plain = folder + "/stationdb"
        try Self.writeStub(at: plain, log: log)
        let run = try make(["-j2", "BIN=\(plain)", "RAW=\(folder)/raw", "BUILD=\(folder)/build", "DIST=\(folder)/dist", "plan", "all"])
        XCTAssertEqual(run.status, 0, run.err)
        let order = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("arg ") }
        XCTAssertEqual(order, ["start plan", "end plan", "start publish", "end publish"])
    }
}
