import Foundation
import StationCore
import TestSupport
import XCTest

/// The rsync path: into a local folder (`--rsync`, rsync's local mode and deploy's
/// commands through sh), and as `host:path` through a stand-in for ssh that runs
/// what ssh would run on the host here, so the whole remote code path (rsync -e,
/// the listing, sha256sum, mv) runs without an ssh server.
final class RsyncDeployTests: XCTestCase {
    var f: DeployFixture!

    override func setUpWithError() throws {
        f = try DeployFixture()
        _ = try BuiltTools.required("rsync", debianPackage: "rsync")
    }

    override func tearDown() { f?.remove() }

    func testRsyncIntoALocalFolder() throws {
        try deployTwiceThenRefuse(target: f.target, options: ["--rsync"])
    }

    /// The served folder's name has a space and a quote, which every remote command must keep.
    func testHostPathThroughAStandInForSSH() throws {
        let ssh = try f.fakeSSH()
        let folder = f.folder + "/web root's"
        try deployTwiceThenRefuse(target: "deploy-host:" + folder, served: folder, options: ["--rsh", ssh.command])
        let log = try String(contentsOfFile: ssh.log, encoding: .utf8)
        XCTAssertTrue(log.contains("deploy-host rsync --server"), log)
        XCTAssertTrue(log.contains("deploy-host cd -- '\(f.folder)/web root'\\''s' && sha256sum -- "), log)
        XCTAssertFalse(log.contains("--delete"), log)
    }

    func testAnUnreachableHostIsAnIOFailure() throws {
        let rsh = f.folder + "/no-route"
        try "#!/bin/sh\necho 'ssh: connect to host web1 port 22: No route to host' >&2\nexit 255\n".write(toFile: rsh, atomically: true, encoding: .utf8)
        chmod(rsh, 0o755)
        let run = try f.stationdb("deploy", try PublishedDists.shared().atVersion3, "web1:/srv/www/stations", "--rsh", rsh)
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("cannot reach web1 with `\(rsh)`: ssh: connect to host web1 port 22: No route to host; check that"), run.err)
    }

    /// Deploys version 1, then 3, checks them over HTTP, deploys again (nothing copied), and
    /// has a differing folder and a lower version refused, all through `options`.
    func deployTwiceThenRefuse(target: String, served: String? = nil, options: [String]) throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        let folder = served ?? target
        var run = try f.stationdb(["deploy", v1, target] + options)
        XCTAssertEqual(run.status, 0, run.err)
        try f.assertDeployed(v1, to: folder, "version 1")
        let server = try StaticServer(root: folder)
        run = try f.stationdb(["deploy", v3, target, "--check", server.baseURL] + options)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("checked \(server.baseURL) as the apps read it: version 3"), run.err)
        XCTAssertTrue(run.err.contains("deploy: rsync: stations.sqlite.gz ("), run.err)
        try f.assertDeployed(v3, to: folder, "version 3")
        // Readable by a web server running as another user, whatever the umask.
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/3/stations.sqlite.gz")
        XCTAssertEqual((attributes[.posixPermissions] as? Int).map { $0 & 0o444 }, 0o444)
        let app = f.folder + "/app.sqlite"
        XCTAssertEqual(try f.stationdb("pull", server.baseURL, "--db", app).status, 0)
        XCTAssertEqual(try DeployFixture.userVersion(app), 3)

        let before = try DeployFixture.inodes(folder)
        run = try f.stationdb(["deploy", v3, target] + options)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("deploy: nothing to copy; \(target) is up to date (version 3)"), run.err)
        XCTAssertEqual(try DeployFixture.inodes(folder), before)

        run = try f.stationdb(["deploy", v1, target] + options)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("\(target)/latest.json: version: names version 3, above the dist's 1"), run.err)

        try "another summary\n".write(toFile: folder + "/2/summary.txt", atomically: true, encoding: .utf8)
        let changed = try DeployFixture.inodes(folder)
        run = try f.stationdb(["deploy", v3, target] + options)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("error: \(target)/2: differs from \(v3)/2 (summary.txt differs)"), run.err)
        XCTAssertEqual(try DeployFixture.inodes(folder), changed)
    }
}
