import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// A deploy killed at any moment (SIGKILL: no handler runs) leaves a target whose
/// latest.json names version 1 (the old one) or 3 (the new one), every file of it
/// whole, and an app starting then gets that version; the next deploy completes the
/// job and removes what the killed one left.
///
/// Every moment is one the test waits for, never a delay, so that no kill can land
/// early or late on a fast or a loaded machine: STATIONDB_DEPLOY_KILL_AT makes stationdb
/// kill itself at a named moment (every step), and the test kills the whole process
/// group (stationdb with its rsync and ssh) once rsync is partway through a large file.
final class KillDuringDeployTests: XCTestCase {
    var f: DeployFixture!
    var server: StaticServer!
    /// A target as the first deploy of version 1 left it.
    var atVersion1 = ""

    override func setUpWithError() throws {
        f = try DeployFixture()
        atVersion1 = f.folder + "/target-at-1"
        let run = try f.stationdb("deploy", try PublishedDists.shared().atVersion1, atVersion1)
        XCTAssertEqual(run.status, 0, run.err)
        try f.resetTarget(to: atVersion1)
        server = try StaticServer(root: f.target)
    }

    override func tearDown() {
        server = nil
        f?.remove()
    }

    /// Kills the deploy from `dist` at each moment, checks the target, then deploys again.
    func killAtMoments(_ moments: [(moment: String, serves: Int, leavesStaging: Bool)], dist: String, target: String, options: [String] = [],
                       file: StaticString = #filePath, line: UInt = #line) throws {
        for (moment, serves, leavesStaging) in moments {
            try f.resetTarget(to: atVersion1)
            let killed = try f.stationdb(["deploy", dist, target] + options, environment: ["STATIONDB_DEPLOY_KILL_AT": moment])
            XCTAssertEqual(killed.signal, SIGKILL, "\(moment): not killed there: status \(killed.status), \(killed.err)", file: file, line: line)
            XCTAssertEqual(!DeployFixture.leftovers(in: f.target).isEmpty, leavesStaging,
                           "\(moment): leftovers \(DeployFixture.leftovers(in: f.target))", file: file, line: line)
            try f.assertServesWholeVersion(f.target, oneOf: [serves], dist: dist, server: server, "killed at \(moment)", file: file, line: line)

            let again = try f.stationdb(["deploy", dist, target] + options)
            XCTAssertEqual(again.status, 0, "\(moment), then deploy: \(again.err)", file: file, line: line)
            XCTAssertEqual(again.err.contains("removing what a killed deploy left"), leavesStaging, again.err, file: file, line: line)
            try f.assertDeployed(dist, to: f.target, "killed at \(moment), then deploy", file: file, line: line)
            try f.assertServesWholeVersion(f.target, oneOf: [3], dist: dist, server: server, "after \(moment)", file: file, line: line)
        }
    }

    func testKilledAtEveryStepOfALocalCopy() throws {
        let v3 = try PublishedDists.shared().atVersion3
        // Version 2 then 3 are copied (6 files each), then latest.json.
        try killAtMoments([
            ("chunk#1", 1, true),          // the first file of version 2 half written
            ("file#3", 1, true),           // three of its files in the staging folder
            ("staged#1", 1, true),         // version 2 whole in its staging folder, not renamed
            ("placed#1", 1, false),        // version 2 in place, 3 not begun
            ("chunk#9", 1, true),          // a file of version 3 being written
            ("staged#2", 1, true),
            ("placed#2", 1, false),        // both folders in place, latest.json still names 1
            ("latest-staged", 1, true),    // the new latest.json flushed under its temporary name
            ("latest-placed", 3, false),   // renamed: the apps get 3
        ], dist: v3, target: f.target)
    }

    func testKilledAtEveryStepOfAnRsyncCopy() throws {
        let v3 = try PublishedDists.shared().atVersion3
        let moments: [(String, Int, Bool)] = [("staged#1", 1, true), ("placed#1", 1, false), ("staged#2", 1, true), ("placed#2", 1, false), ("latest-placed", 3, false)]
        try killAtMoments(moments, dist: v3, target: f.target, options: ["--rsync"])
        let ssh = try f.fakeSSH()
        try killAtMoments(moments, dist: v3, target: "deploy-host:" + f.target, options: ["--rsh", ssh.command])
    }

