import StationCore

/// What `stationdb verify` found in a good bundle.
package struct VerifyReport: Sendable {
    package var path: String
    package var version: Int
    package var rowCounts: [String: Int]
    /// The bundle file checked.
    package var database: String
    /// What the apps can show but a user would miss: live stations on no line (absent from
    /// every line list), live lines with no stations (an empty list). Real data has a few.
    package var warnings: [Diagnostic] = []

    package var line: String { "ok: \(path) version \(version), \(BundleBuilder.countsText(rowCounts))" }
}

/// Checks a dist folder (through latest.json), a version folder (through its
/// manifest.json) or a bare .sqlite bundle, and reports every problem at once:
/// SQLite's integrity check, the schema against bundle.md, checksums and sizes
/// against the manifest, user_version, references between tables, weights 1..13,
/// coordinates inside Japan and prefectures 1..47.
package enum BundleVerifier {
    /// Rows listed per kind of problem before "... and N more".
    static let listLimit = 10

    package static func verify(path: String) throws -> VerifyReport {
        var problems = DiagnosticCollector(limit: 500)
        guard Files.exists(path) else { throw StationError.badInput(SourceLocation(file: path), "no such file or folder") }
        var report: VerifyReport
        let manifest = joinPath(path, DistLayout.manifest)
        switch BundleLocation.kind(of: path) {
        case .dist:
            report = try verifyDist(path, latest: joinPath(path, DistLayout.latest), &problems)
        case .version where Files.exists(manifest):
            report = try verifyVersionFolder(path, manifest: manifest, &problems)
        case .file:
            try BundleLocation.checkSQLite(path)
            let (version, counts) = checkDatabase(path, expectedVersion: nil, &problems)
            report = VerifyReport(path: path, version: version, rowCounts: counts, database: path)
        case .version, nil:
            throw StationError.badInput(SourceLocation(file: path),
                             "neither a dist folder (no \(DistLayout.latest)) nor a version folder (no \(DistLayout.manifest))")
        }
        try problems.check(damaged: true)
        report.warnings = lineWarnings(report.database)
        return report
    }

    // MARK: - dist and version folders

    static func verifyDist(_ dist: String, latest: String, _ problems: inout DiagnosticCollector) throws -> VerifyReport {
        let bundle = try PublishedBundle.read(path: latest)
        let databasePath = joinPath(dist, bundle.database)
        let (counts, missing) = checkDescribed(bundle, file: latest, base: dist, database: databasePath, &problems)
        // The version folder must agree with itself too.
        let folder = parentFolder(of: databasePath)
        let manifestPath = joinPath(folder, DistLayout.manifest)
        if Files.exists(manifestPath) {
            let manifest = try PublishedBundle.read(path: manifestPath)
            DistLayout.checkFiles(manifest.files, in: folder, manifest: manifestPath, saidMissing: missing, &problems)
            if let differs = bundle.difference(from: manifest, at: manifestPath) { problems.add(SourceLocation(file: latest), differs) }
        } else {
            problems.add(SourceLocation(file: manifestPath), "missing")
        }
        // Every version published before it too (previous_version, back to the first): each is
        // served for good, and a publish diffs from it. A dead run's folder was never published.
        var (version, previous) = (bundle.version, bundle.previousVersion)
        while let earlier = previous, earlier < version {
            let path = joinPath(joinPath(dist, String(earlier)), DistLayout.manifest)
            guard Files.exists(path) else { problems.add(SourceLocation(file: path), "missing"); break }
            let manifest = try PublishedBundle.read(path: path)
            DistLayout.checkFiles(manifest.files, in: parentFolder(of: path), manifest: path, &problems)
            (version, previous) = (earlier, manifest.previousVersion)
        }
        return VerifyReport(path: dist, version: bundle.version, rowCounts: counts, database: databasePath)
    }

    static func verifyVersionFolder(_ folder: String, manifest path: String, _ problems: inout DiagnosticCollector) throws -> VerifyReport {
        let manifest = try PublishedBundle.read(path: path)
        let databasePath = joinPath(folder, DistLayout.database)
        // Paths in the manifest are relative to dist/, i.e. to this folder's parent.
        let (counts, missing) = checkDescribed(manifest, file: path, base: parentFolder(of: folder), database: databasePath, &problems)
        DistLayout.checkFiles(manifest.files, in: folder, manifest: path, saidMissing: missing, &problems)
        return VerifyReport(path: folder, version: manifest.version, rowCounts: counts, database: databasePath)
    }

    /// What `described` (latest.json or a manifest, at `file`; its paths relative to `base`) says
    /// of its files, and its database itself; the row counts, and the database when it is missing.
    static func checkDescribed(_ described: PublishedBundle, file: String, base: String, database: String,
                               _ problems: inout DiagnosticCollector) -> (counts: [String: Int], missing: Set<String>) {
        checkFacts(described, file: file, base: base, databasePath: database, &problems)
        // A missing database is said once, by checkFacts: its counts and its entry in the
        // manifest would only say it again, in other words.
        guard Files.exists(database) else { return ([:], [database]) }
        let counts = checkDatabase(database, expectedVersion: described.version, &problems).1
        for name in BundleBuilder.tableOrder where described.rows[name] != counts[name] {
            problems.add(SourceLocation(file: file, field: "rows.\(name)"),
                         "says \(described.rows[name].map(String.init) ?? "nothing"), the database has \(counts[name] ?? 0)")
        }
        return (counts, [])
    }

    /// sha256/bytes of the database, the gzip (which must also inflate to the database) and the patch.
    static func checkFacts(_ bundle: PublishedBundle, file: String, base: String, databasePath: String, _ problems: inout DiagnosticCollector) {
        func add(_ field: String, _ message: String) { problems.add(SourceLocation(file: file, field: field), message) }
        /// The sha256 and size of the file at `path`, each said where the description claims
        /// another; nil, said under `field`, when the file is missing.
        func facts(_ path: String, _ field: String, sha256: (field: String, claimed: String), bytes: (field: String, claimed: Int)? = nil) -> (sha256: String, bytes: Int)? {
            guard let sha = try? SHA256.hex(fileAt: path), let size = Files.size(of: path) else { add(field, "\(path) is missing"); return nil }
            if sha != sha256.claimed { add(sha256.field, "\(path) has sha256 \(sha), the manifest says \(sha256.claimed)") }
            if let bytes, size != bytes.claimed { add(bytes.field, "\(path) has \(size) bytes, the manifest says \(bytes.claimed)") }
            return (sha, size)
        }
        guard let database = facts(databasePath, "database", sha256: ("sha256", bundle.sha256), bytes: ("bytes", bundle.bytes)) else { return }
        let gzipPath = joinPath(base, bundle.gzip)
        if facts(gzipPath, "gzip", sha256: ("gzip_sha256", bundle.gzipSHA256), bytes: ("gzip_bytes", bundle.gzipBytes)) != nil {
            if let inflated = try? Gzip.decompress(fileAt: gzipPath, to: nil, maxBytes: database.bytes + 1) {
                if inflated.sha256 != database.sha256 || inflated.bytes != database.bytes { problems.add(SourceLocation(file: gzipPath), "does not inflate to \(databasePath)") }
            } else {
                problems.add(SourceLocation(file: gzipPath), "is not a valid gzip file, or does not inflate to \(databasePath)")
            }
        }
        if let patch = bundle.patch, let expected = bundle.patchSHA256 {
            _ = facts(joinPath(base, patch), "patch", sha256: ("patch_sha256", expected))
        }
    }

    // MARK: - The database itself

    /// Returns the user_version and row counts found, adding every problem.
    static func checkDatabase(_ path: String, expectedVersion: Int?, _ problems: inout DiagnosticCollector) -> (Int, [String: Int]) {
        func add(_ field: String?, _ message: String) { problems.add(SourceLocation(file: path, field: field), message) }
        guard Files.exists(path) else { add(nil, "missing"); return (0, [:]) }
        let db: SQLiteDatabase
        do { db = try SQLiteDatabase(path: path, mode: .readOnly) } catch { add(nil, "cannot open: \(error)"); return (0, [:]) }
        defer { db.close() }

        do {
            let rows = try db.query("PRAGMA integrity_check(\(listLimit))")
            let messages = rows.compactMap { $0.first?.textValue }
            if messages != ["ok"] {
                for m in messages { add("integrity_check", m) }
            }
        } catch {
            // Too damaged to even check: nothing else can be trusted either.
            let reason = (error as? SQLiteError).map { "SQLite error \($0.code): \($0.message)" } ?? "\(error)"
            add("integrity_check", "the database is damaged or not SQLite (\(reason))")
            return (0, [:])
        }

        var schemaProblems = Set<String>()
        do {
            let schema = try BundleSchema.problems(in: db)
            for problem in schema.problems { add("schema", problem) }
            schemaProblems = schema.broken
        } catch { add("schema", "cannot be checked: \(error)") }
        var version = 0
        do {
            version = try db.userVersion
            if let expectedVersion, version != expectedVersion {
                add("user_version", "is \(version), the manifest says \(expectedVersion)")
            } else if version < 1 {
                add("user_version", "is \(version); a bundle's version is a positive integer")
            }
        } catch { add("user_version", "cannot be read: \(error)") }

        var counts: [String: Int] = [:]
        for name in BundleBuilder.tableOrder where !schemaProblems.contains(name) {
            counts[name] = (try? db.scalarInt("SELECT count(*) FROM \(name)")) ?? 0
        }

        func listRows(_ sql: String, field: String, _ message: ([SQLValue]) -> String) {
            do {
                let rows = try db.query(sql)
                for row in rows.prefix(listLimit) { add(field, message(row)) }
                if rows.count > listLimit { add(field, "... and \(rows.count - listLimit) more") }
            } catch { add(field, "cannot be checked: \(error)") }
        }
        // Each reference between tables, and each value's range, once the tables it reads are whole.
        let checks: [(tables: [String], sql: String, field: String, message: ([SQLValue]) -> String)] = [
            (["stations_lines", "stations"], "SELECT l_id, s_id FROM stations_lines WHERE s_id NOT IN (SELECT s_id FROM stations) ORDER BY l_id, s_id",
             "stations_lines", { "l_id \($0[0]) s_id \($0[1]): station \($0[1]) does not exist" }),
            (["stations_lines", "lines"], "SELECT l_id, s_id FROM stations_lines WHERE l_id NOT IN (SELECT l_id FROM lines) ORDER BY l_id, s_id",
             "stations_lines", { "l_id \($0[0]) s_id \($0[1]): line \($0[0]) does not exist" }),
            (["stations", "operators"], "SELECT s_id, o_id FROM stations WHERE o_id NOT IN (SELECT o_id FROM operators) ORDER BY s_id",
             "stations", { "s_id \($0[0]): operator \($0[1]) does not exist" }),
            (["lines", "operators"], "SELECT l_id, o_id FROM lines WHERE o_id NOT IN (SELECT o_id FROM operators) ORDER BY l_id",
             "lines", { "l_id \($0[0]): operator \($0[1]) does not exist" }),
            (["renumbered_stations", "stations"],
             "SELECT new_s_id, old_s_id FROM renumbered_stations WHERE new_s_id NOT IN (SELECT s_id FROM stations) ORDER BY new_s_id, old_s_id",
             "renumbered_stations", { "\($0[0]) <- \($0[1]): station \($0[0]) does not exist" }),
            (["stations"], "SELECT s_id, weight FROM stations WHERE typeof(weight) != 'integer' OR weight NOT BETWEEN 1 AND 13 ORDER BY s_id",
             "stations.weight", { "s_id \($0[0]): weight \($0[1].sqlLiteral) is not 1..13" }),
            (["stations"], "SELECT s_id, pref FROM stations WHERE typeof(pref) != 'integer' OR pref NOT BETWEEN 1 AND 47 ORDER BY s_id",
             "stations.pref", { "s_id \($0[0]): pref \($0[1].sqlLiteral) is not 1..47" }),
            (["stations"], "SELECT s_id, lat, lng FROM stations WHERE typeof(lat) != 'integer' OR typeof(lng) != 'integer' "
                + "OR lat NOT BETWEEN \(MicroDegrees.japanLat.lowerBound) AND \(MicroDegrees.japanLat.upperBound) "
                + "OR lng NOT BETWEEN \(MicroDegrees.japanLng.lowerBound) AND \(MicroDegrees.japanLng.upperBound) ORDER BY s_id",
             "stations.lat/lng", { "s_id \($0[0]): \($0[1].sqlLiteral), \($0[2].sqlLiteral) is outside Japan (integer micro-degrees, 20..46 N, 122..154 E)" }),
        ]
        for check in checks where check.tables.allSatisfy({ !schemaProblems.contains($0) }) {
            listRows(check.sql, field: check.field, check.message)
        }
        return (version, counts)
    }

    /// Live stations on no line, and live lines with no live station (PublishGuards, which
    /// refuses to publish them), in a bundle that passed every check: every one of them (the
    /// command lists a few and counts them all). A disabled line is left alone: the apps
    /// never list it, and a fix disables a line for just that.
    static func lineWarnings(_ path: String) -> [Diagnostic] {
        guard let db = try? SQLiteDatabase(path: path, mode: .readOnly) else { return [] }
        defer { db.close() }
        func list(_ sql: String, field: String, _ message: ([SQLValue]) -> String) -> [Diagnostic] {
            ((try? db.query(sql)) ?? []).map { Diagnostic(SourceLocation(file: path, field: field), message($0)) }
        }
        return list("SELECT s_id, station FROM stations WHERE enabled = 1 AND s_id NOT IN (SELECT s_id FROM stations_lines) ORDER BY s_id",
                    field: "stations") { "s_id \($0[0]) \($0[1].textValue ?? ""): a live station on no line (in no line's list)" }
            + ((try? PublishGuards.emptyLines(in: path)) ?? []).map {
                Diagnostic(SourceLocation(file: path, field: "lines"), "l_id \($0.id) \($0.name): a live line with no live station (an empty list)")
            }
    }
}
