import BuildDB
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// `stationdb pull` against a real HTTP server on 127.0.0.1 serving a dist/
/// built here. After every failure the local folder must be byte-identical.
final class BundleClientTests: XCTestCase {
    var scratch = ""
    var fixture: DistFixture!
    var server: TestServer!
    var local = ""

    /// Fast retries; time limits far past what a download from this machine takes, however
    /// loaded it is, so that only a test of a time limit (with its own) ever meets one.
    static let fastOptions = TransferOptions(connectTimeout: 10, totalTimeout: 60, maxBytes: 1 << 20, attempts: 3, backoff: 0.05)

    override func setUpWithError() throws {
        // A quote in every path: the client copies its database with VACUUM INTO, the path bound.
        scratch = NSTemporaryDirectory() + "transfer-pull-it's-\(UUID().uuidString)"
        try Files.createFolder(scratch + "/dist")
        try Files.createFolder(scratch + "/app")
        fixture = try DistFixture(dist: scratch + "/dist")
        server = try TestServer(root: scratch + "/dist", scratch: scratch)
        local = scratch + "/app/stations.sqlite"
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func client(base: String? = nil, options: TransferOptions = BundleClientTests.fastOptions) -> BundleClient {
        BundleClient(baseURL: base ?? server.baseURL + "/", databasePath: local, http: HTTPClient(options: options))
    }

    /// Every file in the app folder with its digest: what "untouched" means.
    func appFolderSnapshot() throws -> [String: String] {
        var out: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: scratch + "/app") {
            out[name] = try SHA256.hex(fileAt: scratch + "/app/" + name)
        }
        return out
    }

    /// A local database at v1 with the user's records on 100 and 102.
    func installVersion1WithCompletions() throws {
        try fixture.publish(1)
        _ = try client().pull()
        let db = try SQLiteDatabase(path: local, mode: .readWrite)
        defer { db.close() }
        try db.execute("INSERT INTO completions VALUES (100, 20240101, 20240102, 'first'), (102, 20240301, 20240302, 'it''s Akihabara')")
        server.clearLog()
    }

    func completions() throws -> [[SQLValue]] {
        let db = try SQLiteDatabase(path: local, mode: .readOnly)
        defer { db.close() }
        return try db.query("SELECT s_id, comp_date, update_date, memo FROM completions ORDER BY s_id")
    }

    func assertFailsUntouched(_ client: BundleClient, file: StaticString = #filePath, line: UInt = #line,
                              _ check: (TransferFailure) -> Void) throws {
        let before = try appFolderSnapshot()
        XCTAssertThrowsError(try client.pull(), file: file, line: line) { error in
            guard let error = (error as? StationError)?.transfer else { return XCTFail("not a TransferFailure: \(error)", file: file, line: line) }
            check(error)
        }
        XCTAssertEqual(try appFolderSnapshot(), before, "the local folder changed after a failed pull", file: file, line: line)
    }

    // MARK: - Success paths

