import BuildDB
import StationCore
import Foundation
import XCTest

/// `stationdb diff` as CI runs it: the built binary, its output and exit statuses.
final class DiffCommandTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    func testExitStatuses() throws {
        let stationdb = try DiffFixtures.stationdb()
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.formatsPair(in: dir)

        let same = try DiffFixtures.run(stationdb, ["diff", old, old])
        XCTAssertEqual(same.status, 0, same.err)
        XCTAssertTrue(same.out.contains("same contents"), same.out)

        let differ = try DiffFixtures.run(stationdb, ["diff", old, new])
        XCTAssertEqual(differ.status, 1, differ.err)
        XCTAssertEqual(differ.out, try DiffReport.make(oldPath: old, newPath: new).text(limit: 50))
        XCTAssertEqual(differ.err, "")

        let missing = try DiffFixtures.run(stationdb, ["diff", old, dir + "/nope.sqlite"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertEqual(missing.err, "error: \(dir)/nope.sqlite: no such file or folder\n")
        XCTAssertEqual(missing.out, "")

        let other = dir + "/other.sqlite"
        let db = try SQLiteDatabase(path: other, mode: .create)
        try db.execute("CREATE TABLE completions (s_id INTEGER PRIMARY KEY)")
        db.close()
        let notBundle = try DiffFixtures.run(stationdb, ["diff", other, new])
        XCTAssertEqual(notBundle.status, 2)
        XCTAssertTrue(notBundle.err.contains("not a station bundle: it has no table operators"), notBundle.err)

        let badFormat = try DiffFixtures.run(stationdb, ["diff", old, new, "--format", "xml"])
        XCTAssertEqual(badFormat.status, 2, "a usage error is an error")

        // A guard: the output first, then the reasons on stderr, exit 4 (over 1).
        let refused = try DiffFixtures.run(stationdb, ["diff", old, new, "--format", "json", "--max-moved-m", "100", "--max-removed", "60"])
        XCTAssertEqual(refused.status, 4, refused.err)
        XCTAssertEqual(refused.err, "refused: 1 station moved further than 100.0 m (--max-moved-m): s_id 100 東京 111.2 m\n")
        let document = try JSONSerialization.jsonObject(with: Data(refused.out.utf8)) as? [String: Any]
        XCTAssertEqual((document?["guard_violations"] as? [String])?.count, 1, refused.out)

        let passed = try DiffFixtures.run(stationdb, ["diff", old, new, "--max-moved-m", "200", "--max-removed", "50",
                                                      "--max-disabled", "0", "--max-weight-churn", "100"])
        XCTAssertEqual(passed.status, 1, "guards within limits leave the difference status: \(passed.err)")
    }

    func testEachGuardOptionRefuses() throws {
        let stationdb = try DiffFixtures.stationdb()
        let (old, new) = try DiffFixtures.everyKindOfChange(in: try DiffFixtures.folder())
        // removed 40%, disabled 20%, moved ~5,560 m, weight churn 50%.
        for (option, value, reason) in [("--max-removed", "39", "2 of 5 stations removed (40.00%)"),
                                        ("--max-disabled", "19.9", "1 of 5 enabled stations disabled (20.00%)"),
                                        ("--max-moved-m", "5000", "1 station moved further than 5000.0 m"),
                                        ("--max-weight-churn", "49", "1 of 2 live stations changed weight (50.00%)")] {
            let r = try DiffFixtures.run(stationdb, ["diff", old, new, option, value, "--format", "sql"])
            XCTAssertEqual(r.status, 4, option)
            XCTAssertTrue(r.err.hasPrefix("refused: \(reason)"), "\(option): \(r.err)")
            XCTAssertTrue(r.out.hasSuffix("PRAGMA user_version = 4;\n"), "the output is complete before the refusal")
        }
        let r = try DiffFixtures.run(stationdb, ["diff", old, new, "--max-removed", "40", "--max-disabled", "20",
                                                 "--max-moved-m", "6000", "--max-weight-churn", "50"])
        XCTAssertEqual(r.status, 1, r.err)
    }

    func testFoldersAsSidesAndMarkdownForCI() throws {
        let stationdb = try DiffFixtures.stationdb()
        let dir = try DiffFixtures.folder()
        let (old, new) = try DiffFixtures.formatsPair(in: dir)
        let dist = dir + "/dist"
        for (v, file) in [(1, old), (2, new)] {
            try FileManager.default.createDirectory(atPath: "\(dist)/\(v)", withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: file, toPath: "\(dist)/\(v)/stations.sqlite")
            try "{}\n".write(toFile: "\(dist)/\(v)/manifest.json", atomically: true, encoding: .utf8)
        }
        try "{\"database\": \"2/stations.sqlite\", \"version\": 2}\n".write(toFile: dist + "/latest.json", atomically: true, encoding: .utf8)
        let r = try DiffFixtures.run(stationdb, ["diff", dist + "/1", dist, "--format", "markdown"])
        XCTAssertEqual(r.status, 1, r.err)
        XCTAssertTrue(r.out.hasPrefix("### Station bundle: version 1 → 2\n\nold `\(dist)/1 (\(dist)/1/stations.sqlite)` · new `\(dist) (\(dist)/2/stations.sqlite)`\n"), r.out)

        let help = try DiffFixtures.run(stationdb, ["diff", "--help"])
        XCTAssertEqual(help.status, 0)
        for word in ["--max-removed", "--max-moved-m", "FORCE_PUBLISH", "\"guard_violations\"", "Exit status"] {
            XCTAssertTrue(help.out.contains(word), word)
        }
    }
}
