import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// What `make` ships: the binary its own rule builds (no BIN=, `.build/release/stationdb`, the
/// one `make test` builds the tests beside), held to the pipeline these tests call in process.
/// The optimizer once broke the shipped binary alone (a task-local event sink crashed it on
/// its first event): the README's main job, then what the nightly does after it.
final class ShippedBinaryTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("shipped-\(UUID().uuidString)").path
        for side in ["make", "library"] { try Files.createFolder(folder + "/" + side) }
        try FileManager.default.copyItem(atPath: RepositoryData.raw, toPath: folder + "/make/raw")
        try FileManager.default.copyItem(atPath: RepositoryData.raw, toPath: folder + "/library/raw")
    }

    override func tearDown() { Files.remove(folder) }

    /// `make TARGET...` as a user runs it in a clone: the Makefile's own binary, RAW, BUILD and DIST under `make/`.
    func make(_ arguments: String...) throws -> TimedRun {
        let make = try BuiltTools.required("make", debianPackage: "make")
        let root = folder + "/make"
        let environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"].contains($0.key) }
        return try runWithTimeout(make, ["-s", "-f", RepositoryData.root + "/Makefile", "RAW=\(root)/raw", "BUILD=\(root)/build", "DIST=\(root)/dist"] + arguments,
                                  in: root, environment: environment, timeout: 600)
    }

    func testWhatMakeShipsPublishesWhatThePipelineDoes() async throws {
        let published = try make()
        XCTAssertEqual(published.status, 0, published.err)
        XCTAssertFalse(published.err.isEmpty, "the events reach the command's stderr")

        let library = folder + "/library"
        let report = try await Pipeline(PublishSettings(raw: library + "/raw", build: library + "/build", dist: library + "/dist")).publish()
        XCTAssertEqual(report.version, 1)
        // latest.json.inputs names the binary that made the version; every file the apps and
        // the maintainer read is the same.
        let inputs = "latest.json.inputs"
        let shipped = try folderDigests(folder + "/make/dist").filter { $0.key != inputs }
        XCTAssertEqual(shipped, try folderDigests(library + "/dist").filter { $0.key != inputs })
        XCTAssertEqual(shipped["1/stations.sqlite"]?.isEmpty, false)

        let plan = try make("plan")
        XCTAssertEqual(plan.status, 0, plan.err)
        let target = folder + "/site"
        try Files.createFolder(target)
        let deployed = try make("deploy", "TARGET=\(target)")
        XCTAssertEqual(deployed.status, 0, deployed.err)
        XCTAssertEqual(try folderDigests(target + "/1"), try folderDigests(folder + "/make/dist/1"))
    }
}