    func testFirstDownloadFetchesTheFullDatabase() throws {
        try fixture.publish(1)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(report.localVersion, 0)
        XCTAssertEqual(report.publishedVersion, 1)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/1/stations.sqlite"))
        XCTAssertEqual(try completions(), [])
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/1/stations.sqlite.gz 200"])
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), ["stations.sqlite"], "temporary files left behind")
    }

    func testUpToDateFetchesOnlyTheManifest() throws {
        try installVersion1WithCompletions()
        let before = try appFolderSnapshot()
        let report = try client().pull()
        XCTAssertEqual(report.kind, .upToDate)
        XCTAssertEqual(server.requests(), ["/latest.json 200"])
        XCTAssertEqual(try appFolderSnapshot(), before)
    }

    func testOneVersionBehindAppliesThePatch() throws {
        try installVersion1WithCompletions()
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .patched)
        XCTAssertNil(report.patchProblem)
        XCTAssertEqual(report.recordsCopied, 1)
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/2/patch-from-1.sql 200"])
        // The patched database holds exactly what the published v2 holds, the
        // address whose newline spans two patch lines included.
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(try completions(), [
            [.integer(100), .integer(20240101), .integer(20240102), .text("first")],
            [.integer(102), .integer(20240301), .integer(20240302), .text("it's Akihabara")],
            [.integer(202), .integer(20240301), .integer(20240302), .text("it's Akihabara")],
        ])
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), ["stations.sqlite"])
    }

    func testMultiVersionJumpUsesTheFullFileAndFollowsRenumberingChains() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3) // previous_version 2, patch from 2 only: useless to a v1 client
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/3/stations.sqlite.gz 200"])
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/3/stations.sqlite"))
        // 102 -> 202 (v2, from the bundle's renumbered_stations) -> 302 (v3).
        XCTAssertEqual(report.recordsCopied, 2)
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(102), .integer(202), .integer(302)])
        XCTAssertEqual(try completions().last?[3], .text("it's Akihabara"))
    }

    func testRenumberingDoesNotOverwriteAnExistingRecord() throws {
        try installVersion1WithCompletions()
        do {
            let db = try SQLiteDatabase(path: local, mode: .readWrite)
            try db.execute("INSERT INTO completions VALUES (202, 1, 2, 'already mine')")
            db.close()
        }
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .patched)
        XCTAssertEqual(report.recordsCopied, 0)
        XCTAssertEqual(try completions().last, [.integer(202), .integer(1), .integer(2), .text("already mine")])
    }

    func testABrokenPatchFallsBackToTheFullFile() throws {
        try installVersion1WithCompletions()
        try "INSERT INTO no_such_table VALUES (1);\n".write(toFile: scratch + "/dist/2/patch-from-1.sql", atomically: true, encoding: .utf8)
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertNotNil(report.patchProblem)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(102), .integer(202)])
    }

    func testAPatchWithTheWrongChecksumFallsBackToTheFullFile() throws {
        try installVersion1WithCompletions()
        try fixture.publish(2)
        try server.setFaults(["/2/patch-from-1.sql": "corrupt"])
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertTrue(report.patchProblem?.contains("sha256") ?? false, report.patchProblem ?? "no problem reported")
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/2/patch-from-1.sql 200", "/2/stations.sqlite.gz 200"])
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(report.recordsCopied, 1)
    }

    func testA500ThenSuccessIsRetried() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/latest.json": "500-once", "/3/stations.sqlite.gz": "500-once"])
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(server.requests(), ["/latest.json 500", "/latest.json 200", "/3/stations.sqlite.gz 500", "/3/stations.sqlite.gz 200"])
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/3/stations.sqlite"))
    }

    // MARK: - Failures leave the local database byte-identical

    func test404IsNotRetriedAndExitsWithBadInput() throws {
        try installVersion1WithCompletions()
        try assertFailsUntouched(client(base: server.baseURL + "/no-such-dist")) { error in
            XCTAssertEqual(error, .httpStatus(url: server.baseURL + "/no-such-dist/latest.json", status: 404))
            XCTAssertEqual(error.exitStatus, .badInput)
        }
        XCTAssertEqual(server.requests(), ["/no-such-dist/latest.json 404"])
    }

    func testPersistent500GivesUpAfterThreeAttempts() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/3/stations.sqlite.gz": "500"])
        try assertFailsUntouched(client()) { error in
            XCTAssertEqual(error, .httpStatus(url: server.baseURL + "/3/stations.sqlite.gz", status: 500))
            XCTAssertEqual(error.exitStatus, .environment)
        }
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/3/") }.count, 3)
    }

    func testConnectionRefused() throws {
        try installVersion1WithCompletions()
        let deadBase = server.baseURL
        server.stop()
        try assertFailsUntouched(client(base: deadBase)) { error in
            guard case .network(_, let code, _) = error else { return XCTFail("expected a network error, got \(error)") }
            XCTAssertEqual(code, 7) // CURLE_COULDNT_CONNECT
            XCTAssertEqual(error.exitStatus, .environment)
        }
    }

    func testABodyCutShort() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/3/stations.sqlite.gz": "truncate"])
        try assertFailsUntouched(client()) { error in
            guard case .network(_, let code, _) = error else { return XCTFail("expected a network error, got \(error)") }
            XCTAssertEqual(code, 18) // CURLE_PARTIAL_FILE
        }
    }

    func testAWrongChecksum() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/3/stations.sqlite.gz": "corrupt"])
        try assertFailsUntouched(client()) { error in
            guard case .checksumMismatch = error else { return XCTFail("expected a checksum mismatch, got \(error)") }
            XCTAssertEqual(error.exitStatus, .environment)
        }
        // A manifest whose digest does not match the file it names.
        try server.setFaults([:])
        try fixture.publish(3, gzipSHA256: String(repeating: "0", count: 64))
        try assertFailsUntouched(client()) { error in
            guard case .checksumMismatch = error else { return XCTFail("expected a checksum mismatch, got \(error)") }
        }
    }

    func testAServerSlowerThanTheTimeout() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/latest.json": "slow"])
        let options = TransferOptions(connectTimeout: 1, totalTimeout: 1, maxBytes: 1 << 20, attempts: 2, backoff: 0.05)
        try assertFailsUntouched(client(options: options)) { error in
            XCTAssertEqual(error, .timedOut(url: server.baseURL + "/latest.json", seconds: 1))
            XCTAssertEqual(error.exitStatus, .environment)
        }
    }

    func testAFileOverTheSizeLimit() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        let gzipBytes = (try FileManager.default.attributesOfItem(atPath: scratch + "/dist/3/stations.sqlite.gz")[.size] as! NSNumber).intValue
        let manifestBytes = (try FileManager.default.attributesOfItem(atPath: scratch + "/dist/latest.json")[.size] as! NSNumber).intValue
        let limit = gzipBytes - 1
        XCTAssertLessThan(manifestBytes, limit, "the fixture must let latest.json through")
        let options = TransferOptions(connectTimeout: 10, totalTimeout: 60, maxBytes: limit, attempts: 3, backoff: 0.05)
        // The database (larger than its gzip) is over the limit: refused before the download.
        try assertFailsUntouched(client(options: options)) { error in
            XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/3/stations.sqlite", limit: limit))
        }
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/3/") }.count, 0, "a size limit is not worth a download")
        // A manifest that understates the database: the gzip itself is over the limit.
        try fixture.publish(3, bytes: 1000)
        server.clearLog()
        try assertFailsUntouched(client(options: options)) { error in
            XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/3/stations.sqlite.gz", limit: limit))
        }
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/3/") }.count, 1, "a size limit is not worth retrying")
    }

    // MARK: - A patch runs only what a patch may do

    /// A local database at v1 with three records of the user's, the one on 102
    /// (renumbered to 202 in v2) among them.
    func installVersion1WithThreeCompletions() throws {
        for suffix in ["", "-journal", "-wal"] { unlink(local + suffix) }
        try fixture.publish(1)
        _ = try client().pull()
        let db = try SQLiteDatabase(path: local, mode: .readWrite)
        defer { db.close() }
        try db.execute("INSERT INTO completions VALUES (100, 20240101, 20240102, 'first'), (101, 20240201, 20240202, NULL), (102, 20240301, 20240302, 'it''s Akihabara')")
        server.clearLog()
    }

    /// Publishes v2 with the real patch from v1 and `extra` inserted at line
    /// `at`, under a valid sha256 in latest.json.
    func publishVersion2(withPatchStatement extra: String, at index: Int = 0) throws {
        var lines = DistFixture.patch(from: 1, to: 2).split(separator: "\n").map(String.init)
        lines.insert(extra, at: min(index, lines.count))
        try (lines.joined(separator: "\n") + "\n").write(toFile: scratch + "/dist/2/patch-from-1.sql", atomically: true, encoding: .utf8)
        try fixture.publish(2)
    }

    /// `words` must be in the reason, before the statement the message repeats; `byAuthorizer`
    /// when PatchRunner's authorizer, not SQLite itself, is what refuses it.
    func assertRefusedAndReplaced(_ extra: String, at index: Int = 0, mentioning words: [String], byAuthorizer: Bool = true,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        try installVersion1WithThreeCompletions()
        try publishVersion2(withPatchStatement: extra, at: index)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced, "\(extra) was not refused", file: file, line: line)
        let problem = report.patchProblem ?? "no problem reported"
        let reason = problem.components(separatedBy: "(in: ")[0]
        for word in words {
            XCTAssertTrue(reason.contains(word), "expected \"\(word)\" before the statement in: \(problem)", file: file, line: line)
        }
        XCTAssertEqual(reason.contains("refused: "), byAuthorizer, problem, file: file, line: line)
        XCTAssertLessThan(problem.count, 400, "a long statement is cut: \(problem.prefix(300))", file: file, line: line)
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/2/patch-from-1.sql 200", "/2/stations.sqlite.gz 200"], file: file, line: line)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"), file: file, line: line)
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202)],
                       "the user's records were touched", file: file, line: line)
        XCTAssertEqual(try completions().first { $0[0] == .integer(102) }, [.integer(102), .integer(20240301), .integer(20240302), .text("it's Akihabara")],
                       file: file, line: line)
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), ["stations.sqlite"], "temporary files left behind", file: file, line: line)
    }

    func testAPatchThatDeletesTheUsersRecordsIsRefused() throws {
        try assertRefusedAndReplaced("DELETE FROM completions;", mentioning: ["completions", "line 1"])
        // Last, after every statement the bundle needs.
        try assertRefusedAndReplaced("DELETE FROM completions;", at: 100, mentioning: ["completions"])
    }

    func testAPatchThatDropsTheUsersTableIsRefused() throws {
        try assertRefusedAndReplaced("DROP TABLE completions;", mentioning: ["completions"])
    }

    func testAPatchMayNotTouchAnythingButTheBundlesTables() throws {
        let refused: [(String, [String])] = [
            ("INSERT INTO completions VALUES (999, 1, 1, 'planted');", ["completions"]),
            ("UPDATE completions SET memo = 'changed';", ["completions"]),
            ("DELETE FROM stations_lines WHERE s_id IN (SELECT s_id FROM completions);", ["completions"]),
            ("CREATE TABLE extra (x);", ["extra"]),
            ("CREATE INDEX completions_memo ON completions (memo);", ["completions"]),
            ("CREATE INDEX station_memo ON stations (address);", ["CREATE INDEX station_memo"]),
            ("CREATE TRIGGER t AFTER UPDATE ON stations BEGIN DELETE FROM completions; END;", ["TRIGGER"]),
            ("CREATE VIEW v AS SELECT 1;", ["VIEW"]),
            ("ALTER TABLE stations ADD COLUMN x;", ["ALTER"]),
            ("DROP INDEX station_lat_index;", ["DROP"]),
            ("DROP TABLE IF EXISTS renumbered_stations;", ["DROP"]),
            ("ATTACH DATABASE 'other.sqlite' AS other;", ["ATTACH"]),
            ("BEGIN;", ["transaction"]),
            ("COMMIT;", ["transaction"]),
            ("SAVEPOINT s;", ["SAVEPOINT"]),
            ("PRAGMA journal_mode = DELETE;", ["journal_mode"]),
            ("PRAGMA writable_schema = ON;", ["writable_schema"]),
            ("PRAGMA user_version;", ["user_version"]),
            ("UPDATE stations SET address = '\(String(repeating: "x", count: 5000))' WHERE s_id IN (SELECT s_id FROM completions);", ["completions"]),
        ]
        for (statement, words) in refused {
            try assertRefusedAndReplaced(statement, mentioning: words)
        }
        // SQLite itself refuses these inside the patch's transaction.
        try assertRefusedAndReplaced("UPDATE sqlite_master SET sql = 'x' WHERE name = 'stations';", mentioning: ["sqlite_master"], byAuthorizer: false)
        try assertRefusedAndReplaced("VACUUM;", mentioning: ["VACUUM"], byAuthorizer: false)
        try assertRefusedAndReplaced("DELETE FROM sqlite_master WHERE name = 'completions';", mentioning: ["sqlite_master"], byAuthorizer: false)
    }

    func testAPatchAsPatchWriterWritesItIsApplied() throws {
        // A v1 database from before renumbered_stations: the patch creates the table.
        try fixture.publish(1)
        for path in [local, scratch + "/dist/1/stations.sqlite"] {
            if path == local { _ = try client().pull() }
            let db = try SQLiteDatabase(path: path, mode: .readWrite)
            try db.execute("DROP TABLE renumbered_stations")
            db.close()
        }
        let difference = try BundleDifference.between(oldPath: scratch + "/dist/1/stations.sqlite", newPath: scratch + "/dist/2/stations.sqlite")
        let patch = PatchWriter.patch(from: difference, toVersion: 2)
        XCTAssertTrue(patch.hasPrefix("CREATE TABLE IF NOT EXISTS renumbered_stations"), patch)
        try patch.write(toFile: scratch + "/dist/2/patch-from-1.sql", atomically: true, encoding: .utf8)
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertNil(report.patchProblem)
        XCTAssertEqual(report.kind, .patched)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
    }

    func testAMissingPatchFallsBackToTheFullFile() throws {
        try installVersion1WithCompletions()
        try fixture.publish(2)
        try server.setFaults(["/2/patch-from-1.sql": "404"])
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertTrue(report.patchProblem?.contains("404") ?? false, report.patchProblem ?? "no problem reported")
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/2/patch-from-1.sql 404", "/2/stations.sqlite.gz 200"])
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(102), .integer(202)])
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), ["stations.sqlite"])
    }

    // MARK: - The inflate limit is --max-bytes; no temporary file outlives a pull

    /// Publishes as version 4 a gzip that inflates to 8 MiB (and a byte) of zeros, with
    /// `claimedBytes` in latest.json and the gzip's true size and sha256.
    func publishGzipBomb(claimedBytes: Int) throws {
        try Files.createFolder(scratch + "/dist/4")
        let zeros = scratch + "/zeros"
        try Files.write([UInt8](repeating: 0, count: (8 << 20) + 1), to: zeros)
        let gzip = try Gzip.compress(fileAt: zeros, to: scratch + "/dist/4/stations.sqlite.gz")
        unlink(zeros)
        let manifest: [String: Any] = [
            "version": 4, "previous_version": 3, "database": "4/stations.sqlite",
            "sha256": String(repeating: "0", count: 64), "bytes": claimedBytes,
            "gzip": "4/stations.sqlite.gz", "gzip_sha256": gzip.sha256, "gzip_bytes": gzip.bytes,
            "rows": ["stations": 4],
        ]
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: scratch + "/dist/latest.json"))
    }

    func testAGzipBombStopsAtMaxBytesWhateverTheManifestClaims() throws {
        try installVersion1WithCompletions()
        let limit = 1 << 20
        try publishGzipBomb(claimedBytes: 10 << 30)
        try assertFailsUntouched(client()) { error in
            XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/4/stations.sqlite", limit: limit))
        }
        // A claim just under the limit: the gzip is fetched, and the inflate stops at the limit.
        try publishGzipBomb(claimedBytes: limit - 1000)
        try assertFailsUntouched(client()) { error in
            XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/4/stations.sqlite.gz", limit: limit))
        }
    }

    /// The campaign's bomb claimed 2,007,040 bytes (a national bundle's size) and wrote
    /// 1.07 GB before the default limit stopped it: the claim is what caps the inflate.
    func testAGzipBombStopsNearWhatLatestJsonClaims() throws {
        try installVersion1WithCompletions()
        let claimed = 2_007_040
        try publishGzipBomb(claimedBytes: claimed)
        let options = TransferOptions(connectTimeout: 10, totalTimeout: 60, maxBytes: 64 << 20, attempts: 3, backoff: 0.05)
        try assertFailsUntouched(client(options: options)) { error in
            guard case .corrupt(let what, let reason) = error else { return XCTFail("expected the claim to stop it, got \(error)") }
            XCTAssertEqual(what, server.baseURL + "/4/stations.sqlite.gz")
            XCTAssertTrue(reason.contains("past the \(claimed) bytes latest.json declares (stopped at \(claimed + HTTPClient.declaredSizeSlack))"), reason)
            XCTAssertEqual(error.exitStatus, .environment)
        }
        // A claim of the real size, or a little under it, is no bomb: the digests decide.
        for claim in [(8 << 20) + 1, (8 << 20) - 1000] {
            try publishGzipBomb(claimedBytes: claim)
            try assertFailsUntouched(client(options: options)) { error in
                guard case .checksumMismatch = error else { return XCTFail("expected the digest check, got \(error)") }
            }
        }
    }

    func testLeftoversOfAKilledPullAreRemovedByTheNext() throws {
        try installVersion1WithCompletions()
        let folder = scratch + "/app/"
        let dead = ".stations.sqlite.tmp-\(Int32.max)"
        let leftovers = [dead, dead + ".gz", dead + ".patch", dead + ".latest.json", dead + "-journal"]
        for name in leftovers { try Files.write([1, 2, 3], to: folder + name) }
        // Process 1 is alive: its files belong to a pull still running.
        try Files.write([1], to: folder + ".stations.sqlite.tmp-1.gz")
        let report = try client().pull()
        XCTAssertEqual(report.kind, .upToDate)
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), [".stations.sqlite.tmp-1.gz", "stations.sqlite"])
    }

    // MARK: - A downloaded bundle holds the bundle and nothing else

    /// Publishes as version 3 the fixture's v3 bundle changed by `sql`, under a
    /// latest.json whose sizes and digests match it.
    func publishVersion3(changedBy sql: String) throws {
        let db = scratch + "/dist/3/stations.sqlite"
        try DistFixture.makeBundle(version: 3, at: db)
        if !sql.isEmpty {
            let bundle = try SQLiteDatabase(path: db, mode: .readWrite)
            try bundle.execute(sql)
            bundle.close()
        }
        unlink(db + ".gz")
        _ = try Gzip.compress(fileAt: db, to: db + ".gz")
        try fixture.publish(3)
    }

    func testADownloadCarryingItsOwnObjectsIsRefused() throws {
        let hostile: [(String, String)] = [
            // The campaign's: 8 records became 1 as the client copied them in.
            ("CREATE TABLE completions (s_id INTEGER PRIMARY KEY NOT NULL, comp_date INTEGER NOT NULL DEFAULT 0, update_date INTEGER NOT NULL DEFAULT 0, memo TEXT);"
             + "CREATE TRIGGER keep_one AFTER INSERT ON completions BEGIN DELETE FROM completions WHERE s_id<>NEW.s_id; END;", "completions"),
            // Without the trigger, a row of the server's was merged into the user's records.
            ("CREATE TABLE completions (s_id INTEGER PRIMARY KEY NOT NULL, comp_date INTEGER NOT NULL DEFAULT 0, update_date INTEGER NOT NULL DEFAULT 0, memo TEXT);"
             + "INSERT INTO completions VALUES (103, 1, 1, 'planted');", "completions"),
            // A trigger on a bundle table would be installed in the client's database.
            ("CREATE TRIGGER on_stations AFTER UPDATE ON stations BEGIN DELETE FROM stations_lines; END;", "on_stations"),
            ("CREATE VIEW v AS SELECT * FROM stations;", "view v"),
            ("CREATE TABLE extra (x);", "table extra"),
            ("CREATE INDEX station_memo ON stations (address);", "index station_memo"),
            ("ANALYZE;", "sqlite_stat1"),
            ("ALTER TABLE stations ADD COLUMN x;", "table stations is not as bundle.md defines it"),
            ("DROP INDEX station_lat_index;", "index station_lat_index is missing"),
        ]
        try installVersion1WithThreeCompletions()
        for (sql, words) in hostile {
            try publishVersion3(changedBy: sql)
            try assertFailsUntouched(client()) { error in
                guard case .corrupt(let what, let reason) = error else { return XCTFail("\(sql): expected corrupt, got \(error)") }
                XCTAssertEqual(what, server.baseURL + "/3/stations.sqlite", sql)
                XCTAssertTrue(reason.contains(words), "\(sql): \(reason)")
                XCTAssertEqual(error.exitStatus, .environment, sql)
            }
        }
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102)])
        // The bundle as published, renumbered_stations and all, is taken.
        try publishVersion3(changedBy: "")
        XCTAssertEqual(try client().pull().kind, .replaced)
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202), .integer(302)])
    }

    func testAFullDownloadThatDropsARecordedStationIsRefused() throws {
        try installVersion1WithThreeCompletions()
        try publishVersion3(changedBy: "DELETE FROM stations WHERE s_id = 101; DELETE FROM stations_lines WHERE s_id = 101;")
        try assertFailsUntouched(client()) { error in
            guard case .corrupt(_, let reason) = error else { return XCTFail("expected corrupt, got \(error)") }
            XCTAssertTrue(reason.contains("s_id 101 would be gone") && reason.contains("records of 1"), reason)
            XCTAssertEqual(error.exitStatus, .environment)
        }
        // Renumbered as renumbered_stations says, the record goes along.
        try publishVersion3(changedBy: "UPDATE stations SET s_id = 401 WHERE s_id = 101; UPDATE stations_lines SET s_id = 401 WHERE s_id = 101;"
                            + "INSERT INTO renumbered_stations VALUES (401, 101, 3);")
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202), .integer(302), .integer(401)])
        XCTAssertEqual(try completions().last, [.integer(401), .integer(20240201), .integer(20240202), .null])
    }

    func testAFullDownloadMayDropAStationNobodyRecorded() throws {
        try installVersion1WithCompletions() // records of 100 and 102 only
        try publishVersion3(changedBy: "DELETE FROM stations WHERE s_id = 101; DELETE FROM stations_lines WHERE s_id = 101;")
        XCTAssertEqual(try client().pull().kind, .replaced)
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(102), .integer(202), .integer(302)])
    }

    // MARK: - A patch keeps the s_ids and the size limit

    func testAPatchMayChangeAnSIDOnlyAsRenumberedStationsSays() throws {
        // The campaign's: every station renumbered, row counts unchanged.
        let renumberAll = "UPDATE stations SET s_id = s_id + 1000000;\nUPDATE stations_lines SET s_id = s_id + 1000000;"
        try assertRefusedAndReplaced(renumberAll, at: 100, mentioning: ["s_id 100, 101, 102 would be gone", "records of 3", "renumbered_stations"], byAuthorizer: false)
        // A user with no records at all: still no s_id may change that way.
        for suffix in ["", "-journal", "-wal"] { unlink(local + suffix) }
        try fixture.publish(1)
        _ = try client().pull()
        try publishVersion2(withPatchStatement: renumberAll, at: 100)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .replaced)
        XCTAssertTrue(report.patchProblem?.contains("only as renumbered_stations says") ?? false, report.patchProblem ?? "no problem reported")
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
    }

    func testAPatchThatRenumbersInPlaceAsRenumberedStationsSaysIsApplied() throws {
        try installVersion1WithThreeCompletions()
        // v2's 102 -> 202 as an UPDATE of the key instead of a delete and an insert.
        var lines = DistFixture.patch(from: 1, to: 2).split(separator: "\n").map(String.init)
        // The insert of 202 spans two lines (its name is broken inside the quotes).
        let insert = try XCTUnwrap(lines.firstIndex { $0.contains("INTO stations VALUES (202") })
        lines.removeSubrange(insert...insert + 1)
        lines.removeAll { $0.contains("s_id = 102") || $0.contains("INTO stations_lines VALUES (11, 202") }
        lines.insert(contentsOf: ["UPDATE stations SET s_id = 202, lat = 35681385 WHERE s_id = 102;",
                                  "UPDATE stations_lines SET s_id = 202, s_sort = 4 WHERE s_id = 102;"], at: 0)
        try (lines.joined(separator: "\n") + "\n").write(toFile: scratch + "/dist/2/patch-from-1.sql", atomically: true, encoding: .utf8)
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertNil(report.patchProblem)
        XCTAssertEqual(report.kind, .patched)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202)])
    }

    /// A trigger on stations in a client's database was once taken for what a download before
    /// the bundle check brought, and dropped by the full download; it is the user's (issue 35:
    /// the user's objects on bundle tables are carried over; a download holding one is
    /// refused), so the patch keeps it, and it does not fire on the patch's own updates,
    /// which would have disabled every station the patch changed.
    func testAPatchedDatabaseKeepsTheUsersTriggerWithoutFiringIt() throws {
        try installVersion1WithThreeCompletions()
        let trigger = "CREATE TRIGGER on_stations AFTER UPDATE ON stations BEGIN UPDATE stations SET enabled = 0 WHERE s_id = NEW.s_id; END"
        do {
            let db = try SQLiteDatabase(path: local, mode: .readWrite)
            defer { db.close() }
            try db.execute(trigger)
        }
        try fixture.publish(2)
        let report = try client().pull()
        XCTAssertEqual(report.kind, .patched, report.patchProblem ?? "")
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"), "no station disabled by the trigger")
        let db = try SQLiteDatabase(path: local, mode: .readOnly)
        defer { db.close() }
        XCTAssertEqual(try db.query("SELECT sql FROM sqlite_master WHERE type = 'trigger'"), [[.text(trigger)]])
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202)])
    }

    /// One statement, `... WHERE weight = (SELECT max(a.weight + b.weight + c.weight) FROM
    /// stations a, stations b, stations c)` with a valid sha256, ran past 120 s: --timeout
    /// bounds downloads only, and a killed pull left its files. A patch's work is bounded:
    /// past the bound it is refused (the database as it was, nothing beside it) and the
    /// full download does the job. Here the patch first grows stations_lines to 6,144 rows,
    /// then joins it with itself three times: 2.3e11 rows, hours of work.
    func testAPatchWhoseWorkNeverEndsIsRefused() throws {
        try installVersion1WithThreeCompletions()
        var lines = DistFixture.patch(from: 1, to: 2).split(separator: "\n").map(String.init)
        for _ in 0..<11 {
            lines.append("INSERT INTO stations_lines SELECT l_id + (SELECT max(l_id) FROM stations_lines), s_id, s_sort FROM stations_lines;")
        }
        lines.append("UPDATE stations SET weight = weight WHERE weight = (SELECT max(a.s_sort + b.s_sort + c.s_sort) FROM stations_lines a, stations_lines b, stations_lines c);")
        try (lines.joined(separator: "\n") + "\n").write(toFile: scratch + "/dist/2/patch-from-1.sql", atomically: true, encoding: .utf8)
        try fixture.publish(2)
        let started = Date()
        let run = try runWithTimeout(try BuiltTools.stationdb(), ["pull", server.baseURL, "--db", local, "--max-bytes", String(1 << 20), "--attempts", "1"],
                                     in: scratch, timeout: 90)
        XCTAssertFalse(run.timedOut, "the patch ran on past 90 s")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("pull: patch not used (\(server.baseURL)/2/patch-from-1.sql: line \(lines.count): more work than a patch may do"), run.err)
        XCTAssertTrue(run.err.contains("pull: replaced \(local) (version 1) with the full version 2"), run.err)
        XCTAssertLessThan(Date().timeIntervalSince(started), 60)
        XCTAssertEqual(try DistFixture.dump(local), try DistFixture.dump(scratch + "/dist/2/stations.sqlite"))
        XCTAssertEqual(try completions().map { $0[0] }, [.integer(100), .integer(101), .integer(102), .integer(202)])
        XCTAssertEqual(try appFolderSnapshot().keys.sorted(), ["stations.sqlite"], "temporary files left behind")
    }

    func testAPatchMayNotGrowTheDatabasePastMaxBytes() throws {
        let limit = BundleClientTests.fastOptions.maxBytes
        // The campaign's: one value of 400 MB; here 4 MB against a 1 MiB limit.
        try assertRefusedAndReplaced("UPDATE stations SET wiki = hex(randomblob(2000000)) WHERE s_id = 100;", at: 100,
                                     mentioning: ["limit of \(limit) bytes", "--max-bytes"], byAuthorizer: false)
        XCTAssertLessThanOrEqual(Files.size(of: local) ?? 0, limit)
        // Values each under the limit, together over it.
        try assertRefusedAndReplaced("UPDATE stations SET wiki = hex(randomblob(400000));", at: 100,
                                     mentioning: ["limit of \(limit) bytes", "--max-bytes"], byAuthorizer: false)
        XCTAssertLessThanOrEqual(Files.size(of: local) ?? 0, limit)
    }
}
