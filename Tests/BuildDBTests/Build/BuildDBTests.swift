import BuildDB
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

final class SchemaTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    /// bundle.md's tables spelled out here, independently of BundleSchema, so a change
    /// to the shared schema that breaks clients fails this test.
    static let specTables: [String: [(name: String, type: String, notNull: Bool, defaultValue: String?, pk: Bool)]] = [
        "operators": [("o_id", "INTEGER", true, nil, true), ("operator", "TEXT", true, nil, false),
                      ("type", "INTEGER", true, nil, false), ("enabled", "INTEGER", true, "1", false)],
        "lines": [("l_id", "INTEGER", true, nil, true), ("line", "TEXT", true, nil, false), ("o_id", "INTEGER", true, nil, false),
                  ("enabled", "INTEGER", true, "1", false), ("l_type", "INTEGER", false, nil, false)],
        "stations": [("s_id", "INTEGER", true, nil, true), ("station", "TEXT", true, nil, false), ("yomi", "TEXT", true, nil, false),
                     ("wiki", "TEXT", true, nil, false), ("pref", "INTEGER", true, nil, false), ("address", "TEXT", true, nil, false),
                     ("lat", "INTEGER", true, nil, false), ("lng", "INTEGER", true, nil, false), ("o_id", "INTEGER", true, nil, false),
                     ("enabled", "INTEGER", true, "1", false), ("weight", "INTEGER", true, "0", false)],
        "stations_lines": [("l_id", "INTEGER", true, nil, false), ("s_id", "INTEGER", true, nil, false), ("s_sort", "INTEGER", true, nil, false)],
    ]

    static let specIndexes: [String: (table: String, columns: [String], unique: Bool)] = [
        "lines_enabled_index": ("lines", ["enabled"], false), "lines_line_index": ("lines", ["line"], false),
        "lines_o_index": ("lines", ["o_id"], false), "operators_enabled_index": ("operators", ["enabled"], false),
        "operators_type_index": ("operators", ["type"], false), "station_lat_index": ("stations", ["lat"], false),
        "station_lng_index": ("stations", ["lng"], false), "station_pref_index": ("stations", ["pref"], false),
        "station_operator_index": ("stations", ["o_id"], false), "stations_lines_l_index": ("stations_lines", ["l_id"], false),
        "stations_lines_s_index": ("stations_lines", ["s_id"], false), "stations_station_index": ("stations", ["station"], false),
        "stations_yomi_index": ("stations", ["yomi"], false), "stations_weight_index": ("lines", ["l_type"], false),
        "stations_lines_unique_index": ("stations_lines", ["l_id", "s_id"], true),
    ]

    func testBundleMatchesBundleMdExactly() async throws {
        let dist = try Fixtures.temporaryFolder()
        let bundle = try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist)
        let db = try SQLiteDatabase(path: bundle.folder + "/stations.sqlite")

        for (table, columns) in Self.specTables {
            let info = try db.query("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            XCTAssertEqual(info.count, columns.count, table)
            for (row, want) in zip(info, columns) {
                XCTAssertEqual(row[0], .text(want.name), table)
                XCTAssertEqual(row[1], .text(want.type), "\(table).\(want.name)")
                XCTAssertEqual(row[2], .integer(want.notNull ? 1 : 0), "\(table).\(want.name) NOT NULL")
                XCTAssertEqual(row[3], want.defaultValue.map { .text($0) } ?? .null, "\(table).\(want.name) DEFAULT")
                XCTAssertEqual(row[4], .integer(want.pk ? 1 : 0), "\(table).\(want.name) PRIMARY KEY")
            }
        }
        let indexes = try db.query("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        XCTAssertEqual(Set(indexes.map { $0[0].textValue! }), Set(Self.specIndexes.keys))
        for row in indexes {
            let name = row[0].textValue!, want = Self.specIndexes[name]!
            XCTAssertEqual(row[1], .text(want.table), name)
            let columns = try db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]).map { $0[0].textValue! }
            XCTAssertEqual(columns, want.columns, name)
            let unique = try db.scalarInt("SELECT \"unique\" FROM pragma_index_list(?) WHERE name = ?", [.text(want.table), .text(name)])
            XCTAssertEqual(unique, want.unique ? 1 : 0, name)
        }
        // The only extra table is the renumbering list, which clients that do not know it never read.
        let tables = try db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { $0[0].textValue! }
        XCTAssertEqual(tables, ["lines", "operators", "renumbered_stations", "stations", "stations_lines"])
        XCTAssertEqual(try db.userVersion, 1)
        XCTAssertEqual(try db.scalarInt("PRAGMA page_size"), 2048, "the page size whose gzip is smallest for no cost (BundleWriter.pageSize)")
        XCTAssertEqual(try db.scalarInt("PRAGMA freelist_count"), 0, "compact, as VACUUM leaves it")
        XCTAssertEqual(try db.query("PRAGMA journal_mode")[0][0], .text("delete"), "no WAL: clients open it as a plain file")

        // Integer micro-degrees, weights as given, enabled as 0/1.
        let tokyo = try db.query("SELECT typeof(lat), lat, lng, weight, enabled FROM stations WHERE s_id = 100")[0]
        XCTAssertEqual(tokyo, [.text("integer"), .integer(35_681_382), .integer(139_766_084), .integer(1 + 100 % 13), .integer(1)])
        XCTAssertEqual(try db.scalarInt("SELECT enabled FROM stations WHERE s_id = 300"), 0)
        XCTAssertEqual(try db.query("SELECT l_type FROM lines WHERE l_id = 10")[0][0], .null)
        XCTAssertEqual(try db.query("SELECT address FROM stations WHERE s_id = 201")[0][0], .text("line one\nline two"))

        // The clients' map query works and orders by weight.
        let pins = try db.query("""
            SELECT s_id FROM stations WHERE lat >= 35000000 AND lat < 36000000 AND lng >= 139000000 AND lng < 141000000 AND enabled = 1
            ORDER BY stations.weight, (lat - 35700000) * (lat - 35700000) + (lng - 139800000) * (lng - 139800000) LIMIT 100
            """).map { $0[0].intValue! }
        XCTAssertEqual(pins, [100, 101, 102, 200, 201].sorted { (1 + $0 % 13, $0) < (1 + $1 % 13, $1) })
    }
}

