import Foundation
import StationCore
import TestSupport
import XCTest

/// `make deploy TARGET=...` as a maintainer runs it after `make`, with the project's
/// Makefile and the stationdb built with these tests (BIN=), then the apps' client
/// reading the target folder over HTTP.
final class MakeDeployTests: XCTestCase {
    var f: DeployFixture!

    override func setUpWithError() throws { f = try DeployFixture() }
    override func tearDown() { f?.remove() }

    static let root = RepositoryData.root

    func make(_ arguments: String..., dist: String) throws -> DeployFixture.Run {
        let make = try BuiltTools.required("make", debianPackage: "make")
        return try DeployFixture.run(make, ["-f", Self.root + "/Makefile", "BIN=\(try BuiltTools.stationdb())", "DIST=\(dist)"] + arguments, in: f.folder)
    }

    func testMakeDeployThenPullBringsAClientToTheNewestVersion() throws {
        let dist = try f.dist(\.atVersion1, as: "dist")
        var run = try make("deploy", "TARGET=\(f.target)", dist: dist)
        XCTAssertEqual(run.status, 0, run.err)
        try FileManager.default.createDirectory(atPath: f.target, withIntermediateDirectories: true)
        let server = try StaticServer(root: f.target)
        let app = f.folder + "/app/stations.sqlite"
        var pull = try f.stationdb("pull", server.baseURL, "--db", app)
        XCTAssertEqual(pull.status, 0, pull.err)
        XCTAssertEqual(try DeployFixture.userVersion(app), 1)

        // The nightly make published versions 2 and 3 since.
        try FileManager.default.removeItem(atPath: dist)
        try FileManager.default.copyItem(atPath: try PublishedDists.shared().atVersion3, toPath: dist)
        run = try make("deploy", "TARGET=\(f.target)", "CHECK=\(server.baseURL)", dist: dist)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("checked \(server.baseURL) as the apps read it: version 3"), run.err)
        pull = try f.stationdb("pull", server.baseURL, "--db", app)
        XCTAssertEqual(pull.status, 0, pull.err)
        XCTAssertTrue(pull.err.contains("version 3"), pull.err)
        XCTAssertEqual(try DeployFixture.userVersion(app), 3)

        run = try make("deploy", "TARGET=\(f.target)", "DRY_RUN=1", dist: dist)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.out.contains("there 3/"), run.out)
    }

    func testMakeDeployFailuresSayWhatHappened() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        var run = try make("deploy", dist: v3)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("usage: make deploy TARGET="), run.err)

        XCTAssertEqual(try make("deploy", "TARGET=\(f.target)", dist: v3).status, 0)
        run = try make("deploy", "TARGET=\(f.target)", dist: v1)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("names version 3, above the dist's 1"), run.err)
        XCTAssertTrue(run.err.contains("make: deploy refused (exit 2 from stationdb)"), run.err)

        try FileManager.default.createDirectory(atPath: f.folder + "/empty", withIntermediateDirectories: true)
        let elsewhere = try StaticServer(root: f.folder + "/empty")
        run = try make("deploy", "TARGET=\(f.target)", "CHECK=\(elsewhere.baseURL)", dist: v3)
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("make: deploy failed (exit 3 from stationdb)"), run.err)

        // A TARGET (or DIST) that looks like an option is bad input, never help, a version or success.
        for target in ["--help", "--version", "-x"] {
            run = try make("deploy", "TARGET=\(target)", dist: v3)
            XCTAssertEqual(run.status, 2, "\(target): \(run.out)\(run.err)")
            XCTAssertTrue(run.err.contains("make: deploy refused (exit 2 from stationdb)"), run.err)
        }
        run = try make("deploy", "TARGET=\(f.target)", "CHECK=--help", dist: v3)
        XCTAssertEqual(run.status, 2, run.out + run.err)

        run = try make("help", dist: v3)
        XCTAssertTrue(run.out.contains("make deploy TARGET="), run.out)
    }
}
