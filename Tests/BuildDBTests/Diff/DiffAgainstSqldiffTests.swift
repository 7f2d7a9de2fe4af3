import BuildDB
import StationCore
import Foundation
import XCTest

/// For the tables with a primary key, our added/removed/changed rows are exactly what
/// sqldiff inserts/deletes/updates; for stations_lines (no primary key, so sqldiff
/// goes by rowid) we report only real changes.
final class DiffAgainstSqldiffTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    static let keyedTables = ["operators", "lines", "stations"]

    func assertSameKeysAsSqldiff(_ old: String, _ new: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let sqldiff = try DiffFixtures.sqldiff()
        let result = try DiffFixtures.run(sqldiff, [old, new])
        XCTAssertEqual(result.status, 0, result.err, file: file, line: line)
        let d = try DiffReport.make(oldPath: old, newPath: new).difference
        // Both finding nothing would agree and prove nothing: the pairs compared always differ.
        XCTAssertFalse(Self.keyedTables.allSatisfy { d[$0]?.rowChangeCount == 0 }, "no keyed row differs: the comparison checks nothing",
                       file: file, line: line)
        XCTAssertFalse(result.out.isEmpty, "sqldiff found no difference: the comparison checks nothing", file: file, line: line)
        for table in Self.keyedTables {
            let theirs = DiffFixtures.sqldiffKeys(result.out, table: table)
            let t = try XCTUnwrap(d[table])
            func keys(_ rows: [[SQLValue]]) -> Set<Int64> {
                Set(rows.map { row -> Int64 in if case .integer(let k) = t.shape.key(of: row)[0] { return k } else { return -1 } })
            }
            XCTAssertEqual(keys(t.added), theirs.inserted, "\(table) added", file: file, line: line)
            XCTAssertEqual(keys(t.removed), theirs.deleted, "\(table) removed", file: file, line: line)
            XCTAssertEqual(keys(t.changed.map(\.new)), theirs.updated, "\(table) changed", file: file, line: line)
        }
    }

    func testHandMadePairMatchesSqldiff() throws {
        let (old, new) = try DiffFixtures.formatsPair(in: try DiffFixtures.folder())
        try assertSameKeysAsSqldiff(old, new)
        try assertSameKeysAsSqldiff(new, old)
    }

    func testEveryKindOfChangeMatchesSqldiff() throws {
        // OLD lacks renumbered_stations and has completions: sqldiff reports those
        // tables too, which is fine: only the keyed bundle tables are compared.
        let (old, new) = try DiffFixtures.everyKindOfChange(in: try DiffFixtures.folder())
        try assertSameKeysAsSqldiff(old, new)
    }

    /// A few thousand rows changed by a fixed pseudo-random walk: every column of every
    /// keyed table gets touched somewhere.
    func testGeneratedPairMatchesSqldiff() throws {
        let dir = try DiffFixtures.folder()
        var seed: UInt64 = 20240401
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        func rows(_ version: Int, mutate: Bool) -> [String] {
            var out: [String] = []
            for o in 1...30 where !(mutate && o % 7 == 0) {
                let name = mutate && o % 5 == 0 ? "Operator \(o) 改" : "Operator \(o)"
                out.append("INSERT INTO operators VALUES (\(o), '\(name)', \(1 + o % 5), \(mutate && o == 11 ? 0 : 1))")
            }
            if mutate { out.append("INSERT INTO operators VALUES (31, 'Newcomer', 5, 1)") }
            for l in 1...200 where !(mutate && l % 41 == 0) {
                let type = mutate && l % 13 == 0 ? "1" : "NULL"
                out.append("INSERT INTO lines VALUES (\(l), 'Line \(l)', \(1 + l % 30), 1, \(type))")
            }
            for s in 1...3_000 {
                var lat = 35_000_000 + s * 97, lng = 139_000_000 + s * 31, weight = 11 + s % 3, enabled = 1, name = "Station \(s)"
                if mutate {
                    switch next(40) {
                    case 0: continue                                  // removed
                    case 1: lat += next(2_000) + 1
                    case 2: lng -= next(2_000) + 1
                    case 3: weight = 11 + (weight - 10) % 3
                    case 4: enabled = 0
                    case 5: name += "（仮）"
                    default: break
                    }
                }
                out.append(DiffFixtures.station(s, name, lat: lat, lng: lng, operatorID: 1 + s % 30, enabled: enabled, weight: weight))
            }
            if mutate { for s in 5_000..<5_050 { out.append(DiffFixtures.station(s, "Added \(s)")) } }
            return out
        }
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: rows(1, mutate: false))
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: rows(2, mutate: true))
        let d = try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite").difference
        XCTAssertGreaterThan(d["stations"]!.rowChangeCount, 300)
        XCTAssertFalse(d["operators"]!.added.isEmpty || d["operators"]!.removed.isEmpty || d["operators"]!.changed.isEmpty)
        XCTAssertFalse(d["lines"]!.removed.isEmpty || d["lines"]!.changed.isEmpty)
        try assertSameKeysAsSqldiff(dir + "/a.sqlite", dir + "/b.sqlite")
    }

    /// The same stations_lines rows inserted in another order: sqldiff sees rowid
    /// changes, we see nothing.
    func testStationsLinesInAnotherOrderIsNoDifference() throws {
        let dir = try DiffFixtures.folder()
        let base = ["INSERT INTO operators VALUES (1, 'JR', 1, 1)", "INSERT INTO lines VALUES (10, 'A', 1, 1, NULL), (20, 'B', 1, 1, NULL)",
                    DiffFixtures.station(100, "X"), DiffFixtures.station(101, "Y"), DiffFixtures.station(102, "Z")]
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: base + ["INSERT INTO stations_lines VALUES (10, 100, 1), (10, 101, 2), (20, 101, 1), (20, 102, 2)"])
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: base + ["INSERT INTO stations_lines VALUES (20, 102, 2), (10, 101, 2), (20, 101, 1), (10, 100, 1)"])
        let report = try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite")
        XCTAssertTrue(report.difference.isEmpty)
        XCTAssertEqual(report.sql(), "PRAGMA user_version = 2;\n")

        let theirs = try DiffFixtures.run(try DiffFixtures.sqldiff(), [dir + "/a.sqlite", dir + "/b.sqlite"])
        XCTAssertTrue(theirs.out.contains("stations_lines"), "sqldiff compares by rowid: \(theirs.out)")
    }
}
