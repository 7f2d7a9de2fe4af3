import BuildDB
import StationCore
import Foundation
import XCTest

final class DiffGuardsTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    /// 50 live stations, 50 disabled ones (s_id 51...100); NEW removes, disables,
    /// moves and re-weights chosen ones.
    func summary(removed: Int = 0, disabled: Int = 0, reweighted: Int = 0, moveMicroDegrees: Int = 0) throws -> DiffSummary {
        let dir = try DiffFixtures.folder()
        let base = ["INSERT INTO operators VALUES (1, 'JR', 1, 1)", "INSERT INTO lines VALUES (10, 'L', 1, 1, NULL)"]
        func stations(_ transform: (Int) -> String?) -> [String] { (1...100).compactMap(transform) }
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: base + stations {
            DiffFixtures.station($0, "S\($0)", enabled: $0 <= 50 ? 1 : 0, weight: 11)
        })
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: base + stations { id in
            if id <= removed { return nil }                        // 1...removed go
            let live = id <= 50 && !(id > 50 - disabled)           // the last `disabled` live ones are switched off
            let weight = (id > removed && id <= removed + reweighted) ? 12 : 11
            let lat = 35_700_000 + (id == 100 ? moveMicroDegrees : 0)   // a disabled station moves: moves count all
            return DiffFixtures.station(id, "S\(id)", lat: lat, enabled: live ? 1 : 0, weight: weight)
        })
        return try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite").summary
    }

    func testRemovedIsStationsRemovedOverOldStations() throws {
        let s = try summary(removed: 3)
        XCTAssertEqual(s.removedPercent, 3, accuracy: 1e-9)
        XCTAssertEqual(DiffGuards(maxRemovedPercent: 3).violations(of: s), [], "at the limit is not over it")
        XCTAssertEqual(DiffGuards(maxRemovedPercent: 2.9).violations(of: s),
                       ["3 of 100 stations removed (3.00%), more than the limit of 2.90% (--max-removed)"])
    }

    func testDisabledIsEnabledToDisabledOverOldEnabled() throws {
        let s = try summary(disabled: 2)
        XCTAssertEqual([s.stationsDisabled, s.oldEnabledStations], [2, 50])
        XCTAssertEqual(s.disabledPercent, 4, accuracy: 1e-9)
        XCTAssertEqual(DiffGuards(maxDisabledPercent: 4).violations(of: s), [])
        XCTAssertEqual(DiffGuards(maxDisabledPercent: 3.5).violations(of: s),
                       ["2 of 50 enabled stations disabled (4.00%), more than the limit of 3.50% (--max-disabled)"])
        XCTAssertEqual(DiffGuards(maxRemovedPercent: 0, maxMovedMetres: 0, maxWeightChurnPercent: 0).violations(of: s), [],
                       "disabling is not removing, moving or re-weighting")
    }

    func testMovedIsAnyStationFurtherThanTheLimit() throws {
        let s = try summary(moveMicroDegrees: 10_000)   // 0.01 degrees of latitude: about 1,112 m
        XCTAssertEqual(s.moves.count, 1)
        XCTAssertEqual(s.furthestMove?.metres ?? 0, 1_111.95, accuracy: 0.5)
        XCTAssertEqual(DiffGuards(maxMovedMetres: 1_200).violations(of: s), [])
        XCTAssertEqual(DiffGuards(maxMovedMetres: 1_000).violations(of: s),
                       ["1 station moved further than 1000.0 m (--max-moved-m): s_id 100 S100 1112.0 m"])
    }

    func testWeightChurnIsLiveStationsReweightedOverLiveInBoth() throws {
        // 5 removed, then 6 re-weighted (s_id 6...11), 4 disabled (47...50): live in both = 50 - 5 - 4 = 41.
        let s = try summary(removed: 5, disabled: 4, reweighted: 6)
        XCTAssertEqual([s.liveInBoth, s.weightChurn], [41, 6])
        XCTAssertEqual(s.weightChurnPercent, 600.0 / 41, accuracy: 1e-9)
        XCTAssertEqual(s.weightTransitions, [.init(old: 11, new: 12, stations: 6)])
        XCTAssertEqual(DiffGuards(maxWeightChurnPercent: 15).violations(of: s), [])
        XCTAssertEqual(DiffGuards(maxWeightChurnPercent: 10).violations(of: s),
                       ["6 of 41 live stations changed weight (14.63%), more than the limit of 10.00% (--max-weight-churn)"])
        // All four at once, in a fixed order.
        let all = DiffGuards(maxRemovedPercent: 1, maxDisabledPercent: 1, maxMovedMetres: nil, maxWeightChurnPercent: 1).violations(of: s)
        XCTAssertEqual(all.compactMap { $0.split(separator: "(").last.map(String.init) }, ["--max-removed)", "--max-disabled)", "--max-weight-churn)"])
    }

    /// Every table the clients read is guarded: lines and operators switched off, station-line rows lost.
    func testLinesOperatorsAndStationLineRowsAreGuardedToo() throws {
        let dir = try DiffFixtures.folder()
        let operators = (1...50).map { "INSERT INTO operators VALUES (\($0), 'O\($0)', 1, 1)" }
        let lines = (1...50).map { "INSERT INTO lines VALUES (\($0), 'L\($0)', \($0), 1, NULL)" }
        let stations = (1...50).map { DiffFixtures.station($0, "S\($0)", operatorID: $0) }
        let rows = (1...50).map { "INSERT INTO stations_lines VALUES (\($0), \($0), 1)" }
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: operators + lines + stations + rows)
        // Two operators and two lines switched off; the master's stations_lines emptied but for 10 rows.
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: operators.map { $0.hasPrefix("INSERT INTO operators VALUES (1,") || $0.hasPrefix("INSERT INTO operators VALUES (2,") ? String($0.dropLast(2)) + "0)" : $0 }
                                + lines.map { $0.hasPrefix("INSERT INTO lines VALUES (3,") || $0.hasPrefix("INSERT INTO lines VALUES (4,") ? $0.replacingOccurrences(of: ", 1, NULL)", with: ", 0, NULL)") : $0 }
                                + stations + rows.prefix(10))
        let s = try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite").summary
        XCTAssertEqual([s.operatorsDisabled, s.oldEnabledOperators, s.linesDisabled, s.oldEnabledLines, s.stationLinesRemoved, s.oldStationLines],
                       [2, 50, 2, 50, 40, 50])
        XCTAssertEqual(DiffGuards.nightly.violations(of: s), [
            "2 of 50 enabled lines disabled (4.00%), more than the limit of 2.00% (--max-disabled)",
            "2 of 50 enabled operators disabled (4.00%), more than the limit of 2.00% (--max-disabled)",
            "40 of 50 stations_lines rows removed (80.00%), more than the limit of 5.00% (--max-line-rows-removed): the apps' line lists would lose them",
        ])
        XCTAssertEqual(DiffGuards(maxDisabledPercent: 4, maxLineRowsRemovedPercent: 80).violations(of: s), [], "at the limits is not over them")
    }

    func testEmptyBundlesAndNoLimits() throws {
        let dir = try DiffFixtures.folder()
        try DiffFixtures.bundle(dir + "/a.sqlite", version: 1, rows: [])
        try DiffFixtures.bundle(dir + "/b.sqlite", version: 2, rows: ["INSERT INTO operators VALUES (1, 'JR', 1, 1)"])
        let s = try DiffReport.make(oldPath: dir + "/a.sqlite", newPath: dir + "/b.sqlite").summary
        XCTAssertEqual([s.removedPercent, s.disabledPercent, s.weightChurnPercent], [0, 0, 0])
        XCTAssertEqual(DiffGuards.nightly.violations(of: s), [])
        XCTAssertTrue(DiffGuards.none.isEmpty)
        XCTAssertEqual(DiffGuards.none.violations(of: try summary(removed: 50, disabled: 0, reweighted: 10, moveMicroDegrees: 1_000_000)), [])
        XCTAssertEqual(DiffGuards.nightly, DiffGuards(maxRemovedPercent: 2, maxDisabledPercent: 2, maxLineRowsRemovedPercent: 5,
                                                      maxMovedMetres: 5_000, maxWeightChurnPercent: 10, maxRenamedPercent: 2, maxMovedFarPercent: 2))
    }
}
