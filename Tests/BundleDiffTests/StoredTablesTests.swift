import Foundation
import StationModel
import XCTest
@testable import BundleDiff

/// A table is taken as unchanged from the files' bytes only when its leaf pages
/// match one for one and hold no spilled row; a change on any page, anywhere in
/// the tree, must go to the SQL comparison and be reported.
final class StoredTablesTests: XCTestCase {
    override class func tearDown() { DiffFixtures.removeFolders() }

    /// Enough stations for a tree of a few levels (small pages), and every stations_lines row.
    func makeBundle(_ path: String, version: Int = 1, pageSize: Int = 1024, change: (Int) -> String = { _ in "" },
                    note: String = "") throws {
        unlink(path)
        let db = try SQLiteDatabase(path: path, mode: .create)
        try db.execute("PRAGMA page_size = \(pageSize)")
        for t in BundleSchema.tables { try db.execute(t.createSQL) }
        try db.transaction {
            try db.execute("INSERT INTO operators VALUES (1, 'JR東日本', 1, 1)")
            try db.execute("INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL)")
            for id in 1...3000 {
                try db.execute(DiffFixtures.station(id, "駅\(id)\(change(id))", yomi: "えき\(note)"))
                try db.execute("INSERT INTO stations_lines VALUES (10, \(id), \(id))")
            }
        }
        try db.execute("PRAGMA user_version = \(version)")
        db.close()
    }

    func root(_ path: String, _ table: String) throws -> Int {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        return try db.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = '\(table)'") ?? 0
    }

    func testSameBytesAreSameRowsAndAnyChangedPageIsNot() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", b = dir + "/b.sqlite"
        try makeBundle(a)
        try makeBundle(b, version: 2)
        let fa = try XCTUnwrap(StoredTables(path: a)), fb = try XCTUnwrap(StoredTables(path: b))
        let leaves = try XCTUnwrap(fa.leaves(root: root(a, "stations")))
        XCTAssertGreaterThan(leaves.count, 100, "a tree of several levels")
        for table in ["operators", "lines", "stations", "stations_lines"] {
            XCTAssertTrue(fa.sameRows(root: try root(a, table), as: fb, root: try root(b, table)), table)
        }
        XCTAssertFalse(fa.sameRows(root: try root(a, "stations"), as: fb, root: try root(b, "stations_lines")), "other rows")

