import Foundation
import StationCore

/// A tiny published dist/ with three versions, built the way BuildDB lays it
/// out: <v>/stations.sqlite, <v>/stations.sqlite.gz, <v>/patch-from-<v-1>.sql
/// and latest.json naming the current one.
///
/// v1: stations 100, 101, 102.
/// v2: 100's address gains a newline (char(10) in the patch), 103 added (its
///     name broken over two patch lines inside the quotes), 102 renumbered to 202.
/// v3: 101 renamed, 202 renumbered to 302.
struct DistFixture {
    struct StationRow: Equatable {
        var id: Int
        var name: String
        var address: String
    }

    static let versions: [Int: [StationRow]] = [
        1: [StationRow(id: 100, name: "東京", address: "千代田区"),
            StationRow(id: 101, name: "神田", address: "千代田区"),
            StationRow(id: 102, name: "秋葉原", address: "千代田区")],
        2: [StationRow(id: 100, name: "東京", address: "千代田区\n丸の内"),
            StationRow(id: 101, name: "神田", address: "千代田区"),
            StationRow(id: 103, name: "御徒町", address: "台東区"),
            StationRow(id: 202, name: "秋葉原", address: "千代田区")],
        3: [StationRow(id: 100, name: "東京", address: "千代田区\n丸の内"),
            StationRow(id: 101, name: "神田 (JR)", address: "千代田区"),
            StationRow(id: 103, name: "御徒町", address: "台東区"),
            StationRow(id: 302, name: "秋葉原", address: "千代田区")],
    ]

    static let renumbered: [Renumbering] = [
        Renumbering(newID: 202, oldID: 102, version: 2),
        Renumbering(newID: 302, oldID: 202, version: 3),
    ]

    let dist: String

    init(dist: String) throws {
        self.dist = dist
        for version in DistFixture.versions.keys.sorted() {
            try Files.createFolder("\(dist)/\(version)")
            let db = "\(dist)/\(version)/stations.sqlite"
            try DistFixture.makeBundle(version: version, at: db)
            _ = try Gzip.compress(fileAt: db, to: db + ".gz")
            if version > 1 {
                try DistFixture.patch(from: version - 1, to: version)
                    .write(toFile: "\(dist)/\(version)/patch-from-\(version - 1).sql", atomically: true, encoding: .utf8)
            }
        }
    }

    static func makeBundle(version: Int, at path: String) throws {
        unlink(path)
        let db = try SQLiteDatabase(path: path, mode: .create)
        defer { db.close() }
        try db.transaction {
            for sql in BundleSchema.createStatements { try db.execute(sql) }
            try db.execute("INSERT INTO operators VALUES (1, 'JR東日本', 1, 1)")
            try db.execute("INSERT INTO lines VALUES (11, '山手線', 1, 1, NULL)")
            for (sort, s) in versions[version]!.enumerated() {
                _ = try db.query("INSERT INTO stations VALUES (?, ?, 'よみ', '', 13, ?, ?, 139766084, 1, 1, 11)",
                             [.integer(Int64(s.id)), .text(s.name), .text(s.address), .integer(Int64(35_681_382 + sort))])
                _ = try db.query("INSERT INTO stations_lines VALUES (11, ?, ?)", [.integer(Int64(s.id)), .integer(Int64(sort + 1))])
            }
            for r in renumbered where r.version <= version {
                _ = try db.query("INSERT INTO renumbered_stations VALUES (?, ?, ?)", [.integer(Int64(r.newID)), .integer(Int64(r.oldID)), .integer(Int64(r.version))])
            }
            try db.execute("PRAGMA user_version = \(version)")
        }
    }

