import BuildDB
import Publishing
import Synchronization
import StationCore
import Foundation
import TestSupport
import XCTest

/// raw/registry.csv is the memory of every s_id published. A run never says "nothing
/// changed" while it lags the published version, and never writes it anywhere but into the
/// raw/ it read (issue 50).
final class RegistryLagTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var dist: String { folder + "/dist" }

    override func setUp() async throws { folder = try await IdentityGuardTests.copyOfVersion1("registry-lag") }

    override func tearDown() { Files.remove(folder) }
    override class func tearDown() { IdentityGuardTests.removePublished() }

    func pipeline() -> Pipeline { Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist)) }

    /// 函館 renamed 函館港: version 2's registry differs from version 1's.
    func renameAStation() throws {
        let path = raw + "/station_database/station.csv"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        XCTAssertTrue(text.contains("\n1110101,1,函館,函館,"))
        try text.replacingOccurrences(of: "\n1110101,1,函館,函館,", with: "\n1110101,1,函館港,函館港,").write(toFile: path, atomically: true, encoding: .utf8)
    }

    func assertLags(_ run: () async throws -> Void, file: StaticString = #filePath, line: UInt = #line) async throws {
        do {
            try await run()
            XCTFail("said nothing changed while raw/registry.csv lags", file: file, line: line)
        } catch let e as StationError {
            XCTAssertEqual(e.kind, .publishedWithoutRegistry, "\(e)", file: file, line: line)
            XCTAssertEqual(e.exitStatus, .publishedWithoutRegistry, file: file, line: line)
        }
    }

    /// Version 2 published, then raw/registry.csv put back to version 1's (a checkout, a lost
    /// write): the publish says what the plan says, exit 5, naming the copy; nothing changes.
    func testARegistryPutBackIsSaidByPublishAsByPlan() async throws {
        let v1Registry = try Files.read(raw + "/registry.csv")
        try renameAStation()
        let second = try await pipeline().publish()
        XCTAssertEqual(second.outcome, .published)
        XCTAssertNotEqual(try Files.read(raw + "/registry.csv"), v1Registry)
        try Files.write(v1Registry, to: raw + "/registry.csv")
        let published = try folderDigests(dist)
        try await assertLags { _ = try await pipeline().plan() }
        try await assertLags { _ = try await pipeline().publish() }
        XCTAssertEqual(try folderDigests(dist), published)
        XCTAssertEqual(try Files.read(raw + "/registry.csv"), v1Registry, "left for the maintainer to restore and commit")
        try Files.write(try Files.read(dist + "/2/registry.csv"), to: raw + "/registry.csv")
        let mended = try await pipeline().publish()
        XCTAssertEqual(mended.outcome, .unchanged)
    }

    /// raw/ replaced while the run waits for dist/.lock (a checkout made again): the run reads
    /// the new raw/, and it is the one it writes, here the registry it restores.
    func testRawReplacedWhileTheRunWaitsIsTheOneItWrites() async throws {
        let held = Mutex<FileLock?>(try DistLock.acquire(dist: dist, wait: false))
        let (raw, old) = (raw, folder + "/raw-old")
        let report = try await Events.sending(to: { event in
            guard event is WaitingForLock else { return }
            _ = rename(raw, old)
            try? FileManager.default.copyItem(atPath: old, toPath: raw)
            unlink(raw + "/registry.csv")
            held.withLock { $0 = nil }
        }) { try await self.pipeline().publish() }
        XCTAssertEqual(report.outcome, .unchanged)
        XCTAssertEqual(try Files.read(raw + "/registry.csv"), try Files.read(dist + "/1/registry.csv"), "restored into the raw/ the run read")
    }

    /// raw/ moved away once the version is published, before the registry is written: the run
    /// makes no raw/ of its own, fails with exit 5 naming the copy, and the moved raw/ keeps
    /// its registry; put back, every run says it lags until the copy is there.
    func testRawMovedMidRunMakesNoRawAndIsSaid() async throws {
        let v1Registry = try Files.read(raw + "/registry.csv")
        try renameAStation()
        let moved = folder + "/raw-moved"
        let (from, to) = (raw, moved)
        do {
            _ = try await Events.sending(to: { event in
                if case .published? = event as? PublishEvent { _ = rename(from, to) }
            }) { try await self.pipeline().publish() }
            XCTFail("the registry was written somewhere")
        } catch let e as StationError {
            XCTAssertEqual(e.kind, .publishedWithoutRegistry, "\(e)")
        }
        XCTAssertFalse(Files.exists(raw), "no raw/ made by the run")
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 2)
        XCTAssertEqual(try Files.read(moved + "/registry.csv"), v1Registry)
        XCTAssertEqual(rename(moved, raw), 0)
        try await assertLags { _ = try await pipeline().publish() }
    }
}