        // One station changed on the first, a middle and the last leaf: each is seen,
        // and the diff reports exactly that station.
        for id in [1, 1500, 3000] {
            let c = dir + "/c\(id).sqlite"
            try makeBundle(c, version: 2, change: { $0 == id ? "!" : "" })
            let fc = try XCTUnwrap(StoredTables(path: c))
            XCTAssertFalse(fa.sameRows(root: try root(a, "stations"), as: fc, root: try root(c, "stations")), "station \(id)")
            XCTAssertTrue(fa.sameRows(root: try root(a, "stations_lines"), as: fc, root: try root(c, "stations_lines")))
            let d = try BundleDifference.between(oldPath: a, newPath: c)
            XCTAssertEqual(d["stations"]?.changed.map { $0.key }, [[.integer(Int64(id))]], "station \(id)")
            XCTAssertEqual(d["stations_lines"]?.changed.count, 0)
            XCTAssertEqual(d["stations"]?.newCount, 3000)
        }
    }

    /// The leaf pages differ wherever the tables lie in the file: a table stored
    /// after a grown one is still found the same.
    func testSameRowsOnOtherPages() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", b = dir + "/b.sqlite"
        try makeBundle(a)
        try makeBundle(b, note: String(repeating: "長", count: 30))   // every station's row longer
        let fa = try XCTUnwrap(StoredTables(path: a)), fb = try XCTUnwrap(StoredTables(path: b))
        XCTAssertFalse(fa.sameRows(root: try root(a, "stations"), as: fb, root: try root(b, "stations")))
        XCTAssertTrue(fa.sameRows(root: try root(a, "stations_lines"), as: fb, root: try root(b, "stations_lines")))
        let d = try BundleDifference.between(oldPath: a, newPath: b)
        XCTAssertEqual(d["stations"]?.changed.count, 3000)
        XCTAssertEqual(d["stations_lines"]?.changed.count, 0)
        XCTAssertEqual(d.oldEnabledStations, 3000)
    }

    /// OLD's enabled stations are tallied while the stations are compared; when
    /// the stations are the same pages and not compared, the summary counts them.
    func testEnabledStationsCountedEitherWay() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", b = dir + "/b.sqlite", c = dir + "/c.sqlite"
        try makeBundle(a)
        try makeBundle(b, version: 2)
        try makeBundle(c, version: 2, change: { $0 == 7 ? "!" : "" })
        let same = try BundleDifference.between(oldPath: a, newPath: b)
        XCTAssertNil(same.oldEnabledStations, "stations stored alike: not compared, not tallied")
        let changed = try BundleDifference.between(oldPath: a, newPath: c)
        XCTAssertEqual(changed.oldEnabledStations, 3000)
        for d in [same, changed] {
            XCTAssertEqual(try DiffSummary(difference: d, oldPath: a).oldEnabledStations, 3000)
        }
        XCTAssertEqual(try DiffReport.make(oldPath: a, newPath: b).summary.oldEnabledStations, 3000)
        XCTAssertEqual(try DiffReport.make(oldPath: a, newPath: c).summary.oldEnabledStations, 3000)
    }

    /// A bundle cut short is bad input named by its path (exit 2), on either side,
    /// not an error of the in-memory connection both files are attached to.
    func testDamagedFileIsNamed() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", cut = dir + "/cut.sqlite"
        try makeBundle(a)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: a))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        for (old, new) in [(a, cut), (cut, a)] {
            XCTAssertThrowsError(try BundleDifference.between(oldPath: old, newPath: new)) { error in
                XCTAssertEqual((error as? InputError)?.diagnostics.first?.location.file, cut, "\(error)")
            }
            XCTAssertThrowsError(try DiffReport.make(oldPath: old, newPath: new)) { error in
                XCTAssertEqual((error as? InputError)?.diagnostics.first?.location.file, cut, "\(error)")
            }
        }
        let run = try DiffFixtures.run(try DiffFixtures.stationdb(), ["diff", a, cut])
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.hasPrefix("error: \(cut): the database is damaged"), run.err)
    }

    /// A row too long for its page continues on overflow pages the leaf does not
    /// cover: such a table is never taken as the same from its leaves.
    func testSpilledRowsAreLeftToSQL() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", b = dir + "/b.sqlite"
        for (path, tail) in [(a, "a"), (b, "b")] {
            try DiffFixtures.bundle(path, version: 1, rows: [
                "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1)",
                DiffFixtures.station(1, String(repeating: "長", count: 3000) + tail)])
        }
        let fa = try XCTUnwrap(StoredTables(path: a)), fb = try XCTUnwrap(StoredTables(path: b))
        XCTAssertFalse(fa.sameRows(root: try root(a, "stations"), as: fb, root: try root(b, "stations")))
        XCTAssertFalse(fa.sameRows(root: try root(a, "stations"), as: fa, root: try root(a, "stations")), "even against itself")
        XCTAssertEqual(try BundleDifference.between(oldPath: a, newPath: b)["stations"]?.changed.count, 1)
    }

    /// The same bytes are other text in another encoding: files in two encodings
    /// are never taken as the same from their bytes (here the rows are numbers, so
    /// the bytes do match).
    func testOtherTextEncodingIsNotTheSame() throws {
        let dir = try DiffFixtures.folder()
        var files: [StoredTables] = [], roots: [Int] = []
        for (name, encoding) in [("a", "UTF-8"), ("b", "UTF-8"), ("u", "UTF-16le")] {
            let path = dir + "/\(name).sqlite"
            let db = try SQLiteDatabase(path: path, mode: .create)
            try db.execute("PRAGMA encoding = '\(encoding)'")
            try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER)")
            try db.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
            db.close()
            files.append(try XCTUnwrap(StoredTables(path: path)))
            roots.append(try root(path, "t"))
        }
        XCTAssertTrue(files[0].sameRows(root: roots[0], as: files[1], root: roots[1]))
        XCTAssertFalse(files[0].sameRows(root: roots[0], as: files[2], root: roots[2]))
    }

    /// Bytes that SQLite might not read as they are: no answer from them.
    func testWALAndJournalFilesAreNotRead() throws {
        let dir = try DiffFixtures.folder()
        let a = dir + "/a.sqlite", w = dir + "/w.sqlite"
        try makeBundle(a)
        XCTAssertNotNil(StoredTables(path: a))
        FileManager.default.createFile(atPath: a + "-journal", contents: Data([1]))
        XCTAssertNil(StoredTables(path: a))
        try FileManager.default.removeItem(atPath: a + "-journal")

        try makeBundle(w)
        let db = try SQLiteDatabase(path: w, mode: .readWrite)
        try db.execute("PRAGMA journal_mode = WAL")
        db.close()
        XCTAssertNil(StoredTables(path: w), "WAL mode")
        XCTAssertNil(StoredTables(path: dir + "/missing.sqlite"))
        FileManager.default.createFile(atPath: dir + "/text.sqlite", contents: Data("not a database".utf8))
        XCTAssertNil(StoredTables(path: dir + "/text.sqlite"))
    }
}