final class ReproducibilityTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    func testSameInputsGiveByteIdenticalBundle() async throws {
        let a = try Fixtures.temporaryFolder(), b = try Fixtures.temporaryFolder()
        let network = Fixtures.smallNetwork()
        var shuffled = network
        shuffled.stations.reverse(); shuffled.stationLines.reverse(); shuffled.operators.reverse(); shuffled.lines.reverse()
        let renumbered = [Renumbering(newID: 102, oldID: 99, version: 1): SourceLocation(file: "r.csv", line: 2),
                          Renumbering(newID: 101, oldID: 98, version: 1): SourceLocation(file: "r.csv", line: 3)]
        try await Fixtures.publish(network, dist: a, renumberings: renumbered)
        try await Fixtures.publish(shuffled, dist: b, renumberings: renumbered)

        let snapA = try Fixtures.snapshot(a), snapB = try Fixtures.snapshot(b)
        XCTAssertEqual(snapA, snapB)
        XCTAssertEqual(snapA.keys.sorted(), ["1", "1/manifest.json", "1/registry.csv", "1/stations.sqlite", "1/stations.sqlite.gz", "1/summary.txt",
                                             "latest.json", "latest.json.inputs"])
        let latest = try Fixtures.latest(a)
        XCTAssertEqual(latest["sha256"] as? String, try SHA256.hex(fileAt: a + "/1/stations.sqlite"))
        XCTAssertEqual(latest["gzip_sha256"] as? String, try SHA256.hex(fileAt: a + "/1/stations.sqlite.gz"))