    /// Kills in the middle of a large file (version 3's registry.csv made 64 MB), each at a
    /// moment the test waits for, not at a delay: the Swift copy at a piece of the large file
    /// (STATIONDB_DEPLOY_KILL_AT=chunk#40: version 2's files and version 3's small ones are a
    /// piece each, at most 11); rsync over ssh with its stream held partway through the file
    /// (a stand-in ssh that passes 8 MB to the receiving rsync, then nothing), killed once
    /// rsync's temporary file of it holds data, so the copy cannot have ended first however
    /// fast or loaded the machine; rsync into a local folder, which has no stream to hold,
    /// killed as soon as its temporary file holds data. Wherever a kill lands, the target
    /// serves version 1 or 3, whole, and the next deploy completes the job.
    func testKilledDuringALargeCopy() throws {
        let dist = try f.dist(\.atVersion3, as: "large")
        try Self.enlargeRegistry(of: dist, version: 3, bytes: Self.largeRegistryBytes)

        // The Swift copy: the same file, killed by stationdb itself at a piece of it.
        try f.resetTarget(to: atVersion1)
        let killed = try f.stationdb(["deploy", dist, f.target], environment: ["STATIONDB_DEPLOY_KILL_AT": "chunk#40"])
        XCTAssertEqual(killed.signal, SIGKILL, "local copy: not killed at chunk#40: status \(killed.status), \(killed.err)")
        XCTAssertEqual(try Self.partialRegistries(in: f.target).map { $0.name }, [DistLayout.registry], "local copy: not killed inside the large file")
        try assertKilledThenDeployedAgain(dist: dist, target: f.target, options: [], serves: [1], "local copy, killed at chunk#40")

        // rsync over ssh, its stream held: the kill lands during the copy, every time.
        let holding = try f.fakeSSH(holding: (version: 3, bytes: 8 << 20)), ssh = try f.fakeSSH()
        let heldTarget = "deploy-host:" + f.target
        try f.resetTarget(to: atVersion1)
        let held = try GroupProcess(try BuiltTools.stationdb(), ["deploy", dist, heldTarget, "--rsh", holding.command])
        let reached = waitForPartialRegistry(of: held)
        XCTAssertTrue(held.killGroup(), "rsync over ssh: the deploy ended though its stream was held: \(held.err)")
        XCTAssertTrue(reached, "rsync over ssh: rsync never wrote into a temporary file of \(DistLayout.registry): \(held.err)")
        XCTAssertFalse(DeployFixture.leftovers(in: f.target).isEmpty, "rsync over ssh: killed mid-copy, yet no staging folder is left")
        print("KillDuringDeployTests: rsync over ssh killed with \(try Self.partialRegistries(in: f.target).map { $0.bytes }) bytes of the large file arrived")
        try assertKilledThenDeployedAgain(dist: dist, target: heldTarget, options: ["--rsh", ssh.command], serves: [1], "rsync over ssh, held mid-file")

        // rsync into a folder of this machine: killed once its temporary file holds data, or
        // wherever the deploy is when the test looks (a loaded machine may look late); not counted.
        try f.resetTarget(to: atVersion1)
        let local = try GroupProcess(try BuiltTools.stationdb(), ["deploy", dist, f.target, "--rsync"])
        let seen = waitForPartialRegistry(of: local)
        let landed = local.killGroup()
        print("KillDuringDeployTests: rsync killed \(seen ? "during the large file's copy" : landed ? "after the large file's copy" : "after the deploy ended")")
        try assertKilledThenDeployedAgain(dist: dist, target: f.target, options: ["--rsync"], serves: [1, 3], "rsync, killed during the copy")
    }

    static let largeRegistryBytes = 64 << 20

    /// Checks the target as a kill left it, deploys again and checks the result.
    func assertKilledThenDeployedAgain(dist: String, target: String, options: [String], serves: Set<Int>, _ moment: String,
                                       file: StaticString = #filePath, line: UInt = #line) throws {
        try f.assertServesWholeVersion(f.target, oneOf: serves, dist: dist, server: server, moment, file: file, line: line)
        let again = try f.stationdb(["deploy", dist, target] + options)
        XCTAssertEqual(again.status, 0, "\(moment), then deploy: \(again.err)", file: file, line: line)
        try f.assertDeployed(dist, to: f.target, "\(moment), then deploy", file: file, line: line)
        try f.assertServesWholeVersion(f.target, oneOf: [3], dist: dist, server: server, "\(moment), then deploy", file: file, line: line)
    }

    /// The large registry.csv files in the target's staging folders, partly written: the Swift
    /// copy's (under its name) and rsync's temporary ones (`.registry.csv.XXXXXX`).
    static func partialRegistries(in target: String) throws -> [(name: String, bytes: Int)] {
        var out: [(name: String, bytes: Int)] = []
        for staging in DeployFixture.leftovers(in: target) where staging.hasPrefix(Deployment.stagingPrefix) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: target + "/" + staging)) ?? []
            where name == DistLayout.registry || name.hasPrefix("." + DistLayout.registry + ".") {
                var info = stat()
                guard stat(target + "/" + staging + "/" + name, &info) == 0 else { continue }
                let bytes = Int(info.st_size)
                if bytes > 0 && bytes < largeRegistryBytes { out.append((name.hasPrefix(".") ? "." + DistLayout.registry + ".*" : name, bytes)) }
            }
        }
        return out
    }

    /// Waits until rsync's temporary file of the large registry.csv holds data (true), or
    /// the deploy ends first (false). The 5 minutes only keep a hung deploy from hanging the test.
    func waitForPartialRegistry(of deploy: GroupProcess) -> Bool {
        let deadline = Date().addingTimeInterval(300)
        while Date() < deadline && !deploy.hasEnded {
            if let partial = try? Self.partialRegistries(in: f.target), partial.contains(where: { $0.name.hasPrefix(".") }) { return true }
            usleep(1_000)
        }
        return false
    }

    /// Makes version `version`'s registry.csv `bytes` long (its own lines again and again)
    /// and its manifest.json say so: a consistent dist with one large file.
    static func enlargeRegistry(of dist: String, version: Int, bytes: Int) throws {
        let folder = "\(dist)/\(version)", registry = folder + "/" + DistLayout.registry
        let lines = try Data(contentsOf: URL(fileURLWithPath: registry))
        let body = lines.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).dropFirst()
            .map { Data($0) + Data("\n".utf8) }.reduce(Data(), +)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: registry))
        try handle.seekToEnd()
        var size = lines.count
        while size < bytes {
            try handle.write(contentsOf: body)
            size += body.count
        }
        try handle.close()
        var manifest = try PublishedBundle.read(path: folder + "/" + DistLayout.manifest)
        manifest.files?[DistLayout.registry] = try SHA256.hex(fileAt: registry)
        try Data(try manifest.json()).write(to: URL(fileURLWithPath: folder + "/" + DistLayout.manifest))
    }
}

extension DeployFixture {
    func stationdb(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
        try Self.runStationDB(arguments, environment: environment, in: folder)
    }
}
