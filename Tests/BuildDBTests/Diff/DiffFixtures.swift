import StationCore
import Foundation
import TestSupport
import XCTest

/// Hand-made bundles for the diff's tests, and the tools they are checked against.
enum DiffFixtures {
    static let root = NSTemporaryDirectory() + "bundlediff-diff-tests-\(getpid())"

    static func folder() throws -> String {
        let path = root + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func removeFolders() { try? FileManager.default.removeItem(atPath: root) }

    /// A bundle from BundleSchema's DDL; `indexes: false` and `extra` make an older
    /// database (no indexes, a client's completions table).
    static func bundle(_ path: String, version: Int, indexes: Bool = true, extra: [String] = [], rows: [String]) throws {
        unlink(path)
        let db = try SQLiteDatabase(path: path, mode: .create)
        defer { db.close() }
        for t in BundleSchema.clientTables { try db.execute(t.createSQL) }
        if indexes { for i in BundleSchema.indexes { try db.execute(i.createSQL) } }
        try db.transaction { for sql in extra + rows { try db.execute(sql) } }
        try db.execute("PRAGMA user_version = \(version)")
    }

    static func station(_ id: Int, _ name: String, lat: Int = 35_700_000, lng: Int = 139_700_000, operatorID: Int = 1,
                        enabled: Int = 1, weight: Int = 11, yomi: String = "えき") -> String {
        "INSERT INTO stations VALUES (\(id), \(SQLValue.text(name).sqlLiteral), \(SQLValue.text(yomi).sqlLiteral), '', 13, '東京都', \(lat), \(lng), \(operatorID), \(enabled), \(weight))"
    }

    /// Every kind of change in every table; OLD is an older database (no indexes,
    /// a completions table, no renumbered_stations), NEW has renumbered_stations.
    static func everyKindOfChange(in dir: String) throws -> (old: String, new: String) {
        let old = dir + "/old.sqlite", new = dir + "/new.sqlite"
        try bundle(old, version: 3, indexes: false, extra: [BundleSchema.completionsCreateSQL,
                   "INSERT INTO completions VALUES (101, 20240101, 20240102, 'first ride')"], rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei', 2, 1), (3, 'Gone Rail', 5, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (20, 'Main', 2, 1, NULL), (30, 'Gone Line', 3, 1, NULL)",
            station(100, "東京", weight: 1),
            station(101, "上野"),
            station(200, "Aoto", lat: 35_745_000, lng: 139_856_000, operatorID: 2, weight: 12),
            station(201, "Keisei Takasago", operatorID: 2, weight: 11),
            station(300, "Gone", operatorID: 3),
            "INSERT INTO stations_lines VALUES (10, 100, 1), (10, 101, 2), (20, 200, 1), (20, 201, 2), (30, 300, 1)",
        ])
        try bundle(new, version: 4, extra: [BundleSchema.renumberedStations.createSQL, "INSERT INTO renumbered_stations VALUES (400, 300, 4)"], rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei Electric', 2, 1), (4, 'New Rail', 5, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL), (20, 'Main', 2, 1, 1), (40, 'New Line', 4, 1, NULL)",
            station(100, "東京", weight: 2),
            station(200, "Aoto", lat: 35_795_000, lng: 139_856_000, operatorID: 2, enabled: 0, weight: 12),
            station(201, "京成高砂", operatorID: 2, weight: 11, yomi: "けいせいたかさご"),
            station(400, "New", operatorID: 4, weight: 13),
            "INSERT INTO stations_lines VALUES (40, 400, 1), (20, 201, 2), (20, 200, 5), (10, 100, 1)",
        ])
        return (old, new)
    }

    /// A small pair whose every format is pinned byte for byte.
    static func formatsPair(in dir: String) throws -> (old: String, new: String) {
        let old = dir + "/v1.sqlite", new = dir + "/v2.sqlite"
        try bundle(old, version: 1, rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei', 2, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL)",
            station(100, "東京", lat: 35_681_382, lng: 139_766_084, weight: 1),
            station(101, "上野", lat: 35_713_768, lng: 139_777_254, weight: 11),
            "INSERT INTO stations_lines VALUES (10, 100, 1), (10, 101, 2)",
        ])
        try bundle(new, version: 2, rows: [
            "INSERT INTO operators VALUES (1, 'JR東日本', 1, 1), (2, 'Keisei | \"Electric\"', 2, 1)",
            "INSERT INTO lines VALUES (10, '山手線', 1, 1, NULL)",
            station(100, "東京", lat: 35_682_382, lng: 139_766_084, weight: 2),
            station(102, "神田", lat: 35_691_690, lng: 139_770_883, weight: 12),
            "INSERT INTO stations_lines VALUES (10, 100, 1), (10, 102, 2)",
        ])
        return (old, new)
    }

    // MARK: - Tools

    static func stationdb() throws -> String { try BuiltTools.stationdb() }

    static func which(_ tool: String) -> String? { BuiltTools.which(tool) }

    static func sqldiff() throws -> String { try BuiltTools.sqldiff() }

    /// Runs a program; returns its status, stdout and stderr.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        // Read before waiting, so a large output cannot fill the pipe and stall the child.
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    /// What sqldiff says changed in a table with an INTEGER PRIMARY KEY (the first
    /// column): the keys it inserts, updates and deletes.
    static func sqldiffKeys(_ output: String, table: String) -> (inserted: Set<Int64>, updated: Set<Int64>, deleted: Set<Int64>) {
        var inserted = Set<Int64>(), updated = Set<Int64>(), deleted = Set<Int64>()
        func firstInteger(after marker: String, in line: Substring) -> Int64? {
            guard let r = line.range(of: marker) else { return nil }
            return Int64(line[r.upperBound...].prefix { $0 == "-" || $0.isNumber })
        }
        for line in output.split(separator: "\n") {
            if line.hasPrefix("INSERT INTO \(table)(") || line.hasPrefix("INSERT INTO \(table) (") {
                if let k = firstInteger(after: "VALUES(", in: line) { inserted.insert(k) }
            } else if line.hasPrefix("UPDATE \(table) ") {
                if let r = line.range(of: " WHERE ", options: .backwards), let k = firstInteger(after: "=", in: line[r.upperBound...]) { updated.insert(k) }
            } else if line.hasPrefix("DELETE FROM \(table) ") {
                if let k = firstInteger(after: "=", in: line) { deleted.insert(k) }
            }
        }
        return (inserted, updated, deleted)
    }
}