        // A second pair of builds of a changed network is reproducible too, patch included.
        var next = network
        next.stations[0].name = "東京 (丸の内)"
        try await Fixtures.publish(next, dist: a, renumberings: renumbered)
        try await Fixtures.publish(next, dist: b, renumberings: renumbered)
        XCTAssertEqual(try Fixtures.snapshot(a), try Fixtures.snapshot(b))
    }

    /// Gzip compresses a file into a gzip file: the same bytes on every run, a standard
    /// header (no name, mtime 0), and inflating gives the input back.
    func testGzipIsReproducibleAndStandard() throws {
        let folder = try Fixtures.temporaryFolder()
        // SQLite-like content: runs of zeros, repeated records and noise, 1.5 MB:
        // many of the reader's and the writer's buffers.
        var payload: [UInt8] = []
        var x: UInt32 = 12345
        for i in 0..<(1_500_000 / 64) {
            if i % 5 == 0 { payload += [UInt8](repeating: 0, count: 64); continue }
            for _ in 0..<16 { x = x &* 1_103_515_245 &+ 12345; payload += [UInt8(x >> 24), UInt8(i % 7), 0x41, UInt8(x >> 16 & 3)] }
        }
        let source = folder + "/payload.bin"
        try Files.write(payload, to: source)
        let one = try Gzip.compress(fileAt: source, to: folder + "/one.gz"), two = try Gzip.compress(fileAt: source, to: folder + "/two.gz")
        let oneBytes = try Files.read(folder + "/one.gz")
        XCTAssertEqual(oneBytes, try Files.read(folder + "/two.gz"))
        XCTAssertEqual(one.bytes, oneBytes.count)
        XCTAssertEqual(one.sha256, SHA256.hex(oneBytes), "the digest returned is the gzip's")
        XCTAssertEqual(two.sha256, one.sha256)
        XCTAssertLessThan(one.bytes, payload.count / 2)
        // No name, mtime 0; XFL 2 is libdeflate's mark of a slow level (Gzip.level, 12), OS 255 "unknown".
        XCTAssertEqual(Array(oneBytes.prefix(10)), [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 0xff], "no name, mtime 0, a slow level")

        let back = try Gzip.decompress(fileAt: folder + "/one.gz", to: folder + "/back.bin", maxBytes: payload.count)
        XCTAssertEqual(back.bytes, payload.count)
        XCTAssertEqual(back.sha256, SHA256.hex(payload))
        XCTAssertEqual(try Files.read(folder + "/back.bin"), payload)
        XCTAssertThrowsError(try Gzip.decompress(fileAt: folder + "/one.gz", to: nil, maxBytes: payload.count - 1)) { error in
            guard case .gzip(.tooLarge)? = error.station(.damaged)?.cause else { return XCTFail("\(error)") }
        }

        try Files.write([], to: folder + "/empty")
        _ = try Gzip.compress(fileAt: folder + "/empty", to: folder + "/empty.gz")
        let empty = try Gzip.decompress(fileAt: folder + "/empty.gz", to: nil, maxBytes: 0)
        XCTAssertEqual(empty.bytes, 0)
        XCTAssertEqual(empty.sha256, SHA256.hex([UInt8]()))

        try assertSystemGzipAccepts(folder + "/one.gz")
        try assertSystemGzipAccepts(folder + "/empty.gz")
    }

    /// The published gzip is one standard gzip stream of exactly the published bundle.
    func testPublishedGzipInflatesToTheBundle() async throws {
        let dist = try Fixtures.temporaryFolder()
        let published = try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist)
        let database = try Files.read(published.folder + "/stations.sqlite")
        let inflated = try Gzip.decompress(fileAt: published.folder + "/stations.sqlite.gz", to: dist + "/inflated.sqlite", maxBytes: database.count)
        XCTAssertEqual(inflated.bytes, database.count)
        XCTAssertEqual(inflated.sha256, published.bundle.sha256)
        XCTAssertEqual(try Files.read(dist + "/inflated.sqlite"), database)
        XCTAssertEqual(published.bundle.gzipSHA256, try SHA256.hex(fileAt: published.folder + "/stations.sqlite.gz"))
        try assertSystemGzipAccepts(published.folder + "/stations.sqlite.gz")
        try assertPythonInflates(published.folder + "/stations.sqlite.gz", to: database)
    }

    /// The system's `gzip -t` agrees (CRC and size trailer included); skipped
    /// where gzip is not installed.
    func assertSystemGzipAccepts(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/bin/sh")
        check.arguments = ["-c", "command -v gzip >/dev/null || exit 77; gzip -t \"$0\"", path]
        try check.run(); check.waitUntilExit()
        if check.terminationStatus != 77 { XCTAssertEqual(check.terminationStatus, 0, "gzip -t \(path)", file: file, line: line) }
    }

    /// The bundle is written in one transaction: its header's change counter is 1
    /// (and valid for that change), the same on every build.
    func testBundleIsWrittenInOneTransaction() async throws {
        let dist = try Fixtures.temporaryFolder()
        let published = try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist)
        let header = try Files.read(published.folder + "/stations.sqlite").prefix(100)
        func bigEndian(_ offset: Int) -> UInt32 { header[offset..<(offset + 4)].reduce(0) { $0 << 8 | UInt32($1) } }
        XCTAssertEqual(Array(header.prefix(16)), Array("SQLite format 3\0".utf8))
        XCTAssertEqual(bigEndian(24), 1, "file change counter")
        XCTAssertEqual(bigEndian(92), 1, "version-valid-for number")
        XCTAssertEqual(bigEndian(60), 1, "user_version")
    }

    func testJSONIsSortedAndEndsWithNewline() async throws {
        let dist = try Fixtures.temporaryFolder()
        try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist)
        let text = try String(contentsOfFile: dist + "/latest.json", encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("}\n"))
        let topKeys = text.split(separator: "\n").filter { $0.hasPrefix("  \"") }.map { $0.dropFirst(3).prefix { $0 != "\"" } }.map(String.init)
        XCTAssertEqual(topKeys, topKeys.sorted())
        let latest = try Fixtures.latest(dist)
        for key in ["version", "previous_version", "database", "sha256", "bytes", "gzip", "gzip_sha256", "gzip_bytes",
                    "patch", "rows", "sources", "renumbered", "manifest", "summary"] {
            XCTAssertNotNil(latest[key], key)
        }
        XCTAssertEqual(latest["version"] as? Int, 1)
        XCTAssertTrue(latest["previous_version"] is NSNull)
        XCTAssertTrue(latest["patch"] is NSNull, "no patch for the first version")
        XCTAssertEqual(latest["database"] as? String, "1/stations.sqlite")
        XCTAssertEqual(latest["sources"] as? [String: String], ["raw/station_database/station.csv": String(repeating: "ab", count: 32)])
        XCTAssertEqual(latest["rows"] as? [String: Int],
                       ["operators": 3, "lines": 4, "stations": 6, "stations_lines": 6, "renumbered_stations": 0])
        let bytes = try FileManager.default.attributesOfItem(atPath: dist + "/1/stations.sqlite")[.size] as? Int
        XCTAssertEqual(latest["bytes"] as? Int, bytes)

        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dist + "/1/manifest.json"))) as! [String: Any]
        let files = manifest["files"] as! [String: String]
        XCTAssertEqual(files.keys.sorted(), ["registry.csv", "stations.sqlite", "stations.sqlite.gz", "summary.txt"])
        XCTAssertEqual(files["summary.txt"], try SHA256.hex(fileAt: dist + "/1/summary.txt"))
    }
}

