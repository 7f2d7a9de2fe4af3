import BuildDB
import StationCore
import Foundation
import TestSupport
import XCTest

/// `stationdb diff` on two national bundles: the same keyed rows as sqldiff, a patch
/// that turns one into the other, and the pair bench/diff times.
final class NationalDiffTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    /// Two published national versions; the second with a season's worth of edits
    /// (renamed, moved, closed, opened, disabled, re-weighted, re-sorted).
    static func nationalPair() async throws -> (dist: String, old: String, new: String) {
        let network = try await Fixtures.nationalNetwork()
        let dist = try Fixtures.temporaryFolder()
        try await Fixtures.publish(network, dist: dist)
        var next = network
        for i in stride(from: 0, to: next.stations.count, by: 97) { next.stations[i].name += "（新）" }
        for i in stride(from: 5, to: next.stations.count, by: 211) { next.stations[i].lat += 123 }
        for i in stride(from: 7, to: next.stations.count, by: 503) { next.stations[i].enabled = false }
        // Renumbered: the only way a published s_id leaves (its rows are deleted, its successor's inserted).
        let renumbered = Set(next.stations.enumerated().filter { $0.offset % 389 == 3 }.map(\.element.id))
        let renumberings = Fixtures.renumber(renumbered, in: &next, from: 98_000_000, version: 2)
        for i in stride(from: 1, to: next.stationLines.count, by: 50) { next.stationLines[i].sort += 1000 }
        for i in stride(from: 3, to: next.lines.count, by: 60) { next.lines[i].name += " (改)" }
        next.stations.append(Station(id: 99_000_001, name: "高輪ゲートウェイ", yomi: "たかなわげーとうぇい", wiki: "高輪ゲートウェイ駅", pref: 13,
                                     address: "東京都港区港南二丁目", lat: 35_635_500, lng: 139_740_800, operatorID: next.operators[0].id))
        var weights = Fixtures.weights(for: next)
        for id in next.stations.prefix(300).map(\.id) { weights[id] = 13 }
        var request = Fixtures.request(next, dist: dist, weights: weights, renumberings: renumberings)
        request.force = true
        _ = try Fixtures.published(try await publish(request), dist: dist)
        return (dist, dist + "/1/stations.sqlite", dist + "/2/stations.sqlite")
    }

    func testNationalDiffAgreesWithSqldiffAndPatches() async throws {
        let (dist, old, new) = try await Self.nationalPair()
        let report = try DiffReport.make(old: try BundleLocation.resolve(dist + "/1"), new: try BundleLocation.resolve(dist))
        let d = report.difference
        XCTAssertEqual([d.oldVersion, d.newVersion], [1, 2])
        XCTAssertGreaterThan(d["stations"]!.changed.count, 100)
        XCTAssertGreaterThan(report.summary.stationsDisabled, 10)
        XCTAssertEqual(report.summary.moves.count, report.summary.moves.filter { $0.metres < 20 }.count, "123 micro-degrees is under 20 m")
        XCTAssertEqual(DiffGuards.nightly.violations(of: report.summary), [], "an ordinary season's edits pass the nightly guards")

        // Applying the sql format to OLD gives NEW.
        let patched = (dist as NSString).appendingPathComponent("patched.sqlite")
        try FileManager.default.copyItem(atPath: old, toPath: patched)
        try AndroidPatchRunner.apply(sql: report.sql(), to: SQLiteDatabase(path: patched, mode: .readWrite))
        XCTAssertTrue(try BundleDifference.between(oldPath: patched, newPath: new).isEmpty)

        if let keep = ProcessInfo.processInfo.environment["STATIONDB_DIFF_BENCH_DIR"] {
            // bench/diff times `stationdb diff` against sqldiff on this pair.
            try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            try Fixtures.copy(old, to: keep + "/old.sqlite")
            try Fixtures.copy(new, to: keep + "/new.sqlite")
        }

        let sqldiff = try BuiltTools.sqldiff()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: sqldiff)
        p.arguments = [old, new]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        for table in ["operators", "lines", "stations"] {
            var inserted = Set<Int>(), updated = Set<Int>(), deleted = Set<Int>()
            func integer(after marker: String, in line: Substring) -> Int? {
                line.range(of: marker, options: .backwards).flatMap { Int(line[$0.upperBound...].prefix { $0 == "-" || $0.isNumber }) }
            }
            for line in output.split(separator: "\n") {
                if line.hasPrefix("INSERT INTO \(table)(") { if let id = integer(after: "VALUES(", in: line) { inserted.insert(id) } }
                if line.hasPrefix("UPDATE \(table) ") { if let id = integer(after: " WHERE \(d[table]!.shape.key[0])=", in: line) { updated.insert(id) } }
                if line.hasPrefix("DELETE FROM \(table) ") { if let id = integer(after: "=", in: line) { deleted.insert(id) } }
            }
            let t = d[table]!
            XCTAssertEqual(Set(t.added.map { $0[0].intValue! }), inserted, table)
            XCTAssertEqual(Set(t.removed.map { $0[0].intValue! }), deleted, table)
            XCTAssertEqual(Set(t.changed.map { $0.key[0].intValue! }), updated, table)
            XCTAssertFalse(inserted.isEmpty && updated.isEmpty && deleted.isEmpty && table != "operators", table)
        }
    }
}