    static func rawLiteral(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A literal broken over two lines inside its quotes: the Android runner
    /// joins the lines without the newline, so the value arrives whole.
    static func splitLiteral(_ s: String) -> String {
        let cut = s.index(after: s.startIndex)
        return rawLiteral(String(s[..<cut]) + "\n" + String(s[cut...]))
    }

    static func patch(from old: Int, to new: Int) -> String {
        let before = Dictionary(uniqueKeysWithValues: versions[old]!.map { ($0.id, $0) })
        let after = versions[new]!
        var lines: [String] = []
        for s in before.values.sorted(by: { $0.id < $1.id }) where !after.contains(where: { $0.id == s.id }) {
            lines.append("DELETE FROM stations_lines WHERE s_id = \(s.id);")
            lines.append("DELETE FROM stations WHERE s_id = \(s.id);")
        }
        for (sort, s) in after.enumerated() {
            if let b = before[s.id] {
                if b != s {
                    // sqlLiteral spells a newline char(10): the Android runner drops raw ones.
                    lines.append("UPDATE stations SET station = \(SQLValue.text(s.name).sqlLiteral), address = \(SQLValue.text(s.address).sqlLiteral) WHERE s_id = \(s.id);")
                }
                lines.append("UPDATE stations SET lat = \(35_681_382 + sort) WHERE s_id = \(s.id);")
                lines.append("UPDATE stations_lines SET s_sort = \(sort + 1) WHERE s_id = \(s.id);")
            } else {
                lines.append("INSERT OR IGNORE INTO stations VALUES (\(s.id), \(splitLiteral(s.name)), 'よみ', '', 13, \(rawLiteral(s.address)), \(35_681_382 + sort), 139766084, 1, 1, 11);")
                lines.append("INSERT OR IGNORE INTO stations_lines VALUES (11, \(s.id), \(sort + 1));")
            }
        }
        for r in renumbered where r.version == new {
            lines.append("INSERT OR IGNORE INTO renumbered_stations VALUES (\(r.newID), \(r.oldID), \(r.version));")
        }
        lines.append("PRAGMA user_version = \(new);")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes latest.json naming `version` as the current bundle.
    func publish(_ version: Int, gzipSHA256: String? = nil, bytes: Int? = nil) throws {
        let db = "\(dist)/\(version)/stations.sqlite"
        let gz = db + ".gz"
        var manifest: [String: Any] = [
            "version": version,
            "previous_version": version > 1 ? version - 1 : NSNull(),
            "database": "\(version)/stations.sqlite",
            "sha256": try SHA256.hex(fileAt: db),
            "bytes": try bytes ?? size(db),
            "gzip": "\(version)/stations.sqlite.gz",
            "gzip_sha256": try gzipSHA256 ?? SHA256.hex(fileAt: gz),
            "gzip_bytes": try size(gz),
            "patch": version > 1 ? "\(version)/patch-from-\(version - 1).sql" : NSNull(),
            "rows": ["operators": 1, "lines": 1, "stations": DistFixture.versions[version]!.count,
                     "stations_lines": DistFixture.versions[version]!.count],
            "renumbered": DistFixture.renumbered.filter { $0.version == version }
                .map { ["new_s_id": $0.newID, "old_s_id": $0.oldID, "version": $0.version] },
        ]
        if version > 1 { manifest["patch_sha256"] = try SHA256.hex(fileAt: "\(dist)/\(version)/patch-from-\(version - 1).sql") }
        let data = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: "\(dist)/latest.json"))
    }

    private func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as! NSNumber).intValue
    }

    /// Every client table and renumbered_stations, rows sorted: what two
    /// databases must agree on, whatever their page layout.
    static func dump(_ path: String) throws -> [String: [[SQLValue]]] {
        let db = try SQLiteDatabase(path: path, mode: .readOnly)
        defer { db.close() }
        var out: [String: [[SQLValue]]] = [:]
        for table in BundleSchema.tables.map(\.name) + ["renumbered_stations"] {
            out[table] = try db.query("SELECT * FROM \(table) ORDER BY 1, 2, 3")
        }
        out["user_version"] = [[.integer(Int64(try db.userVersion))]]
        return out
    }
}
