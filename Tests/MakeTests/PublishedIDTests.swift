import Foundation
import XCTest

/// An s_id once published keeps its meaning: a registry damaged by a bad merge
/// (a line deleted, a key edited away) stops the publish, naming the ID.
final class PublishedIDTests: XCTestCase {
    func testDamagedRegistryPublishesNothing() throws {
        let f = try MakeFixture(copyingRaw: MakeFixture.root + "/raw")
        defer { f.remove() }
        var run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        let published = try MakeFixture.snapshot(f.dist)
        XCTAssertNotNil(published["1/registry.csv"], "the version keeps the registry it was made with")
        let registry = try String(contentsOfFile: f.raw + "/registry.csv", encoding: .utf8)
        let tokyo = try XCTUnwrap(registry.split(separator: "\n").first { $0.hasPrefix("station,1273,") })

        // A line deleted: the station would come back under a new s_id.
        try registry.replacingOccurrences(of: tokyo + "\n", with: "").write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("registry.csv: s_id 1273: station 1273 (東京), published in version 1, is missing from this build"), run.err)
        XCTAssertTrue(run.lastMessage.contains("exit 2 from stationdb"), run.lastMessage)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)

        // Its keys edited away: the station would get a new s_id while 1273 stays, disabled.
        let fields = tokyo.split(separator: ",", omittingEmptySubsequences: false)
        let edited = (fields[0..<2] + ["code:9999999"] + fields[3...]).joined(separator: ",")
        try registry.replacingOccurrences(of: tokyo, with: edited).write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 2)
        XCTAssertTrue(run.err.contains("station 1273 (東京) had the key code:1130101 in version 1 and no longer has it"), run.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)

        // Restored from version control: nothing to publish.
        try registry.write(toFile: f.raw + "/registry.csv", atomically: true, encoding: .utf8)
        run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try f.latestVersion(), 1)
    }
}
