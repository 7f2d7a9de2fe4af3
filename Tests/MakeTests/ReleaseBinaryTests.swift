import Foundation
import StationCore
import TestSupport
import XCTest

/// The binary `make` itself runs: the optimized, statically linked release build. The
/// other tests run the debug build; the optimizer once broke the release binary alone
/// (a task-local event sink crashed it on its first event), so `make test` builds the
/// release binary first and names it here (STATIONDB_RELEASE_BIN).
final class ReleaseBinaryTests: XCTestCase {
    var folders: [String] = []

    override func tearDown() {
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
        folders = []
    }

    func release() throws -> String {
        guard let path = ProcessInfo.processInfo.environment["STATIONDB_RELEASE_BIN"] else {
            throw BuiltTools.FixtureFailure("STATIONDB_RELEASE_BIN is not set: run `make test`, which builds the release binary and names it there "
                                            + "(or set it to .build/release/stationdb after `make`)")
        }
        return path
    }

    func fixture(binary: String?) throws -> MakeFixture {
        var f = try MakeFixture(copyingRaw: RepositoryData.raw)
        f.binary = binary
        folders.append(f.folder)
        return f
    }

    /// README's main job on the default raw/, then what the nightly does after it: the
    /// release binary publishes the very bytes the debug one does, a plan finds nothing
    /// to publish, and a deploy copies the version into a folder.
    func testTheReleaseBinaryRunsTheMainJobAsTheDebugOneDoes() throws {
        let f = try fixture(binary: try release())
        let published = try f.make()
        XCTAssertEqual(published.status, 0, published.err)
        XCTAssertEqual(try f.latestVersion(), 1)
        XCTAssertFalse(published.err.isEmpty, "the events reach the command's stderr")

        let debug = try fixture(binary: nil)
        let debugPublished = try debug.make()
        XCTAssertEqual(debugPublished.status, 0, debugPublished.err)
        // latest.json.inputs names the binary that made the version (another binary makes it
        // again); every file the apps and the maintainer read is the same.
        let inputs = "latest.json.inputs"
        XCTAssertEqual(try MakeFixture.snapshot(f.dist).filter { $0.key != inputs },
                       try MakeFixture.snapshot(debug.dist).filter { $0.key != inputs })

        let plan = try f.make("plan")
        XCTAssertEqual(plan.status, 0, plan.err)

        let target = f.folder + "/site"
        try Files.createFolder(target)
        let deployed = try f.make("deploy", "TARGET=\(target)")
        XCTAssertEqual(deployed.status, 0, deployed.err)
        XCTAssertEqual(try MakeFixture.snapshot(target + "/1"), try MakeFixture.snapshot(f.dist + "/1"))
    }
}
