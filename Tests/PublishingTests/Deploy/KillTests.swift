import Foundation
import StationCore
import TestSupport
import XCTest

/// A deploy killed at any moment (SIGKILL: no handler runs) leaves a target whose
/// latest.json names version 1 (the old one) or 3 (the new one), every file of it
/// whole, and an app starting then gets that version; the next deploy completes the
/// job and removes what the killed one left.
///
/// Two ways to pick the moment: STATIONDB_DEPLOY_KILL_AT makes stationdb kill itself
/// at a named moment (every step, deterministically), and a timer kills the whole
/// process group (stationdb with its rsync and ssh) at several delays into a copy
/// of a large file.
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

    /// The timer's kills: the deploy (and its rsync) killed at several delays after it
    /// says it is copying version 3, whose registry is made large enough (64 MB) for
    /// the copy to take a while. The delays are fractions of the time a whole copy
    /// takes on this machine, measured first, so that they fall during the copy
    /// however fast or loaded the machine is.
    func testKilledAtDelaysDuringALargeCopy() throws {
        let dist = try f.dist(\.atVersion3, as: "large")
        try Self.enlargeRegistry(of: dist, version: 3, bytes: 64 << 20)
        let ssh = try f.fakeSSH()
        for (label, target, options) in [("local copy", f.target, [String]()), ("rsync", f.target, ["--rsync"]),
                                         ("rsync over ssh", "deploy-host:" + f.target, ["--rsh", ssh.command])] {
            // The copy's time as the kills below meet it: the second of two, with the files cached.
            var copyTime = 0.0
            for _ in 1...2 {
                try f.resetTarget(to: atVersion1)
                let whole = try GroupProcess(try BuiltTools.stationdb(), ["deploy", dist, target] + options)
                XCTAssertTrue(whole.waitFor("copying version 3"), "\(label): \(whole.err)")
                let start = Date()
                XCTAssertEqual(whole.waitForExit(), 0, "\(label): \(whole.err)")
                copyTime = Date().timeIntervalSince(start)
            }

            var killedMidCopy = 0
            // Within the first half of the copy as last timed: a copy with its files cached by the
            // runs before it may take half that time (rsync over ssh took 1.2 s, then outran 0.45 and 0.6).
            for fraction in [0.0, 0.1, 0.2, 0.3, 0.4] {
                try f.resetTarget(to: atVersion1)
                let moment = "\(label), killed \(fraction) of \(copyTime) s into version 3"
                let deploy = try GroupProcess(try BuiltTools.stationdb(), ["deploy", dist, target] + options)
                XCTAssertTrue(deploy.waitFor("copying version 3"), "\(moment): \(deploy.err)")
                if fraction > 0 { usleep(UInt32(fraction * copyTime * 1_000_000)) }
                if deploy.killGroup(), !DeployFixture.leftovers(in: f.target).isEmpty { killedMidCopy += 1 }
                try f.assertServesWholeVersion(f.target, oneOf: [1, 3], dist: dist, server: server, moment)

                let again = try f.stationdb(["deploy", dist, target] + options)
                XCTAssertEqual(again.status, 0, "\(moment), then deploy: \(again.err)")
                try f.assertDeployed(dist, to: f.target, "\(moment), then deploy")
            }
            // Most kills land mid-copy (a staging folder left); a copy that outran every
            // kill would leave the invariants above untested, and fails here instead.
            XCTAssertGreaterThanOrEqual(killedMidCopy, 3, "\(label): too few of the kills landed during the copy (\(copyTime) s)")
        }
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