final class VersionTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    func testNextVersionRules() throws {
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: nil, requested: nil), 1)
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: nil, requested: 7), 7)
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: 4, requested: nil), 5)
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: 4, requested: 9), 9)
        XCTAssertThrowsError(try BundleBuilder.nextVersion(previous: 4, requested: 4)) { XCTAssertTrue($0.station(.badInput) != nil) }
        XCTAssertThrowsError(try BundleBuilder.nextVersion(previous: 4, requested: 3)) { XCTAssertTrue($0.station(.badInput) != nil) }
        XCTAssertThrowsError(try BundleBuilder.nextVersion(previous: nil, requested: 0)) { XCTAssertTrue($0.station(.badInput) != nil) }
        // A folder latest.json does not name (a dead publish's, or one announced before a rollback) is never reused.
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: 4, highestFolder: 6, requested: nil), 7)
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: 4, highestFolder: 4, requested: nil), 5)
        XCTAssertThrowsError(try BundleBuilder.nextVersion(previous: 4, highestFolder: 6, requested: 6)) { XCTAssertTrue($0.station(.badInput) != nil) }
        XCTAssertEqual(try BundleBuilder.nextVersion(previous: 4, highestFolder: 6, requested: 8), 8)
    }

    func testVersionsGrowAndUnchangedPublishesNothing() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        let first = try await Fixtures.publish(network, dist: dist)
        XCTAssertEqual(first.version, 1)

        // Same content: nothing is written and version 1 stays current.
        let before = try Fixtures.snapshot(dist)
        guard case .unchanged(let v) = try await publish(Fixtures.request(network, dist: dist)) else { return XCTFail("expected unchanged") }
        XCTAssertEqual(v, 1)
        XCTAssertEqual(try Fixtures.snapshot(dist), before)
        // Even with VERSION=5: unchanged content is not republished under a new number.
        guard case .unchanged = try await publish(Fixtures.request(network, dist: dist, version: 5)) else { return XCTFail("expected unchanged") }

        network.stations[1].yomi = "うえのえき"
        let second = try await Fixtures.publish(network, dist: dist)
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(second.previousVersion, 1)
        XCTAssertEqual(try Fixtures.latest(dist)["previous_version"] as? Int, 1)
        XCTAssertEqual(try Fixtures.latest(dist)["patch"] as? String, "2/patch-from-1.sql")

        network.stations[1].yomi = "うえの"
        let tenth = try await Fixtures.publish(network, dist: dist, version: 10)
        XCTAssertEqual(tenth.version, 10)
        XCTAssertEqual(try SQLiteDatabase(path: dist + "/10/stations.sqlite").userVersion, 10)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dist + "/10/patch-from-2.sql"))

        network.stations[1].yomi = "うえ"
        let snapshot = try Fixtures.snapshot(dist)
        for bad in [10, 9] {
            await assertThrowsAsync(try await publish(Fixtures.request(network, dist: dist, version: bad))) { error in
                XCTAssertTrue(error.station(.badInput)?.description.contains("not larger than the published version 10") ?? false, "\(error)")
            }
        }
        XCTAssertEqual(try Fixtures.snapshot(dist), snapshot)
        let eleventh = try await Fixtures.publish(network, dist: dist)
        XCTAssertEqual(eleventh.version, 11)
        for v in ["1", "2", "10", "11"] {
            XCTAssertNoThrow(try BundleVerifier.verify(path: dist + "/" + v), v)
        }
    }

    func testSummaryCountsChanges() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist)
        let renumberings = Fixtures.renumber([101], in: &network, from: 110, version: 2)
        var weights = Fixtures.weights(for: network)
        weights[100] = 13; weights[200] = 12
        let bundle = try await Fixtures.publish(network, dist: dist, weights: weights, renumberings: renumberings)
        XCTAssertEqual(bundle.weightChanges, 2)
        XCTAssertEqual(bundle.changesText, "stations +1 -1 ~2, stations_lines +1 -1 ~0, renumbered_stations +1 -0 ~0, 2 weight changes")
        let summary = try String(contentsOfFile: dist + "/2/summary.txt", encoding: .utf8)
        XCTAssertTrue(summary.contains("weight changes: 2 stations"), summary)
        let lines = summary.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.contains("  removed   s_id 101 上野 (JR東日本) [raw/renumbered.csv]"), summary)
        XCTAssertTrue(lines.contains("  weight    s_id 100 東京 (JR東日本): 10 -> 13 [raw/weights.csv]"), summary)
    }

    func testMissingWeightAndBadReferencesAreInputErrors() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        var weights = Fixtures.weights(for: network)
        weights[101] = nil
        weights[999] = 3
        network.stations[0].lat = 10_000_000
        network.stationLines.append(StationLine(lineID: 77, stationID: 100, sort: 3))
        await assertThrowsAsync(try await publish(Fixtures.request(network, dist: dist, weights: weights))) { error in
            let text = error.station(.badInput)?.description ?? "\(error)"
            XCTAssertTrue(text.contains("weights.csv: s_id 101: station 101 (上野) has no weight"), text)
            XCTAssertTrue(text.contains("s_id 999, which is not a station"), text)
            XCTAssertTrue(text.contains("outside Japan"), text)
            XCTAssertTrue(text.contains("names line 77, which does not exist"), text)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dist), [DistLock.fileName], "nothing but the lock")
    }
}

