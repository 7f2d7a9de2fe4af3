import Foundation
import StationCore
import XCTest

/// The nightly `make` as cron and a maintainer run it: it never says "nothing
/// changed" or "published" when it did not do the job, a deletion is a change,
/// two runs never publish at once, and what failed survives make's exit status.
final class NightlyMakeTests: MakeTestCase {
    func assertPublished(_ run: MakeFixture.Run, version: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(run.status, 0, run.err, file: file, line: line)
        XCTAssertTrue(run.err.contains("stationdb: published version \(version) "), run.err, file: file, line: line)
    }

    /// Case 1: raw/ moved away, a sources.json naming nothing, a source file gone.
    func testMissingSourcesFailAndPublishNothing() throws {
        let f = try fixture()
        assertPublished(try f.make(), version: 1)
        let published = try MakeFixture.snapshot(f.dist)

        try FileManager.default.moveItem(atPath: f.raw, toPath: f.folder + "/raw.away")
        var run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("\(f.raw): no such folder"), run.err)
        XCTAssertFalse(run.err.contains("nothing changed"), run.err)
        XCTAssertTrue(run.lastMessage.contains("bad input (exit 2 from stationdb)"), run.lastMessage)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)
        try FileManager.default.moveItem(atPath: f.folder + "/raw.away", toPath: f.raw)

        try f.write(#"{ "sources": [] }"#, to: "raw/sources.json")
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("sources.json:1: sources: expected at least one source"), run.err)
        try FileManager.default.removeItem(atPath: f.raw + "/sources.json")

        try FileManager.default.removeItem(atPath: f.raw + "/stations_lines.csv")
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("stations_lines.csv"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published, "nothing is published on bad input")
    }

    /// Case 2: deleting fixes.csv or weights.csv leaves no newer file behind, and is still a change.
    func testDeletedFixOrHandWeightIsAChange() throws {
        let f = try fixture()
        assertPublished(try f.make(), version: 1)
        try f.write("action,table,match,field,value,note\nset,stations,s_id=3,yomi,えきさん,reading\n", to: "raw/fixes.csv")
        assertPublished(try f.make(), version: 2)
        // The run that applied the fix rewrote the registry (the row as now published); the next finds nothing to do.
        XCTAssertTrue(try f.make().err.contains("stationdb: nothing changed"))
        try FileManager.default.removeItem(atPath: f.raw + "/fixes.csv")
        let run = try f.make()
        assertPublished(run, version: 3)
        XCTAssertEqual(try f.stationdb("diff", "dist/1", "dist/3").status, 0, "without the fix the bundle is version 1's again")

        try f.write("s_id,weight,note\n5,1,junction\n", to: "raw/weights.csv")
        assertPublished(try f.make(), version: 4)
        XCTAssertEqual(try f.stationdb("diff", "dist/3", "dist/4").status, 1)
        try FileManager.default.removeItem(atPath: f.raw + "/weights.csv")
        // Seen as a change, and refused like a guard: the published version's hand weights
        // are all gone (an emptied or lost weights.csv looks the same); forced, it publishes.
        let refused = try f.make()
        XCTAssertEqual(refused.status, 2)
        XCTAssertEqual(refused.lastMessage, "make: refused by a guard (exit 4 from stationdb)")
        assertPublished(try f.make("FORCE_PUBLISH=1"), version: 5)
        XCTAssertEqual(try f.stationdb("diff", "dist/3", "dist/5").status, 0)
    }

    /// Case 3: with nothing new, no stage runs and no file changes; new IDs change the registry once.
    func testNothingChangedRunsNothingAndTheRegistryChangesOnce() throws {
        let f = try fixture()
        var run = try f.make()
        assertPublished(run, version: 1)
        XCTAssertTrue(run.err.contains("registry.csv updated (104 new IDs); commit it with the source change"), run.err)
        let raw = try MakeFixture.snapshot(f.raw), build = try MakeFixture.snapshot(f.build), dist = try MakeFixture.snapshot(f.dist)
        let registryInode = try FileManager.default.attributesOfItem(atPath: f.raw + "/registry.csv")[.systemFileNumber] as? Int

        run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        for stage in ["ingest", "priority", "build"] { XCTAssertTrue(run.err.contains("\(stage): up to date"), run.err) }
        XCTAssertTrue(run.err.contains("stationdb: nothing changed; \(f.dist) is up to date (version 1)"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.raw), raw)
        XCTAssertEqual(try MakeFixture.snapshot(f.build), build)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), dist)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: f.raw + "/registry.csv")[.systemFileNumber] as? Int, registryInode,
                       "the registry was not even rewritten")

        // A new station: the registry gains its ID in that run, and only then.
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 102)
        run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("registry.csv updated (2 new IDs)"), run.err)
        let registry = try MakeFixture.snapshot(f.raw)["registry.csv"]
        run = try f.make()
        XCTAssertTrue(run.err.contains("nothing changed"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.raw)["registry.csv"], registry)
    }

    /// Case 4: a second run waits for the first (or exits 3 with NO_WAIT), and no announced version is ever replaced.
    func testOnePublisherPerDist() throws {
        let f = try fixture()
        assertPublished(try f.make(), version: 1)

        // Another publish holds the dist (here: this test, as a running publish would).
        var held: FileLock? = try FileLock.acquire(f.dist + "/.lock", wait: false)
        XCTAssertNotNil(held)
        let refused = try f.make("NO_WAIT=1")
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.err.contains("another publish into \(f.dist) is running (pid \(getpid())"), refused.err)
        XCTAssertTrue(refused.lastMessage.contains("(exit 3 from stationdb)"), refused.lastMessage)

        // The holder's temporary folder survives while it holds the lock; a second run waits, saying for whom.
        let live = f.dist + "/.tmp-2-\(getpid())"
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 101)
        let waiting = try f.start([])
        let firstWords = String(decoding: waiting.2.fileHandleForReading.availableData, as: UTF8.self)
        XCTAssertTrue(firstWords.contains("waiting for another publish into \(f.dist) to finish (pid \(getpid()) holds"), firstWords)
        XCTAssertTrue(FileManager.default.fileExists(atPath: live))
        held = nil
        let second = MakeFixture.finish(waiting)
        assertPublished(MakeFixture.Run(status: second.status, out: second.out, err: firstWords + second.err), version: 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: live), "once the lock is free, a dead run's folder goes")
        _ = held

        // Two runs at once: one publishes, the other finds nothing left to do.
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 102)
        let a = try f.start([]), b = try f.start([])
        let runs = [MakeFixture.finish(a), MakeFixture.finish(b)]
        XCTAssertEqual(runs.map(\.status), [0, 0], runs.map(\.err).joined())
        XCTAssertEqual(runs.filter { $0.err.contains("stationdb: published version 3 ") }.count, 1, runs.map(\.err).joined())
        XCTAssertEqual(runs.filter { $0.err.contains("nothing changed") }.count, 1, runs.map(\.err).joined())
        XCTAssertEqual(try f.latestVersion(), 3)
        XCTAssertEqual(try f.stationdb("verify", "dist").status, 0)
    }

    /// Case 5: make diff succeeds on same and different; a guard refusal says so last.
    func testExitStatusesSurviveMake() throws {
        let f = try fixture()
        assertPublished(try f.make(), version: 1)
        try f.write("action,table,match,field,value,note\nset,stations,s_id=3,station,駅三,renamed\n", to: "raw/fixes.csv")
        assertPublished(try f.make(), version: 2)

        var run = try f.make("diff", "OLD=\(f.dist)/1", "NEW=\(f.dist)/2")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("駅三"), run.out)
        XCTAssertEqual(try f.make("diff", "OLD=\(f.dist)/1", "NEW=\(f.dist)/1").status, 0)
        run = try f.make("diff", "OLD=\(f.dist)/1", "NEW=\(f.dist)/2", "FORMAT=json")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(run.out.utf8)), run.out)
        run = try f.make("diff", "OLD=\(f.dist)/1", "NEW=\(f.dist)/9")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.lastMessage.contains("the diff did not run (exit 2 from stationdb)"), run.lastMessage)
        // CI that must tell same from different calls stationdb itself.
        XCTAssertEqual(try f.stationdb("diff", "dist/1", "dist/2").status, 1)
        XCTAssertEqual(try f.stationdb("diff", "dist/2", "dist/2").status, 0)

        // Five of a hundred stations gone: over the guard of 2% disabled. A refused run leaves raw/ as it was.
        let registry = try MakeFixture.snapshot(f.raw)["registry.csv"]
        try MakeFixture.writeSmallNetwork(to: f.raw, stations: 95)
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.lastMessage.contains("refused by a guard (exit 4 from stationdb)"), run.err)
        XCTAssertLessThan(run.err.range(of: "refused: ")!.lowerBound, run.err.range(of: "nothing was published")!.lowerBound, "the reason, then the advice")
        XCTAssertEqual(try f.latestVersion(), 2)
        XCTAssertEqual(try MakeFixture.snapshot(f.raw)["registry.csv"], registry, "the registry changes only with a publish")

        // A version that cannot be published stops the run before any stage.
        run = try f.make("VERSION=2")
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("version 2 is not larger than the published version 2"), run.err)
        XCTAssertFalse(run.err.contains("running"), run.err)
        assertPublished(try f.make("FORCE_PUBLISH=1"), version: 3)
    }

    /// Case 6: the README's stages by hand (with the one default seed) and make agree.
    func testStagesByHandAgreeWithMake() throws {
        let byHand = try fixture(), byMake = try fixture()
        for arguments in [["ingest", "--raw", "raw", "--out", "build/staging.bin", "--lint", "build/lint.json"],
                          ["priority", "--staging", "build/staging.bin", "--out", "build/weights.csv"],
                          ["build", "--staging", "build/staging.bin", "--weights", "build/weights.csv", "--lint", "build/lint.json", "--dist", "dist"]] {
            let run = try byHand.stationdb(arguments)
            XCTAssertEqual(run.status, 0, "\(arguments): \(run.err)")
        }
        let run = try byHand.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("stationdb: nothing changed"), run.err)
        assertPublished(try byMake.make(), version: 1)
        XCTAssertEqual(try MakeFixture.snapshot(byHand.build)["weights.csv"], try MakeFixture.snapshot(byMake.build)["weights.csv"])
        XCTAssertEqual(try MakeFixture.snapshot(byHand.dist)["1/stations.sqlite"], try MakeFixture.snapshot(byMake.dist)["1/stations.sqlite"])
    }

    /// METHOD= chooses the machine weights; changing it redoes priority and the build, and
    /// the lottery stays selectable from make.
    func testMethodIsAChangeMakeSees() throws {
        let f = try fixture()
        assertPublished(try f.make(), version: 1)
        let blueNoise = try MakeFixture.snapshot(f.build)["weights.csv"]
        var run = try f.make("METHOD=mesh-lottery", "FORCE_PUBLISH=1")
        XCTAssertTrue(run.err.contains("priority: running"), run.err)
        let lottery = try MakeFixture.snapshot(f.build)["weights.csv"]
        XCTAssertNotEqual(lottery, blueNoise, "the two methods weigh the fixture's stations differently")
        XCTAssertEqual(run.status, 0, run.err)
        run = try f.make("METHOD=mesh-lottery")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("stationdb: nothing changed"), run.err)
        XCTAssertTrue(try f.make("help").out.contains("METHOD=mesh-lottery"))
    }

    /// Case 7: --version, make help, and the README's fix example, which publishes as written.
    func testVersionHelpAndTheReadmeFixExample() throws {
        let f = try fixture(copyingRaw: MakeFixture.root + "/raw")
        let version = try f.stationdb("--version")
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.out.hasPrefix("stationdb 1."), version.out)
        XCTAssertTrue(version.out.contains("bundle.md"), version.out)
        let help = try f.make("help")
        XCTAssertEqual(help.status, 0)
        for word in ["make diff", "FORMAT=", "NO_WAIT=1", "FORCE_PUBLISH=1", "refused by a guard"] { XCTAssertTrue(help.out.contains(word), word) }

        // The example's rows may be in raw/fixes.csv already (a maintainer who followed README):
        // version 1 is made without any fix of its station, so the example changes it.
        let own = try String(contentsOfFile: f.raw + "/fixes.csv", encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        try (own.filter { !$0.contains("s_id=1273,") }.joined(separator: "\n")).write(toFile: f.raw + "/fixes.csv", atomically: true, encoding: .utf8)
        assertPublished(try f.make(), version: 1)
        let readme = try String(contentsOfFile: MakeFixture.root + "/README.md", encoding: .utf8)
        let lines = readme.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // The example's rows go below the header raw/fixes.csv already has, as a maintainer adds them.
        let header = try String(contentsOfFile: f.raw + "/fixes.csv", encoding: .utf8).split(separator: "\n").first.map(String.init)
        let start = try XCTUnwrap(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == header })
        let example = lines[start...].prefix { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertGreaterThanOrEqual(example.count, 3)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: f.raw + "/fixes.csv"))
        handle.seekToEndOfFile()
        handle.write(Data((example.dropFirst().joined(separator: "\n") + "\n").utf8))
        handle.closeFile()
        let run = try f.make()
        assertPublished(run, version: 2)
        XCTAssertTrue(run.err.contains("stations +0 -0 ~1"), run.err)
    }
}
