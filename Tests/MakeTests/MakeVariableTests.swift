import Foundation
import StationCore
import XCTest

/// What a new user hit (issue 50, §6): `make plan FORCE_PUBLISH=0` forced a publish past the
/// guards, since make took any value as on; `METHOD=bluenoise`, `FORMAT=html`, `VERSION=-1` or
/// `SEED=abc` came back as stationdb's complaint about `--method`, `--format`, `--as-version` or
/// `--seed`, with a last line that blamed raw/; and a nightly script could not tell a guard's
/// refusal from bad input by make's status. A switch is now 1 or 0 (or unset), a value from a
/// list or a number is checked before stationdb runs and named as the variable typed, GUARDS
/// is named when stationdb did not take it, and make's status is what README says.
final class MakeVariableTests: MakeTestCase {
    /// What make and stationdb said on stderr, make's own `*** ... Error 2` left out.
    func said(_ run: MakeFixture.Run) -> [String] {
        run.err.split(separator: "\n").filter { !MakeFixture.Run.isMakesOwnLine($0) }.map(String.init)
    }

    /// Refused by make before stationdb ran: status 2, these lines and no other (a stationdb
    /// that ran says what it does), and no build/ or dist/ made.
    func assertRefused(_ run: MakeFixture.Run, _ lines: [String], _ f: MakeFixture, line: UInt = #line) {
        XCTAssertEqual(run.status, 2, run.err, line: line)
        XCTAssertEqual(said(run), lines, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.build), "stationdb ran", line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist), "stationdb ran", line: line)
    }

    /// A published version 1, then five of its hundred stations gone: over the guard of 2% removed.
    func refusedByAGuard() throws -> MakeFixture {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 95)
        return f
    }

    func testForcePublishZeroDoesNotForce() throws {
        let f = try refusedByAGuard()
        let published = try MakeFixture.snapshot(f.dist)
        let run = try f.make("FORCE_PUBLISH=0")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertEqual(run.lastMessage, "make: refused by a guard (exit 4 from stationdb)")
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)
        let plan = try f.make("plan", "FORCE_PUBLISH=0")
        XCTAssertEqual(plan.status, 2, plan.err)
        XCTAssertEqual(plan.lastMessage, "make: a publish would be refused by a guard (exit 4 from stationdb): see the report above")
        // What 1 forces, 0 did not.
        XCTAssertEqual(try f.make("FORCE_PUBLISH=1").status, 0)
        XCTAssertEqual(try f.latestVersion(), 2)
    }

    func testForcePublishYesIsNamedBeforeStationdbRuns() throws {
        let f = try fixture()
        assertRefused(try f.make("FORCE_PUBLISH=yes"), ["make: FORCE_PUBLISH must be 1 or 0 (or unset), not 'yes'"], f)
        assertRefused(try f.make("plan", "FORCE_PUBLISH=yes"), ["make: FORCE_PUBLISH must be 1 or 0 (or unset), not 'yes'"], f)
    }

    /// Each switch, in each target that takes it.
    func testEverySwitchIsOneOrZero() throws {
        let f = try fixture()
        let cases: [([String], String)] = [
            (["NO_WAIT=on"], "NO_WAIT must be 1 or 0 (or unset), not 'on'"),
            (["ALLOW_OLDER_RELEASE=true"], "ALLOW_OLDER_RELEASE must be 1 or 0 (or unset), not 'true'"),
            (["plan", "EXPLAIN=yes"], "EXPLAIN must be 1 or 0 (or unset), not 'yes'"),
            (["plan", "NO_WAIT=2"], "NO_WAIT must be 1 or 0 (or unset), not '2'"),
            (["plan", "ALLOW_OLDER_RELEASE=no"], "ALLOW_OLDER_RELEASE must be 1 or 0 (or unset), not 'no'"),
            (["deploy", "TARGET=www", "DRY_RUN=yes"], "DRY_RUN must be 1 or 0 (or unset), not 'yes'"),
            (["deploy", "TARGET=www", "NO_WAIT=off"], "NO_WAIT must be 1 or 0 (or unset), not 'off'"),
            (["fetch", "ALLOW_OLDER_RELEASE=y"], "ALLOW_OLDER_RELEASE must be 1 or 0 (or unset), not 'y'"),
            (["fetch", "ALLOW_FUTURE_RELEASE=01"], "ALLOW_FUTURE_RELEASE must be 1 or 0 (or unset), not '01'"),
        ]
        for (arguments, message) in cases {
            assertRefused(MakeFixture.finish(try f.start(arguments)), ["make: " + message], f)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.folder + "/www"))
    }

    func testDryRunZeroCopies() throws {
        let f = try fixture()
        XCTAssertEqual(try f.make().status, 0)
        XCTAssertEqual(try f.make("deploy", "TARGET=\(f.folder)/listed", "DRY_RUN=1").status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.folder + "/listed/latest.json"))
        let run = try f.make("deploy", "TARGET=\(f.folder)/www", "DRY_RUN=0")
        XCTAssertEqual(run.status, 0, run.err)
        let copied = try MakeFixture.snapshot(f.folder + "/www"), published = try MakeFixture.snapshot(f.dist)
        XCTAssertNotNil(copied["latest.json"])
        XCTAssertEqual(copied["latest.json"], published["latest.json"])
    }

    func testEveryWrongValueOfARunIsNamedAtOnce() throws {
        let f = try fixture()
        assertRefused(try f.make("plan", "SEED=x", "METHOD=y", "VERSION=z", "FORCE_PUBLISH=yes", "NO_WAIT=2", "FORMAT=html", "EXPLAIN=on"), [
            "make: SEED must be a whole number from 0 to 18446744073709551615 (or unset), not 'x'",
            "make: METHOD must be blue-noise or mesh-lottery (or unset), not 'y'",
            "make: VERSION must be a whole number from 1 to 2147483647 (or unset), not 'z'",
            "make: FORCE_PUBLISH must be 1 or 0 (or unset), not 'yes'",
            "make: NO_WAIT must be 1 or 0 (or unset), not '2'",
            "make: FORMAT must be text, markdown or json (or unset), not 'html'",
            "make: EXPLAIN must be 1 or 0 (or unset), not 'on'",
        ], f)
    }

    func testAMethodStationdbDoesNotTakeIsNamedAsMethod() throws {
        let f = try fixture()
        for target in ["all", "plan"] {
            assertRefused(try f.make(target, "METHOD=bluenoise"), ["make: METHOD must be blue-noise or mesh-lottery (or unset), not 'bluenoise'"], f)
        }
        XCTAssertEqual(try f.make("plan", "METHOD=blue-noise").status, 0)
    }

    /// plan and diff take different formats; each is checked against its own.
    func testAFormatIsCheckedAgainstItsTargetsFormats() throws {
        let f = try fixture()
        assertRefused(try f.make("plan", "FORMAT=html"), ["make: FORMAT must be text, markdown or json (or unset), not 'html'"], f)
        assertRefused(try f.make("plan", "FORMAT=sql"), ["make: FORMAT must be text, markdown or json (or unset), not 'sql'"], f)
        assertRefused(try f.make("diff", "OLD=dist/1", "NEW=dist/2", "FORMAT=html"), ["make: FORMAT must be text, json, markdown or sql (or unset), not 'html'"], f)
        XCTAssertEqual(try f.make().status, 0)
        let diff = try f.make("diff", "OLD=\(f.dist)/1", "NEW=\(f.dist)/1", "FORMAT=sql")
        XCTAssertEqual(diff.status, 0, diff.err)
    }

    /// A version is a bundle's user_version, 1 to 2^31-1 (BundleVersion); that it is larger
    /// than every published one is stationdb's to say.
    func testVersionIsAWholeNumberABundleCanHold() throws {
        let f = try fixture()
        for value in ["-1", "0", "000", "2147483648", "1.5", "v2"] {
            assertRefused(try f.make("VERSION=\(value)"), ["make: VERSION must be a whole number from 1 to 2147483647 (or unset), not '\(value)'"], f)
        }
        XCTAssertEqual(try f.make("VERSION=2").status, 0)
        XCTAssertEqual(try f.latestVersion(), 2)
    }

    /// --seed is a UInt64: 0 to 2^64-1, beyond the shell's arithmetic.
    func testSeedIsAWholeNumberOf64Bits() throws {
        let f = try fixture()
        for value in ["abc", "-1", "18446744073709551616", "99999999999999999999999"] {
            assertRefused(try f.make("plan", "SEED=\(value)"), ["make: SEED must be a whole number from 0 to 18446744073709551615 (or unset), not '\(value)'"], f)
        }
        let run = try f.make("plan", "SEED=18446744073709551615")
        XCTAssertEqual(run.status, 0, run.err)
    }

    /// A checked value reaches the shell only through q, as every value does: said as typed, never run.
    func testAWrongValueIsSaidAsTypedAndNeverRun() throws {
        let f = try fixture()
        let touched = f.folder + "/FILE"
        assertRefused(try f.make("plan", "SEED='; touch \(touched); '", "METHOD=\"; touch \(touched) #", "VERSION=`touch \(touched)`",
                                 "FORCE_PUBLISH=1'; touch \(touched) #", "FORMAT=json;touch \(touched)"), [
            "make: SEED must be a whole number from 0 to 18446744073709551615 (or unset), not ''; touch \(touched); ''",
            "make: METHOD must be blue-noise or mesh-lottery (or unset), not '\"; touch \(touched) #'",
            "make: VERSION must be a whole number from 1 to 2147483647 (or unset), not '`touch \(touched)`'",
            "make: FORCE_PUBLISH must be 1 or 0 (or unset), not '1'; touch \(touched) #'",
            "make: FORMAT must be text, markdown or json (or unset), not 'json;touch \(touched)'",
        ], f)
        XCTAssertFalse(FileManager.default.fileExists(atPath: touched), "make ran shell text from a variable")
    }

    /// stationdb's usage error has bad input's status; when it is GUARDS', the last line says so,
    /// and a mistake in raw/ with good GUARDS is still raw/'s.
    func testAnOptionOfGuardsStationdbDoesNotTakeIsNamedAsGuards() throws {
        let f = try fixture()
        for guards in ["--max-removd 5", "--max-removed=-5"] {
            let run = try f.make("GUARDS=\(guards)")
            XCTAssertEqual(run.status, 2, run.err)
            XCTAssertEqual(run.lastMessage, "make: bad input (exit 2 from stationdb): the message above is about GUARDS='\(guards)' "
                                            + "(stationdb publish --help lists the guards); nothing was published")
        }
        let plan = try f.make("plan", "GUARDS=--max-removed abc")
        XCTAssertEqual(plan.status, 2, plan.err)
        XCTAssertEqual(plan.lastMessage, "make: plan stopped: bad input (exit 2 from stationdb): the message above is about GUARDS='--max-removed abc' "
                                         + "(stationdb plan --help lists the guards); dist/ and raw/ are as they were")
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist + "/latest.json"))

        try f.write("action,table,match,field,value,expect,note\ndisable,stations,sid=3,,,,\n", to: "raw/fixes.csv")
        let raw = try f.make("GUARDS=--max-removed 5")
        XCTAssertEqual(raw.status, 2, raw.err)
        XCTAssertEqual(raw.lastMessage, "make: bad input (exit 2 from stationdb): see the message above; nothing was published")
    }

    /// README: make exits 0 or 2, its last line naming stationdb's status; a script that
    /// branches on the cause runs README's stationdb command, whose status is the cause.
    func testMakeExitsTwoWhereTheStationdbCommandSaysWhy() throws {
        let readme = try String(contentsOfFile: MakeFixture.root + "/README.md", encoding: .utf8)
        let match = try XCTUnwrap(readme.firstMatch(of: /runs the stationdb command itself, e\.g\.\s+`stationdb (publish [^`]+)`/))
        let command = match.1.split(whereSeparator: \.isWhitespace).map(String.init)
        XCTAssertEqual(command, ["publish", "--raw", "raw", "--build", "build", "--dist", "dist"])

        let f = try refusedByAGuard()
        var run = try f.make()
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertEqual(run.lastMessage, "make: refused by a guard (exit 4 from stationdb)")
        XCTAssertEqual(try f.stationdb(command).status, 4)

        // Bad input: a version not larger than the published one.
        run = try f.make("VERSION=1", "FORCE_PUBLISH=1")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertEqual(run.lastMessage, "make: bad input (exit 2 from stationdb): see the message above; nothing was published")
        XCTAssertEqual(try f.stationdb(command + ["--as-version", "1", "--force"]).status, 2)

        // I/O: another publish holds the dist.
        var held: FileLock? = try FileLock.acquire(f.dist + "/.lock", wait: false)
        XCTAssertNotNil(held)
        run = try f.make("NO_WAIT=1", "FORCE_PUBLISH=1")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertEqual(run.lastMessage, "make: I/O failure, a damaged dist, or another run holds the lock named above (exit 3 from stationdb); nothing was published")
        XCTAssertEqual(try f.stationdb(command + ["--no-wait", "--force"]).status, 3)
        held = nil
        _ = held

        XCTAssertEqual(try f.latestVersion(), 1)
        XCTAssertEqual(try f.make("FORCE_PUBLISH=1").status, 0)
    }
}