final class PatchRoundTripTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    /// The previous bundle, patched exactly as the Android client does, equals the new one in every table.
    static func assertPatchRoundTrip(dist: String, from old: Int, to new: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let patch = try String(contentsOfFile: "\(dist)/\(new)/patch-from-\(old).sql", encoding: .utf8)
        for l in patch.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            XCTAssertTrue(l.hasSuffix(";"), "one statement per line: \(l)", file: file, line: line)
            XCTAssertFalse(l.isEmpty, file: file, line: line)
            XCTAssertFalse(l.hasPrefix("BEGIN") || l.hasPrefix("COMMIT"), "the client owns the transaction", file: file, line: line)
            XCTAssertEqual(l.filter { $0 == "'" }.count % 2, 0, "even quotes per line: \(l)", file: file, line: line)
        }
        XCTAssertFalse(patch.contains("\r"), file: file, line: line)
        let copy = try Fixtures.temporaryFolder() + "/client.sqlite"
        try Fixtures.copy("\(dist)/\(old)/stations.sqlite", to: copy)
        let client = try SQLiteDatabase(path: copy, mode: .readWrite)
        try client.execute(BundleSchema.completionsCreateSQL)
        try client.execute("INSERT INTO completions (s_id, comp_date, memo) VALUES (100, 1700000000, 'mine')")
        try AndroidPatchRunner.apply(sql: patch, to: client)
        let difference = try BundleDifference.between(oldPath: copy, newPath: "\(dist)/\(new)/stations.sqlite")
        XCTAssertTrue(difference.isEmpty, "left over: \(difference.tables.filter { !$0.isEmpty }.map { "\($0.shape.name) +\($0.added.count) -\($0.removed.count) ~\($0.changed.count)" })", file: file, line: line)
        XCTAssertEqual(try client.userVersion, new, file: file, line: line)
        XCTAssertEqual(difference.oldVersion, new, file: file, line: line)
        XCTAssertEqual(try client.scalarInt("SELECT count(*) FROM completions"), 1, "the user's records survive", file: file, line: line)
        XCTAssertEqual(try client.query("PRAGMA integrity_check")[0][0], .text("ok"), file: file, line: line)
    }

    func testPatchTurnsPreviousIntoNew() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist)

        // Every kind of change, with awkward text in each.
        network.operators[1].name = "It's O'Hare, \"again\"; DROP TABLE x; --"
        network.operators[network.operators.firstIndex { $0.id == 3 }!].enabled = false
        network.operators.append(Operator(id: 4, name: "Ünïcødé 鉄道 ™ 🚃", type: 10))
        network.lines[network.lines.firstIndex { $0.id == 30 }!].enabled = false
        network.lines[0].type = 5
        network.lines.append(Line(id: 40, name: "新線, 'east'\nbranch", operatorID: 4))
        network.stations.removeAll { $0.id == 300 }
        network.stations[0].name = "東京 'Marunouchi', side"
        network.stations[3].address = "multi\r\nline\rtext\n"
        network.stations[4].enabled = false
        network.stations.append(Station(id: 400, name: "''''", yomi: "'", wiki: "a''b", pref: 47, address: "沖縄県那覇市, \"x\"",
                                        lat: 26_212_000, lng: 127_679_000, operatorID: 4))
        network.stationLines.removeAll { $0.lineID == 30 || ($0.lineID == 10 && $0.stationID == 101) }
        network.stationLines.append(StationLine(lineID: 10, stationID: 101, sort: 7))  // same key: an update, not delete+insert
        network.stationLines.append(StationLine(lineID: 40, stationID: 400, sort: 1))
        network.stationLines.append(StationLine(lineID: 40, stationID: 101, sort: 2))
        var weights = Fixtures.weights(for: network)
        weights[102] = 11
        let renumbered = [Renumbering(newID: 400, oldID: 300, version: 2): SourceLocation(file: "r.csv", line: 2)]
        let bundle = try await Fixtures.publish(network, dist: dist, weights: weights, renumberings: renumbered)
        XCTAssertEqual(bundle.difference?["stations_lines"]?.changed.count, 1)
        try Self.assertPatchRoundTrip(dist: dist, from: 1, to: 2)

        let patch = try String(contentsOfFile: dist + "/2/patch-from-1.sql", encoding: .utf8)
        XCTAssertTrue(patch.hasSuffix("PRAGMA user_version = 2;\n"))
        XCTAssertTrue(patch.contains("UPDATE stations_lines SET s_sort = 7 WHERE l_id = 10 AND s_id = 101;"), patch)
        XCTAssertTrue(patch.contains("INSERT OR IGNORE INTO renumbered_stations (new_s_id, old_s_id, version) VALUES (400, 300, 2);"), patch)
        let db = try SQLiteDatabase(path: dist + "/2/stations.sqlite")
        XCTAssertEqual(try db.query("SELECT address FROM stations WHERE s_id = 200")[0][0], .text("multi\r\nline\rtext\n"))

        // And once more, from a version that skipped numbers.
        network.stations[0].name = "東京"
        network.stationLines.removeAll { $0.lineID == 40 }
        network.lines[network.lines.firstIndex { $0.id == 40 }!].enabled = false
        try await Fixtures.publish(network, dist: dist, weights: weights, version: 5, renumberings: renumbered)
        try Self.assertPatchRoundTrip(dist: dist, from: 2, to: 5)
    }

    func testNationalBundlePatchRoundTrip() async throws {
        let network = try await Fixtures.nationalNetwork()
        let dist = try Fixtures.temporaryFolder()
        let first = try await Fixtures.publish(network, dist: dist)
        XCTAssertEqual(first.rowCounts["stations"], network.stations.count)
        XCTAssertGreaterThan(network.stations.count, 8_000)
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist))
        // Written without VACUUM: still compact, and the same bytes (gzip included) every time.
        let again = try Fixtures.temporaryFolder()
        try await Fixtures.publish(network, dist: again)
        XCTAssertEqual(try Fixtures.snapshot(again), try Fixtures.snapshot(dist))
        let bundle = try SQLiteDatabase(path: dist + "/1/stations.sqlite")
        XCTAssertEqual(try bundle.scalarInt("PRAGMA freelist_count"), 0)
        XCTAssertEqual(try bundle.query("PRAGMA integrity_check")[0][0], .text("ok"))
        bundle.close()

        // A season's worth of edits: renamed, moved, closed, opened, re-weighted, re-sorted.
        var next = network
        for i in stride(from: 0, to: next.stations.count, by: 97) { next.stations[i].name += "（新）" }
        for i in stride(from: 5, to: next.stations.count, by: 211) { next.stations[i].lat += 123 }
        let closed = Set(next.stations.enumerated().filter { $0.offset % 389 == 3 }.map(\.element.id))
        for i in next.stations.indices where closed.contains(next.stations[i].id) { next.stations[i].enabled = false }
        next.stationLines.removeAll { closed.contains($0.stationID) }
        let renumbered = Set(next.stations.enumerated().filter { $0.offset % 401 == 5 }.map(\.element.id))
        let renumberings = Fixtures.renumber(renumbered, in: &next, from: 98_000_000, version: 2)
        for i in stride(from: 1, to: next.stationLines.count, by: 50) { next.stationLines[i].sort += 1000 }
        next.stations.append(Station(id: 99_000_001, name: "高輪ゲートウェイ", yomi: "たかなわげーとうぇい", wiki: "高輪ゲートウェイ駅", pref: 13,
                                     address: "東京都港区港南二丁目", lat: 35_635_500, lng: 139_740_800, operatorID: next.operators[0].id))
        var weights = Fixtures.weights(for: next)
        for id in next.stations.prefix(300).map(\.id) { weights[id] = 13 }
        let second = try await Fixtures.publish(next, dist: dist, weights: weights, renumberings: renumberings)
        XCTAssertGreaterThan(second.difference?["stations"]?.rowChangeCount ?? 0, 100)
        XCTAssertEqual(second.difference?["stations"]?.removed.count, renumbered.count)
        try Self.assertPatchRoundTrip(dist: dist, from: 1, to: 2)
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist))
    }
}

