import BuildDB
import StationCore
import FoundationEssentials
import Glibc

package struct PullReport: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case upToDate
        /// Patched, in place.
        case patched
        /// The bundle's tables replaced by the full database's, in place.
        case replaced
    }

    package var kind: Kind
    package var localVersion: Int
    package var publishedVersion: Int
    /// Completion records carried over to renumbered stations.
    package var recordsCopied: Int
    /// Why a patch was not used although one was offered, if it was tried.
    package var patchProblem: String?
}

/// The reference client: what an app does on startup to bring its station
/// database up to the published version, without ever leaving it damaged.
///
/// The database is never replaced under the app that has it open: it is updated in
/// place, through SQLite, in one transaction on a connection of its own, which takes
/// the write lock at once (`BEGIN IMMEDIATE`). SQLite's own locking and journal, in
/// whichever mode the app uses (rollback or WAL), then order the app's writes and the
/// update, and a failure or a kill rolls the update back whole. Everything of the
/// user's in it (completions, and any table, view, index or trigger that is not the
/// bundle's) stays, or the database is left as it was.
package final class BundleClient {
    package let baseURL: String
    package let databasePath: String
    package let http: HTTPClient

    /// A `databasePath` that is a symbolic link stands for the file it leads to, which
    /// is the one updated (its temporary files go beside it).
    package init(baseURL: String, databasePath: String, http: HTTPClient) {
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.databasePath = (try? AtomicFile.destination(databasePath)) ?? databasePath
        self.http = http
    }

    func url(_ relative: String) -> String { baseURL + "/" + relative }

    private var temporaryBase: String { AtomicFile.temporaryPath(for: databasePath) }

    package func pull() throws -> PullReport {
        _ = try AtomicFile.destination(databasePath) // a regular file or a new path, never a FIFO or a device
        try ensureParentFolder()
        removeLeftovers()
        let manifest = try fetchManifest()
        let local = try localVersion()
        var report = PullReport(kind: .upToDate, localVersion: local, publishedVersion: manifest.version, recordsCopied: 0)
        if manifest.version <= local { return report }

        if let patch = manifest.patch, local > 0, manifest.previousVersion == local {
            do {
                report.recordsCopied = try applyPatch(patch, manifest: manifest, localVersion: local)
                report.kind = .patched
                return report
            } catch let error as StationError where error.sqlite?.code.primaryResultCode == .SQLITE_BUSY {
                throw error   // the app's write holds it: so would it the full database's
            } catch {
                // Whatever kept the patch from applying (missing, damaged, refused,
                // failing), the full database does the same job.
                report.patchProblem = (error as? StationError)?.transfer?.description ?? "\(error)"
            }
            Events.send(PatchNotUsed(reason: report.patchProblem ?? ""))
        }
        // The version the database has in the update's transaction counts: another pull may have updated it meanwhile.
        (report.localVersion, report.recordsCopied) = try replaceWithFullDatabase(manifest: manifest)
        if report.localVersion < manifest.version { report.kind = .replaced }
        return report
    }

    // MARK: - Steps

    private func ensureParentFolder() throws {
        let folder = parentFolder(of: databasePath)
        guard !folder.isEmpty else { return }
        try Files.createFolder(folder)
    }

    /// The endings of the temporary files a pull makes beside the database
    /// (`.<db>.tmp-<pid>` and one of these): the manifest, the patch, the gzip,
    /// the new database and SQLite's files for it.
    static let temporarySuffixes: Set<Substring> = ["", ".latest.json", ".patch", ".gz", ".registry", "-journal", "-wal", "-shm"]

    /// Removes what killed pulls left beside the database; the files of a pull
    /// still running in another process stay.
    func removeLeftovers() {
        let parent = parentFolder(of: databasePath)
        let folder = parent.isEmpty ? "." : parent
        let prefix = "." + fileName(of: databasePath) + ".tmp-"
        for name in Files.names(in: folder) where name.hasPrefix(prefix) {
            guard let (pid, rest) = leadingProcessID(name.dropFirst(prefix.count)),
                  Self.temporarySuffixes.contains(rest), isGone(pid) else { continue }
            unlink(joinPath(folder, name))
        }
    }

    func fetchManifest() throws -> PublishedBundle {
        let manifestURL = url("latest.json")
        let data = try http.fetchData(manifestURL, to: temporaryBase + ".latest.json")
        let manifest = try PublishedBundle.decode(data) { error in
            StationError(.badContent(url: manifestURL, file: DistLayout.latest, reason: "\(error.keyPath.map { "\($0): " } ?? "")\(error.reason); is this the dist/ folder of a build?"))
        }
        if manifest.bytes <= 0 || manifest.gzipBytes <= 0 {
            throw StationError(.badContent(url: manifestURL, file: DistLayout.latest, reason: "bytes and gzip_bytes must be positive"))
        }
        return manifest
    }

    /// The local database's user_version, or 0 when there is none yet. Read-write, so that
    /// SQLite rolls back what a killed writer left (a hot journal), which a read-only
    /// connection cannot; waiting for the app's write as the update does.
    func localVersion() throws -> Int {
        guard Files.exists(databasePath) else { return 0 }
        do {
            let db = try SQLiteDatabase(path: databasePath, mode: .readWrite)
            defer { db.close() }
            db.waitWhileBusy(milliseconds: Self.writerWait)
            return try db.userVersion
        } catch {
            throw StationError.environment("cannot read the local database \(databasePath): \(error); move it away to start afresh")
        }
    }

    /// How long pull waits for an app's write in progress (its transaction) before it gives up (exit 3).
    static let writerWait = 10_000

    /// Runs `body` on a connection of the user's database (made when there is none yet) in
    /// one transaction that takes SQLite's write lock at once, with the database at `attach`
    /// attached read-only as `bundle`: committed when `body` returns, rolled back when it
    /// throws. The app's writes wait for it, as it waits for theirs (`writerWait`): SQLite
    /// orders them, in rollback-journal and WAL mode alike, and a kill leaves the old version.
    /// Only this connection opens the database file while the lock is held: closing any other
    /// descriptor of it would drop the process's POSIX locks on it, SQLite's among them.
    private func updateInPlace<T>(attach: String? = nil, _ body: (SQLiteDatabase) throws -> T) throws -> T {
        do {
            let db = try SQLiteDatabase(path: databasePath, mode: .create)
            defer { db.close() }
            db.waitWhileBusy(milliseconds: Self.writerWait)
            // The bundle's pages stay in memory until the commit, not spilled to the file midway.
            try db.execute("PRAGMA cache_size = -65536")
            // ATTACH cannot run inside a transaction.
            if let attach { try db.attachReadOnly(attach, as: "bundle") }
            return try db.transaction(.immediate) { try body(db) }
        } catch let error as SQLiteError {
            let busy = error.code.primaryResultCode == .SQLITE_BUSY
            throw StationError.environment("cannot update \(databasePath) (\(error.message))"
                                           + (busy ? ": another program has been writing it for \(Self.writerWait / 1000) s; try again" : "")
                                           + "; it is left as it was", cause: .sqlite(error))
        }
    }

    /// Downloads the patch and runs it in place, in one transaction with every check of
    /// its result: a failure leaves the database as it was.
    private func applyPatch(_ relative: String, manifest: PublishedBundle, localVersion: Int) throws -> Int {
        let patchURL = url(relative)
        let patchPath = temporaryBase + ".patch"
        defer { unlink(patchPath) }

        let download = try named(patchURL) { try http.download(patchURL, to: patchPath) }
        if let expected = manifest.patchSHA256, expected.lowercased() != download.sha256 {
            throw StationError(.checksumMismatch(what: patchURL, expected: "sha256 \(expected)", actual: download.sha256))
        }
        guard let sql = String(validating: try Files.read(patchPath), as: UTF8.self) else {
            throw StationError(.corrupt(what: patchURL, reason: "not UTF-8 text"))
        }

        Events.send(PullUpdating(database: databasePath, version: manifest.version))
        return try updateInPlace { db in
            guard try db.userVersion == localVersion else {
                throw StationError.environment("\(databasePath) is no longer at version \(localVersion) (another pull updated it meanwhile)")
            }
            // The limit holds for what the patch makes as for what a download brings.
            try db.limitSize(toBytes: http.options.maxBytes)
            return try update(db, from: localVersion, to: manifest, what: patchURL, downloaded: true) {
                try runPatch(sql, on: db, url: patchURL)
            }
        }
    }

    /// Runs `change` on the user's database, in the update's transaction, and checks what it
    /// made: the bundle's schema and every station the user has a record of kept unless
    /// renumbered; for a `downloaded` patch, latest.json's row counts and every station kept
    /// (the full database's tables are its sha256's). The user's objects stay, and their
    /// triggers never fire on the change. Returns the records copied to renumbered stations.
    private func update(_ db: SQLiteDatabase, from localVersion: Int, to manifest: PublishedBundle, what patchURL: String,
                        downloaded: Bool, _ change: () throws -> Void) throws -> Int {
        let recorded = try Self.recordedIDs(in: db)
        let before = downloaded ? try Self.stationIDs(in: db) : recorded.intersection(try Self.stationIDs(in: db))
        let objects = try BundleCheck.userObjects(in: db)
        // SQLite's own tables (sqlite_sequence, sqlite_stat1) come of the user's use of the database.
        let mine = Set(objects.compactMap { $0["name"].textValue } + ["completions"]
                       + (try db.query("SELECT name FROM main.sqlite_master WHERE name LIKE 'sqlite\\_%' ESCAPE '\\'").compactMap { $0[0].textValue }))
        // The user's triggers on the bundle's tables would fire on the update's own writes: off
        // while it runs, then back as they were.
        let triggers = objects.filter { $0["type"].textValue == "trigger" && BundleCheck.isBundleTable($0["tbl_name"].textValue ?? "") }
        for trigger in triggers { try db.execute("DROP TRIGGER main.\(BundleCheck.quoted(trigger["name"].textValue ?? ""))") }
        try change()
        for trigger in triggers {
            do {
                try db.execute(trigger["sql"].textValue ?? "")
            } catch let error as SQLiteError {
                throw StationError(.corrupt(what: patchURL, reason: "after the patch, the user's trigger \(shown(trigger["name"].textValue ?? "")) no longer applies (\(error.message))"))
            }
        }
        if let problem = try BundleCheck.schemaProblem(in: db, user: mine) {
            throw StationError(.corrupt(what: patchURL, reason: "after the patch: \(problem)"))
        }
        if try db.userVersion != manifest.version {
            try db.execute("PRAGMA user_version = \(manifest.version)")
        }
        if downloaded { try checkRowCounts(db, manifest: manifest, what: patchURL) }
        let pairs = try renumberings(in: db, after: localVersion)
        let copied = try carryCompletions(into: db, renumbered: pairs)
        // A patch may change an s_id only as renumbered_stations says, records or none.
        try Self.checkStationsKept(before, recorded: recorded, in: db, renumbered: pairs, what: patchURL,
                                   rule: downloaded ? "a patch may change or remove an s_id only as renumbered_stations says"
                                        : "a station with a user's record may go only as renumbered_stations says")
        return copied
    }

    /// The steps of SQLite's virtual machine a patch may take: 10,000 for each of its lines
    /// and 100,000,000 besides (about a second). PatchWriter's patches take a few hundred
    /// steps a statement (each changes rows by their key); what takes more is no patch.
    static func workBound(ofPatch sql: String) -> Int {
        100_000_000 + 10_000 * sql.utf8.count { $0 == 0x0A || $0 == 0x0D }
    }

    /// Runs a downloaded patch as the Android client does, under PatchPolicy and the work
    /// bound, saying what went wrong in a download's terms.
    private func runPatch(_ sql: String, on db: SQLiteDatabase, url patchURL: String) throws {
        let limit = http.options.maxBytes
        let bound = Self.workBound(ofPatch: sql)
        do {
            // In the update's transaction, which the policy keeps the patch from ending.
            let script = try SQLScript(sql, file: patchURL)
            try db.limitingWork(to: bound) { try db.authorizing(PatchPolicy.authorizer) { try script.run(on: db) } }
        } catch let error as StationError where error.statement != nil {
            let failure = error.statement!
            let line = "line \(failure.location.line ?? 0)", statement = "(in: \(shown(failure.statement)))"
            if failure.isInterrupted {
                throw StationError(.corrupt(what: patchURL, reason: "\(line): more work than a patch may do (past \(bound) steps of SQLite, "
                                            + "where a patch changes rows by their key) \(statement)"))
            }
            if let refusal = failure.refusal {
                throw StationError(.corrupt(what: patchURL, reason: "\(line): refused: \(refusal); a patch may only change the bundle's tables"
                                            + " and set PRAGMA user_version \(statement)"))
            }
            if failure.isFull {
                throw StationError(.corrupt(what: patchURL, reason: "\(line): the patched database would pass the limit of \(limit) bytes"
                                            + " (--max-bytes) \(statement)"))
            }
            throw StationError(.corrupt(what: patchURL, reason: "\(line): \(failure.problem) \(statement)"))
        } catch let error as StationError where error.kind == .badInput {
            throw StationError(.corrupt(what: patchURL, reason: "\(error)"))
        }
    }

    /// Downloads the gzip of the full database, verifies both digests, and replaces the
    /// bundle's tables in place with its own, in one transaction: the version the database
    /// had then (nothing is done when it is the published one already) and the records copied.
    private func replaceWithFullDatabase(manifest: PublishedBundle) throws -> (from: Int, copied: Int) {
        let newPath = temporaryBase
        defer { removeDatabaseFiles(newPath) }
        try downloadDatabase(manifest, to: newPath)
        Events.send(PullUpdating(database: databasePath, version: manifest.version))
        if try placeFirst(newPath) { return (0, 0) }
        return try updateInPlace(attach: newPath) { db in
            let local = try db.userVersion
            guard local < manifest.version else { return (local, 0) }
            // A database that holds a bundle as published takes its difference from the download,
            // run as a patch (every check of one made): only what changed is written. Any other
            // (none yet, its tables changed by hand) takes the download's tables whole.
            let what = url(manifest.database)
            try db.execute("SAVEPOINT difference")
            do {
                let difference = try BundleDifference.between(attached: db, oldPath: databasePath, newPath: newPath, old: "main", new: "bundle")
                let copied = try update(db, from: local, to: manifest, what: what, downloaded: false) {
                    try runPatch(PatchWriter.patch(from: difference, toVersion: manifest.version), on: db, url: what)
                }
                try db.execute("RELEASE difference")
                return (local, copied)
            } catch {
                try db.execute("ROLLBACK TO difference; RELEASE difference")
            }
            return (local, try update(db, from: local, to: manifest, what: what, downloaded: false) {
                try BundleCheck.replaceBundleTables(in: db, from: "bundle")
            })
        }
    }

    /// With no database yet, the checked download becomes it, with an empty completions table:
    /// link(2) never replaces a file, so a database an app made meanwhile is kept (false: it
    /// is then updated in place).
    private func placeFirst(_ newPath: String) throws -> Bool {
        guard !Files.exists(databasePath) else { return false }
        do {
            let db = try SQLiteDatabase(path: newPath, mode: .readWrite)
            defer { db.close() }
            try db.execute(BundleSchema.completionsCreateSQL)
        }
        try Files.sync(newPath)
        guard link(newPath, databasePath) == 0 else {
            if errno == EEXIST { return false }
            throw StationError.environment("cannot put the new version in place at \(databasePath): \(systemError())")
        }
        let folder = parentFolder(of: databasePath)
        try Files.sync(folder.isEmpty ? "." : folder)
        return true
    }

    /// The gzip of the published database, checked against latest.json before and after
    /// gunzip (size and sha256), inflated into `path`. The limit is ours, whatever the
    /// manifest claims: a larger claim is refused before the download.
    func downloadDatabase(_ manifest: PublishedBundle, to path: String) throws {
        let limit = http.options.maxBytes
        if manifest.bytes > limit {
            throw StationError(.tooLarge(url: url(manifest.database), limit: limit))
        }
        let gzipURL = url(manifest.gzip)
        let gzipPath = temporaryBase + ".gz"
        defer { unlink(gzipPath) }
        let download = try named(gzipURL) { try http.download(gzipURL, to: gzipPath) }
        if download.bytes != manifest.gzipBytes {
            throw StationError(.checksumMismatch(what: gzipURL, expected: "\(manifest.gzipBytes) bytes", actual: "\(download.bytes) bytes"))
        }
        if download.sha256 != manifest.gzipSHA256.lowercased() {
            throw StationError(.checksumMismatch(what: gzipURL, expected: "sha256 \(manifest.gzipSHA256)", actual: download.sha256))
        }
        removeDatabaseFiles(path)
        let inflated = try http.inflate(gzipPath, to: path, what: gzipURL, declared: manifest.bytes, by: "latest.json")
        if inflated.bytes != manifest.bytes || inflated.sha256 != manifest.sha256.lowercased() {
            throw StationError(.checksumMismatch(what: url(manifest.database),
                                                 expected: "\(manifest.bytes) bytes, sha256 \(manifest.sha256)",
                                                 actual: "\(inflated.bytes) bytes, sha256 \(inflated.sha256)"))
        }
        let version = try { () throws -> Int in
            let db = try SQLiteDatabase(path: path, mode: .readOnly)
            defer { db.close() }
            return try db.userVersion
        }()
        if version != manifest.version {
            throw StationError(.corrupt(what: gzipURL, reason: "holds user_version \(version), not \(manifest.version) as latest.json says; the publication is inconsistent"))
        }
        if let problem = try BundleCheck.schemaProblem(ofBundleAt: path) {
            throw StationError(.corrupt(what: url(manifest.database), reason: problem))
        }
    }

    /// The published version, read as the apps read it, for comparing a new one with
    /// (`stationdb plan --against`): latest.json and the database (checked as a full
    /// download is) into `databasePath`, and the registry the version was published
    /// with when its manifest lists one (checked against the manifest's sha256).
    package func downloadPublished() throws -> Baseline {
        try ensureParentFolder()
        removeLeftovers()
        let manifest = try fetchManifest()
        try downloadDatabase(manifest, to: temporaryBase)
        do { try AtomicFile.commit(temporary: temporaryBase, to: databasePath) } catch { removeDatabaseFiles(temporaryBase); throw error }
        let folder = parentFolder(of: databasePath)
        var registryPath: String?
        let manifestURL = url(manifest.manifest)
        let data = try named(manifestURL) { try http.fetchData(manifestURL, to: temporaryBase + ".latest.json") }
        let files = try PublishedBundle.decode(data) { StationError(.corrupt(what: manifestURL, reason: "not a version's manifest (\($0.reason))")) }.files ?? [:]
        let registry = joinPath(folder, DistLayout.registry)
        unlink(registry)
        if let expected = files[DistLayout.registry] {
            let registryURL = url("\(manifest.version)/\(DistLayout.registry)")
            let download = try named(registryURL) { try http.download(registryURL, to: temporaryBase + ".registry") }
            guard download.sha256 == expected.lowercased() else {
                unlink(temporaryBase + ".registry")
                throw StationError(.checksumMismatch(what: registryURL, expected: "sha256 \(expected)", actual: download.sha256))
            }
            try AtomicFile.commit(temporary: temporaryBase + ".registry", to: registry)
            registryPath = registry
        }
        return Baseline(bundle: manifest, databasePath: databasePath, registryPath: registryPath, label: baseURL, files: files)
    }

    // MARK: - Helpers

    /// Fetches, with `body`, a file latest.json names: one the server does not serve (a
    /// 4xx, a redirect to another protocol) is a damaged or half-deployed dist (exit 3),
    /// not a wrong base URL (which latest.json's own 4xx says, exit 2).
    func named<T>(_ fileURL: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StationError where error.transfer?.isNotServed == true {
            var answer = error.message
            if case .httpStatus(_, let status)? = error.transfer { answer = "HTTP \(status)" }
            throw StationError(.corrupt(what: fileURL, reason: "latest.json names it, but the server answers \(answer); the dist at \(baseURL)"
                                        + " is damaged or half deployed: deploy it again, or tell its publisher"))
        }
    }

    /// The (new, old) pairs the bundle itself states (renumbered_stations) after `version`
    /// whose old s_id it indeed no longer has, in the order they were made, so a station
    /// renumbered twice passes its record along the chain. What latest.json says beside
    /// the bundle is no reason to copy a user's record onto another station.
    func renumberings(in bundle: SQLiteDatabase, after version: Int) throws -> [PublishedBundle.Renumbered] {
        guard try bundle.tableExists("renumbered_stations") else { return [] }
        return try bundle.rows("""
            SELECT new_s_id, old_s_id, version FROM renumbered_stations
            WHERE version > ? AND old_s_id NOT IN (SELECT s_id FROM stations) ORDER BY version, new_s_id, old_s_id
            """, [.integer(Int64(version))]).compactMap { row in
            guard let n = row["new_s_id"].intValue, let o = row["old_s_id"].intValue, let v = row["version"].intValue else { return nil }
            return .init(newStationID: n, oldStationID: o, version: v)
        }
    }

    /// Gives each renumbered station its predecessor's records, every column of them, unless
    /// it has one already (making a completions table when the client has none yet), in
    /// the update's transaction. Returns how many records the renumbering created.
    func carryCompletions(into db: SQLiteDatabase, renumbered: [PublishedBundle.Renumbered]) throws -> Int {
        var copied = 0
        do {
            try db.execute(BundleSchema.completionsCreateSQL)
            // Made only when a record is to be copied: completions may be a view.
            var copy: SQLiteStatement?
            for pair in renumbered {
                let ids = [SQLValue.integer(Int64(pair.newStationID)), .integer(Int64(pair.oldStationID))]
                guard try db.scalarInt("SELECT count(*) FROM completions WHERE s_id = ?2 AND NOT EXISTS (SELECT 1 FROM completions WHERE s_id = ?1)", ids) ?? 0 > 0 else { continue }
                if copy == nil {
                    let others = try db.query("SELECT name FROM pragma_table_xinfo('completions') WHERE hidden = 0 AND name <> 's_id'")
                        .compactMap { $0[0].textValue.map { ", \"" + $0.replacing("\"", with: "\"\"") + "\"" } }.joined()
                    copy = try db.prepare("INSERT INTO completions (s_id\(others)) SELECT ?1\(others) FROM completions WHERE s_id = ?2")
                }
                try copy?.run(ids)
                copied += db.changes
            }
        } catch let error as SQLiteError {
            throw StationError.environment("cannot give renumbered stations their predecessors' records in completions (\(error.message)); the local database is left as it was")
        }
        return copied
    }

    static func stationIDs(in db: SQLiteDatabase) throws -> Set<Int> {
        guard try db.tableExists("stations") else { return [] }
        return Set(try db.query("SELECT s_id FROM stations").compactMap { $0[0].intValue })
    }

    static func recordedIDs(in db: SQLiteDatabase) throws -> Set<Int> {
        // A table, or a view of the user's over another.
        guard try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'completions' AND type IN ('table', 'view')") == 1 else { return [] }
        return Set(try db.query("SELECT s_id FROM completions").compactMap { $0[0].intValue })
    }

    /// Refuses a new database (with the user's records already carried into it) in
    /// which a station of `kept` no longer exists, unless renumberings lead from it
    /// to a station that does; for a station in `recorded`, that station must hold
    /// a record too, or the user's record would be gone with the old s_id. `rule`
    /// says which rule the refusal enforces.
    static func checkStationsKept(_ kept: Set<Int>, recorded: Set<Int>, in db: SQLiteDatabase,
                                  renumbered pairs: [PublishedBundle.Renumbered], what: String, rule: String) throws {
        let live = try stationIDs(in: db)
        let gone = kept.subtracting(live)
        guard !gone.isEmpty else { return }
        let records = try recordedIDs(in: db)
        var successors: [Int: [Int]] = [:]
        for pair in pairs { successors[pair.oldStationID, default: []].append(pair.newStationID) }
        var lost: [Int] = []
        for id in gone.sorted() {
            // Every s_id the renumberings lead to, in any order: a chain made within one version included.
            var reached: Set<Int> = [id]
            var queue = [id]
            while let next = queue.popLast() {
                for new in successors[next] ?? [] where reached.insert(new).inserted { queue.append(new) }
            }
            let targets = reached.intersection(live)
            if targets.isEmpty || (recorded.contains(id) && targets.isDisjoint(with: records)) { lost.append(id) }
        }
        guard !lost.isEmpty else { return }
        let withRecords = lost.filter(recorded.contains)
        let listed = lost.prefix(5).map(String.init).joined(separator: ", ") + (lost.count > 5 ? " and \(lost.count - 5) more" : "")
        throw StationError(.corrupt(what: what, reason: "s_id \(listed) would be gone with no renumbering to a station that exists"
                                    + (withRecords.isEmpty ? "" : " (the user has records of \(withRecords.count))")
                                    + "; \(rule)"))
    }

    private func checkRowCounts(_ db: SQLiteDatabase, manifest: PublishedBundle, what: String) throws {
        let rows = manifest.rows
        let known = Set(BundleSchema.tables.map(\.name) + ["renumbered_stations"])
        for (table, expected) in rows.sorted(by: { $0.key < $1.key }) where known.contains(table) {
            guard try db.tableExists(table) else { continue }
            let actual = try db.scalarInt("SELECT count(*) FROM \(table)") ?? 0
            if actual != expected {
                throw StationError(.corrupt(what: what, reason: "after the patch \(table) has \(actual) rows, latest.json says \(expected)"))
            }
        }
    }

    private func removeDatabaseFiles(_ path: String) {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
    }
}

/// The patch from the client's version could not be used: the whole database is downloaded instead.
package struct PatchNotUsed: Event, Equatable {
    package var reason: String
    package var description: String { "pull: patch not used (\(reason)); downloading the full database" }
}

/// The new version is checked and about to go into the database: in place, once an app's
/// write in progress is done (a test writes there), or as a new file where there is none.
package struct PullUpdating: Event, Equatable {
    package var database: String
    package var version: Int
    package var description: String { "pull: updating \(database) to version \(version)" }
}
