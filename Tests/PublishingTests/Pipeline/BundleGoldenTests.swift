import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// The bundle itself, the product the apps download, against a golden file: the upstream's
/// release in Tests/Fixtures cut to one prefecture (高知, 174 stations: JR四国, the tram, the
/// third-sector lines), published by the one publish path, dumped as SQL line by line. Any
/// change to what a bundle holds (a value, an ID, a weight, the schema) shows here as a diff.
final class BundleGoldenTests: XCTestCase {
    func testTheBundleOfAPrefectureIsTheGoldenOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-golden-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        let raw = folder + "/raw"
        try Self.writeSlice(of: RepositoryData.stationDatabaseEarlier, prefecture: 39, to: raw + "/station_database")
        try #"{ "sources": [ { "kind": "station_database", "path": "station_database", "license": "CC BY-SA 4.0" } ] }"#
            .write(toFile: raw + "/sources.json", atomically: true, encoding: .utf8)
        let report = try await Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: folder + "/dist")).publish()
        XCTAssertEqual(report.outcome, .published)
        XCTAssertEqual(report.rows["stations"], 174, "169 rows of station.csv, some of several operators")
        try assertGolden(try Self.dump(folder + "/dist/1/stations.sqlite"), at: "Tests/PublishingTests/Golden/bundle-kochi.sql")
    }

    /// The release's four files cut to the stations of `prefecture`, their registrations, their
    /// lines and those lines' companies, each file's rows as the release holds them.
    static func writeSlice(of release: String, prefecture: Int, to folder: String) throws {
        try Files.createFolder(folder)
        func rows(_ file: String) throws -> (header: String, rows: [[String]]) {
            var lines = try String(contentsOfFile: release + "/" + file, encoding: .utf8).split(separator: "\n").map(String.init)
            let header = lines.removeFirst()
            // The release quotes no field, so a comma always parts two.
            return (header, lines.map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) })
        }
        func write(_ file: String, _ header: String, _ rows: [[String]]) throws {
            try ([header] + rows.map { $0.joined(separator: ",") }).map { $0 + "\n" }.joined().write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
        }
        let stations = try rows("station.csv"), register = try rows("register.csv"), lines = try rows("line.csv"), companies = try rows("company.csv")
        let kept = stations.rows.filter { $0[7] == String(prefecture) }
        let codes = Set(kept.map { $0[0] })
        let registered = register.rows.filter { codes.contains($0[0]) }
        let lineCodes = Set(registered.map { $0[1] })
        let keptLines = lines.rows.filter { lineCodes.contains($0[0]) }
        let companyCodes = Set(keptLines.map { $0[6] })
        try write("station.csv", stations.header, kept)
        try write("register.csv", register.header, registered)
        try write("line.csv", lines.header, keptLines)
        try write("company.csv", companies.header, companies.rows.filter { companyCodes.contains($0[0]) })
    }

    /// A bundle as SQL: its version and page size, its schema as SQLite keeps it, then every
    /// table's rows in key order, one INSERT a line.
    static func dump(_ path: String) throws -> String {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        var out = "PRAGMA user_version = \(try db.scalarInt("PRAGMA user_version") ?? -1);\n"
        out += "PRAGMA page_size = \(try db.scalarInt("PRAGMA page_size") ?? -1);\n"
        for row in try db.query("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name") { out += (row[0].textValue ?? "") + ";\n" }
        for table in BundleSchema.tables {
            let order = table.key.joined(separator: ", ")
            for row in try db.query("SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name) ORDER BY \(order)") {
                out += "INSERT INTO \(table.name) VALUES(\(row.map(\.sqlLiteral).joined(separator: ",")));\n"
            }
        }
        return out
    }
}