final class RenumberingTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    func testRenumberedStationsTravelInBundleAndManifest() async throws {
        let folder = try Fixtures.temporaryFolder()
        let csv = folder + "/renumbered.csv"
        try "new_s_id,old_s_id,version\n102,90,1\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let dist = folder + "/dist"
        var network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist, renumberings: try RenumberingFile.read(from: csv))

        // Version 2 splits 101 into 101 and 103: users' records on 101 are copied to 103.
        network.stations.append(Station(id: 103, name: "上野 (新幹線)", yomi: "うえの", pref: 13, lat: 35_713_000, lng: 139_777_000, operatorID: 1))
        try "new_s_id,old_s_id,version\n102,90,1\n103,101,2\n102,91,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let bundle = try await Fixtures.publish(network, dist: dist, renumberings: try RenumberingFile.read(from: csv))
        XCTAssertEqual(bundle.rowCounts["renumbered_stations"], 3)

        let db = try SQLiteDatabase(path: dist + "/2/stations.sqlite")
        XCTAssertEqual(try db.query("SELECT new_s_id, old_s_id, version FROM renumbered_stations ORDER BY new_s_id, old_s_id"),
                       [[.integer(102), .integer(90), .integer(1)], [.integer(102), .integer(91), .integer(2)], [.integer(103), .integer(101), .integer(2)]])
        let introduced = try Fixtures.latest(dist)["renumbered"] as? [[String: Int]]
        XCTAssertEqual(introduced, [["new_s_id": 102, "old_s_id": 91, "version": 2], ["new_s_id": 103, "old_s_id": 101, "version": 2]])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dist + "/2/manifest.json"))) as! [String: Any]
        XCTAssertEqual(manifest["renumbered"] as? [[String: Int]], introduced)
        XCTAssertTrue(try String(contentsOfFile: dist + "/2/summary.txt", encoding: .utf8).contains("103 <- 101"))
        try PatchRoundTripTests.assertPatchRoundTrip(dist: dist, from: 1, to: 2)

        // A client moving records on upgrade from version 1: the pairs newer than its version.
        let moves = try db.query("SELECT new_s_id, old_s_id FROM renumbered_stations WHERE version > 1 ORDER BY old_s_id")
        XCTAssertEqual(moves.map { $0[1].intValue! }, [91, 101])
    }

    func testRenumberingErrorsNameFileAndLine() async throws {
        let folder = try Fixtures.temporaryFolder()
        let csv = folder + "/renumbered.csv"
        try "new_s_id,old_s_id,version\n100,99,1\nx,1,1\n100,99,1\n5,5,1\n".write(toFile: csv, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RenumberingFile.read(from: csv)) { error in
            let text = error.station(.badInput)?.description ?? "not bad input: \(error)"
            XCTAssertTrue(text.contains("renumbered.csv:3: new_s_id: expected an integer, found 'x'"), text)
            XCTAssertTrue(text.contains("renumbered.csv:4: new_s_id: the pair 100 <- 99 is already listed on line 2"), text)
            XCTAssertTrue(text.contains("renumbered.csv:5: old_s_id: a station cannot replace itself"), text)
        }
        try "new_s_id,old_s_id\n".write(toFile: csv, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RenumberingFile.read(from: csv)) { XCTAssertTrue($0.station(.badInput)?.description.contains("missing column version") == true, "\($0)") }
        // A misspelled column is an error at line 1 naming it, never a column ignored.
        XCTAssertThrowsError(try RenumberingFile.parse(CSVReader.parse("new_s_id,old_s_id,version,version_\n2,1,2,2\n", file: "raw/renumbered.csv"))) {
            XCTAssertEqual($0.station(.badInput)?.diagnostics.map(\.location), [SourceLocation(file: "raw/renumbered.csv", line: 1, field: "version_")], "\($0)")
        }

        // A new s_id that is not a station, or a version from the future.
        try "new_s_id,old_s_id,version\n100,90,1\n555,91,1\n101,92,3\n".write(toFile: csv, atomically: true, encoding: .utf8)
        let dist = folder + "/dist"
        await assertThrowsAsync(try await Fixtures.publish(Fixtures.smallNetwork(), dist: dist, renumberings: try RenumberingFile.read(from: csv))) { error in
            let text = error.station(.badInput)?.description ?? "not bad input: \(error)"
            XCTAssertTrue(text.contains("renumbered.csv:3: new_s_id: new s_id 555 is not a station"), text)
            XCTAssertTrue(text.contains("renumbered.csv:4: version: version 3 is later than the version being built (1)"), text)
        }
    }

    /// 10 <- 11 and 11 <- 10: each replaces the other, and an app would move users'
    /// records round and round. The row that closes a cycle is the error, naming the rest.
    func testARenumberingCycleIsAnErrorAtTheLineThatClosesIt() throws {
        let csv = try Fixtures.temporaryFolder() + "/renumbered.csv"
        try "new_s_id,old_s_id,version\n10,11,1\n11,10,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try RenumberingFile.read(from: csv)) {
            XCTAssertEqual($0.station(.badInput)?.diagnostics.map(\.description),
                           ["\(csv):3: old_s_id: 11 <- 10 closes a cycle with line 2 (10 <- 11): a station cannot replace one that replaces it"])
        }
        // A chain (13 became 12, later 14) is no cycle, nor is one station replacing two.
        try "new_s_id,old_s_id,version\n12,13,1\n14,12,2\n10,11,1\n10,15,2\n".write(toFile: csv, atomically: true, encoding: .utf8)
        XCTAssertEqual(try RenumberingFile.read(from: csv).count, 4)
    }

    func testPublishedRenumberingsCannotBeRewritten() async throws {
        let dist = try Fixtures.temporaryFolder()
        let network = Fixtures.smallNetwork()
        let loc = SourceLocation(file: "renumbered.csv", line: 2)
        try await Fixtures.publish(network, dist: dist, renumberings: [Renumbering(newID: 100, oldID: 90, version: 1): loc])
        let snapshot = try Fixtures.snapshot(dist)
        // Dropped: the message names the renumbering file given, wherever it is.
        var changed = network
        changed.stations[0].wiki = "東京駅 (JR)"
        await assertThrowsAsync(try await publish(Fixtures.request(changed, dist: dist))) {
            XCTAssertTrue($0.station(.badInput)?.description.contains("renumbered.csv: 100 <- 90 (version 1) was published and must stay listed") == true, "\($0)")
        }
        // Re-dated.
        await assertThrowsAsync(try await Fixtures.publish(changed, dist: dist, renumberings: [Renumbering(newID: 100, oldID: 90, version: 2): loc])) {
            XCTAssertTrue($0.station(.badInput)?.description.contains("was published with version 1, not 2") == true, "\($0)")
        }
        // Added late with an old version.
        await assertThrowsAsync(try await Fixtures.publish(changed, dist: dist, renumberings: [
            Renumbering(newID: 100, oldID: 90, version: 1): loc, Renumbering(newID: 101, oldID: 80, version: 1): loc,
        ])) { XCTAssertTrue($0.station(.badInput)?.description.contains("its version must be 2, not 1") == true, "\($0)") }
        XCTAssertEqual(try Fixtures.snapshot(dist), snapshot)
    }
}

