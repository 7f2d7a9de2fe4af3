import BuildDB
import StationCore
import Foundation
import TestSupport
import XCTest

final class VerifyTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    var dist = ""
    var folder = ""

    override func setUp() async throws {
        folder = try Fixtures.temporaryFolder()
        dist = folder + "/dist"
        try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist,
                             renumberings: [Renumbering(newID: 102, oldID: 90, version: 1): SourceLocation(file: "r.csv", line: 2)])
    }

    /// A copy of the published database, changed by `sql`, verified as a bare file.
    func corruptedCopy(_ sql: String) throws -> String {
        let path = folder + "/copy-\(UUID().uuidString).sqlite"
        try Fixtures.copy(dist + "/1/stations.sqlite", to: path)
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        try db.execute(sql)
        db.close()
        return path
    }

    func assertProblems(_ path: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try BundleVerifier.verify(path: path), file: file, line: line) { error in
            guard let damaged = error.station(.damaged) else { return XCTFail("expected damaged (exit 3), got \(error)", file: file, line: line) }
            let text = damaged.description
            for e in expected { XCTAssertTrue(text.contains(e), "missing \"\(e)\" in:\n\(text)", file: file, line: line) }
            XCTAssertTrue(text.split(separator: "\n").allSatisfy { $0.hasPrefix("error: ") }, "one problem per line", file: file, line: line)
        }
    }

    func testGoodBundleVerifiesEveryWay() throws {
        for path in [dist, dist + "/1", dist + "/1/stations.sqlite"] {
            let report = try BundleVerifier.verify(path: path)
            XCTAssertEqual(report.version, 1)
            XCTAssertEqual(report.rowCounts["stations"], 6)
            XCTAssertEqual(report.rowCounts["renumbered_stations"], 1)
        }
        XCTAssertEqual(try BundleVerifier.verify(path: dist).line,
                       "ok: \(dist) version 1, 3 operators, 4 lines, 6 stations, 6 stations_lines, 1 renumbered_stations")
    }

    /// verify said "(11 warnings)", listed 10 and "... and 2 more" (12), and warned of a line
    /// disabled on purpose, which the apps never list. Every warning is counted once, the
    /// count is what the list adds up to, and a disabled line is left alone.
    func testVerifyCountsTheWarningsItListsAndLeavesDisabledLinesAlone() throws {
        var sql = "DELETE FROM stations_lines WHERE l_id = 30; CREATE TEMP TABLE s AS SELECT * FROM stations WHERE s_id = 100; "
            + "CREATE TEMP TABLE l AS SELECT * FROM lines WHERE l_id = 10; UPDATE l SET l_id = 40; INSERT INTO lines SELECT * FROM l; "
        for id in 1000..<1012 { sql += "UPDATE s SET s_id = \(id); INSERT INTO stations SELECT * FROM s; " }
        let path = try corruptedCopy(sql)
        let warnings = try BundleVerifier.verify(path: path).warnings
        XCTAssertEqual(warnings.map(\.location.field), Array(repeating: "stations", count: 12) + ["lines"], "\(warnings)")
        XCTAssertFalse(warnings.contains { $0.message.hasPrefix("l_id 30") }, "the disabled line: \(warnings)")

        let p = Process()
        p.executableURL = URL(fileURLWithPath: try BuiltTools.stationdb())
        p.arguments = ["verify", path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let warned = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let count = try XCTUnwrap(printed.firstMatch(of: /\((\d+) warnings\)/).map { Int($0.1)! }, printed)
        let more = warned.compactMap { $0.firstMatch(of: /\.\.\. and (\d+) more/).map { Int($0.1)! } }.reduce(0, +)
        XCTAssertEqual(count, 13, printed)
        XCTAssertEqual(warned.count { $0.hasPrefix("warning: ") && !$0.contains("... and") } + more, count, warned.joined(separator: "\n"))
    }

    /// A dist whose version lost its database said "rows.renumbered_stations: says 1, the
    /// database has 0" and four more counts, and "missing" twice more: one problem, the file.
    func testAMissingDatabaseIsSaidOnceAsTheFileThatIsMissing() throws {
        unlink(dist + "/1/stations.sqlite")
        for path in [dist, dist + "/1"] {
            XCTAssertThrowsError(try BundleVerifier.verify(path: path)) { error in
                let named = path == dist ? dist + "/latest.json" : dist + "/1/manifest.json"
                XCTAssertEqual(error.station(.damaged)?.diagnostics.map(\.description), ["\(named): database: \(dist)/1/stations.sqlite is missing"])
            }
        }
    }

    func testSchemaProblems() throws {
        assertProblems(try corruptedCopy("DROP INDEX station_lat_index"), ["schema: index station_lat_index is missing"])
        assertProblems(try corruptedCopy("DROP INDEX stations_lines_unique_index; CREATE INDEX stations_lines_unique_index ON stations_lines(l_id, s_id)"),
                       ["index stations_lines_unique_index is not as bundle.md defines it: CREATE INDEX stations_lines_unique_index ON stations_lines(l_id, s_id); "
                        + "bundle.md has CREATE UNIQUE INDEX stations_lines_unique_index ON stations_lines(l_id, s_id)"])
        assertProblems(try corruptedCopy("ALTER TABLE stations RENAME COLUMN yomi TO reading"),
                       ["schema: table stations is not as bundle.md defines it: CREATE TABLE stations (s_id INTEGER PRIMARY KEY NOT NULL, station TEXT NOT NULL, reading TEXT NOT NULL"])
        assertProblems(try corruptedCopy("ALTER TABLE lines ADD COLUMN color TEXT"), ["table lines is not as bundle.md defines it"])
        assertProblems(try corruptedCopy("CREATE TABLE extra (x)"), ["schema: table extra is not part of the bundle"])
        assertProblems(try corruptedCopy("DROP TABLE operators"), ["schema: table operators is missing"])
    }

    func testVersionAndChecksumProblems() throws {
        assertProblems(try corruptedCopy("PRAGMA user_version = 0"), ["user_version: is 0; a bundle's version is a positive integer"])

        // Inside dist: the version must match latest.json and every file its checksum.
        let db = try SQLiteDatabase(path: dist + "/1/stations.sqlite", mode: .readWrite)
        try db.execute("PRAGMA user_version = 7")
        db.close()
        assertProblems(dist, ["user_version: is 7, the manifest says 1", "latest.json: sha256: ", "manifest.json: files: "])
        assertProblems(dist + "/1", ["user_version: is 7, the manifest says 1", "manifest.json: sha256: "])
    }

    func testChecksumOfEachFile() async throws {
        try "changed\n".write(toFile: dist + "/1/summary.txt", atomically: false, encoding: .utf8)
        assertProblems(dist, ["summary.txt has sha256"])

        await setUpAgain()
        var gz = try Data(contentsOf: URL(fileURLWithPath: dist + "/1/stations.sqlite.gz"))
        gz[gz.count / 2] ^= 0xFF
        try gz.write(to: URL(fileURLWithPath: dist + "/1/stations.sqlite.gz"))
        assertProblems(dist, ["gzip_sha256: ", "stations.sqlite.gz: "])

        await setUpAgain()
        try FileManager.default.removeItem(atPath: dist + "/1/stations.sqlite.gz")
        assertProblems(dist, ["stations.sqlite.gz is missing"])

        await setUpAgain()
        try "x".write(toFile: dist + "/1/stray.txt", atomically: false, encoding: .utf8)
        assertProblems(dist + "/1", ["stray.txt is in the folder but not in the manifest"])
    }

    func setUpAgain() async {
        try? FileManager.default.removeItem(atPath: dist)
        await assertNoThrowAsync(try await setUp())
    }

    func testDanglingReferences() throws {
        assertProblems(try corruptedCopy("DELETE FROM operators WHERE o_id = 2"),
                       ["stations: s_id 200: operator 2 does not exist", "stations: s_id 201: operator 2 does not exist",
                        "lines: l_id 20: operator 2 does not exist"])
        assertProblems(try corruptedCopy("DELETE FROM lines WHERE l_id = 11"), ["stations_lines: l_id 11 s_id 102: line 11 does not exist"])
        assertProblems(try corruptedCopy("DELETE FROM stations WHERE s_id = 101"), ["stations_lines: l_id 10 s_id 101: station 101 does not exist"])
        assertProblems(try corruptedCopy("DELETE FROM stations WHERE s_id = 102"), ["renumbered_stations: 102 <- 90: station 102 does not exist"])
    }

    func testWeightsOutsideOneToThirteen() throws {
        assertProblems(try corruptedCopy("UPDATE stations SET weight = 0 WHERE s_id = 100; UPDATE stations SET weight = 14 WHERE s_id = 200"),
                       ["stations.weight: s_id 100: weight 0 is not 1..13", "stations.weight: s_id 200: weight 14 is not 1..13"])
        assertProblems(try corruptedCopy("UPDATE stations SET weight = 2.5 WHERE s_id = 101"), ["s_id 101: weight 2.5 is not 1..13"])
    }

    func testCoordinatesOutsideJapan() throws {
        assertProblems(try corruptedCopy("UPDATE stations SET lat = 0 WHERE s_id = 100; UPDATE stations SET lng = 160000000 WHERE s_id = 101"),
                       ["s_id 100: 0, 139766084 is outside Japan", "s_id 101: 35713768, 160000000 is outside Japan"])
        // Degrees where micro-degrees belong.
        assertProblems(try corruptedCopy("UPDATE stations SET lat = 35.681382, lng = 139.766084 WHERE s_id = 200"),
                       ["s_id 200: 35.681382, 139.766084 is outside Japan"])
        assertProblems(try corruptedCopy("UPDATE stations SET pref = 48 WHERE s_id = 200"), ["s_id 200: pref 48 is not 1..47"])
    }

    func testDamagedPagesFailIntegrityCheck() throws {
        // Flip bytes in the middle of an index's root page.
        let path = try corruptedCopy("SELECT 1")
        let db = try SQLiteDatabase(path: path)
        let root = try XCTUnwrap(try db.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = 'station_lat_index'"))
        let pageSize = try XCTUnwrap(try db.scalarInt("PRAGMA page_size"))
        db.close()
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let page = (root - 1) * pageSize
        for i in 0..<8 { bytes[page + 3 + i] ^= 0x5A }   // cell count, content start: the page no longer parses
        try bytes.write(to: URL(fileURLWithPath: path))
        assertProblems(path, ["integrity_check: "])

        // Cut short.
        let cut = try corruptedCopy("SELECT 1")
        let whole = try Data(contentsOf: URL(fileURLWithPath: cut))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: cut))
        assertProblems(cut, ["integrity_check"])

        // Not a database at all: not a bundle, as for diff and preview (exit 2).
        let junk = folder + "/junk.sqlite"
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: junk))
        XCTAssertThrowsError(try BundleVerifier.verify(path: junk)) { XCTAssertTrue($0.station(.badInput) != nil, "\($0)") }
    }

    /// latest.json said `"database": "../../../../etc/passwd"`, and verify printed that file's
    /// sha256 and size, and diff, preview and priority report opened it. Every path a dist names
    /// (latest.json's and a manifest's, and a manifest's file names) must stay inside the dist.
    func testEveryPathADistNamesStaysInsideIt() throws {
        let latest = dist + "/latest.json", manifest = dist + "/1/manifest.json"
        let original = try String(contentsOfFile: latest, encoding: .utf8), originalManifest = try String(contentsOfFile: manifest, encoding: .utf8)
        let passwd = try SHA256.hex(fileAt: "/etc/passwd"), passwdBytes = Files.size(of: "/etc/passwd") ?? 0
        for (field, hostile) in [("database", "../../../../etc/passwd"), ("database", "/etc/passwd"), ("gzip", "1/../../../x.gz"),
                                 ("summary", "1/./summary.txt"), ("patch", "1//patch.sql"), ("credits", "..")] {
            var document = try JSONSerialization.jsonObject(with: Data(original.utf8)) as! [String: Any]
            document[field] = hostile
            try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: latest))
            // diff, preview and priority report take a dist through BundleLocation, which reads "database" only.
            let attempts = [{ _ = try BundleVerifier.verify(path: self.dist) }, { _ = try PublishedBundle.read(path: latest) }]
                + (field == "database" ? [{ _ = try BundleLocation.resolve(self.dist) }] : [])
            for attempt in attempts {
                XCTAssertThrowsError(try attempt(), "\(field): \(hostile)") { error in
                    guard let input = error.station(.badInput) else { return XCTFail("expected bad input (exit 2), got \(error)") }
                    XCTAssertEqual(input.diagnostics.first?.location.file, latest, "\(input)")
                    XCTAssertEqual(input.diagnostics.first?.location.field, field, "\(input)")
                    XCTAssertFalse("\(input)".contains(passwd), "\(input)")
                }
            }
        }
        // The commands, as a user runs them: each refuses (exit 2) and says nothing of the file.
        var document = try JSONSerialization.jsonObject(with: Data(original.utf8)) as! [String: Any]
        document["database"] = "../../../../etc/passwd"
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: latest))
        for arguments in [["verify", dist], ["diff", dist, dist + "/1"], ["preview", dist, "--out", folder + "/p.html"],
                          ["priority", "report", "--bundle", dist]] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: try BuiltTools.stationdb())
            p.arguments = arguments
            let err = Pipe()
            p.standardError = err
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let said = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 2, "\(arguments): \(said)")
            XCTAssertTrue(said.contains("\(latest): database: "), "\(arguments): \(said)")
            XCTAssertFalse(said.contains(passwd) || said.contains("\(passwdBytes) bytes"), "\(arguments): \(said)")
        }
        try original.write(toFile: latest, atomically: true, encoding: .utf8)
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist))

        // A manifest's "files" are names in its version's folder.
        document = try JSONSerialization.jsonObject(with: Data(originalManifest.utf8)) as! [String: Any]
        var files = document["files"] as! [String: String]
        files["../../../../etc/passwd"] = files.removeValue(forKey: "summary.txt")
        document["files"] = files
        try JSONSerialization.data(withJSONObject: document).write(to: URL(fileURLWithPath: manifest))
        XCTAssertThrowsError(try BundleVerifier.verify(path: dist)) { error in
            guard let input = error.station(.badInput) else { return XCTFail("expected bad input (exit 2), got \(error)") }
            XCTAssertEqual(input.diagnostics.first?.location.file, manifest, "\(input)")
            XCTAssertEqual(input.diagnostics.first?.location.field, "files", "\(input)")
            XCTAssertFalse("\(input)".contains(passwd), "\(input)")
        }
    }

    func testNeitherDistNorBundle() throws {
        XCTAssertThrowsError(try BundleVerifier.verify(path: folder)) { XCTAssertTrue($0.station(.badInput)?.description.contains("neither a dist folder") == true, "\($0)") }
        XCTAssertThrowsError(try BundleVerifier.verify(path: folder + "/nothing")) { XCTAssertTrue($0.station(.badInput) != nil, "a missing path is bad input, as for diff and preview: \($0)") }
    }
}