final class PublishFailureTests: XCTestCase {
    override class func tearDown() { Fixtures.removeTemporaryFolders() }

    struct InjectedFailure: Error {}

    /// The steps a build reached, recorded from its @Sendable beforeStep.
    final class StepLog: @unchecked Sendable {
        private let lock = NSLock()
        private var steps: [PublishStep] = []
        func append(_ step: PublishStep) { lock.lock(); steps.append(step); lock.unlock() }
        var last: PublishStep? { lock.lock(); defer { lock.unlock() }; return steps.last }
    }

    func testFailureAtEveryStepLeavesLastGoodBundle() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist)
        network.stations[0].name = "東京 (new)"
        let snapshot = try Fixtures.snapshot(dist)
        XCTAssertEqual(PublishStep.allCases.count, 8)

        for failing in PublishStep.allCases {
            let seen = StepLog()
            let failAt: @Sendable (PublishStep) throws -> Void = { step in
                seen.append(step)
                if step == failing { throw InjectedFailure() }
            }
            await assertThrowsAsync(try await publish(Fixtures.request(network, dist: dist), beforeStep: failAt), "\(failing)") { XCTAssertTrue($0 is InjectedFailure, "\($0)") }
            XCTAssertEqual(seen.last, failing)
            XCTAssertEqual(try Fixtures.snapshot(dist), snapshot, "failure at \(failing) changed dist/")
            XCTAssertNoThrow(try BundleVerifier.verify(path: dist), "\(failing)")
        }
        // With no failure the same build goes through.
        let published = try await Fixtures.publish(network, dist: dist)
        XCTAssertEqual(published.version, 2)
    }

    func testKilledRunLeavesNothingThatStopsTheNext() async throws {
        let dist = try Fixtures.temporaryFolder()
        var network = Fixtures.smallNetwork()
        try await Fixtures.publish(network, dist: dist)
        // What a run killed mid-way leaves: a temporary folder, a temporary latest.json,
        // and (killed between the folder rename and latest.json) an unpublished version folder.
        try FileManager.default.createDirectory(atPath: dist + "/.tmp-2-99999", withIntermediateDirectories: true)
        try "partial".write(toFile: dist + "/.tmp-2-99999/stations.sqlite", atomically: false, encoding: .utf8)
        try "{".write(toFile: dist + "/.latest.json.tmp-99999", atomically: false, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: dist + "/2", withIntermediateDirectories: true)
        try "stale".write(toFile: dist + "/2/stations.sqlite", atomically: false, encoding: .utf8)
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist), "latest.json still names a whole version 1")

        network.stations[0].name = "東京 (new)"
        let published = try await Fixtures.publish(network, dist: dist)
        // Folder 2 may have been announced before a rollback of latest.json: its number is never reused, nor the folder touched.
        XCTAssertEqual(published.version, 3)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dist).sorted(), [DistLock.fileName, "1", "2", "3", "latest.json", "latest.json.inputs"])
        XCTAssertEqual(try String(contentsOfFile: dist + "/2/stations.sqlite", encoding: .utf8), "stale")
        XCTAssertNoThrow(try BundleVerifier.verify(path: dist))
    }
}
