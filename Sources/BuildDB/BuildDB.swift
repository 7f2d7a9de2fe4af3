import BundleDiff
import FoundationEssentials
import Dispatch
import Glibc
import StationModel

// BuildDB: the staging file and the weights become what the apps download.
//
//   BundleBuilder(beforeStep:).build(BuildRequest) -> BuildOutcome (.published / .unchanged)
//                                   throws GuardRefusal (exit 4) when request.guards are exceeded
//                                   against the published version and not request.force
//   BundleWriter.write(network:weights:renumberings:version:to:)   one reproducible bundle file
//   BundleVerifier.verify(path:) -> VerifyReport                     stationdb verify
//   RenumberingFile.read(from:)                                      raw/renumbered.csv
//   Gzip.compress / decompress, ParallelGzip.compress (two threads)  reproducible gzip
//   DistLayout                                                       names inside dist/
//
// Layout of dist/ (all JSON with sorted keys and a trailing newline):
//
//   latest.json                     replaced last, atomically; names the current version
//   <v>/stations.sqlite             the bundle (PRAGMA user_version = v)
//   <v>/stations.sqlite.gz          the same, gzip with mtime 0 and no name
//   <v>/patch-from-<p>.sql          the SQL that turns version p into v (Android form);
//                                   absent for the first version (latest.json "patch": null)
//   <v>/summary.txt                 rows added/removed/changed per table, weight changes
//   <v>/manifest.json               latest.json's facts for v + "files": sha256 of every
//                                   other file in <v>/

/// Names inside dist/.
public enum DistLayout {
    public static let latest = "latest.json"
    public static let database = "stations.sqlite"
    public static let gzip = "stations.sqlite.gz"
    public static let manifest = "manifest.json"
    public static let summary = "summary.txt"
    /// Prefix of the folders a publish builds in; whatever a killed run left is removed by the next.
    public static let temporaryPrefix = ".tmp-"
    public static func patch(from previous: Int) -> String { "patch-from-\(previous).sql" }
}

public struct BuildRequest {
    public var staging: Staging
    /// Where the inputs came from, for messages only.
    public var stagingPath: String
    public var weights: [Int: Int]
    public var weightsPath: String
    /// Every renumbering ever made (raw/renumbered.csv), with its line in that file.
    public var renumberings: [Renumbering: SourceLocation]
    public var dist: String
    /// VERSION=N: must be larger than the published version.
    public var requestedVersion: Int?
    /// Checked against the published version before anything is written to dist/;
    /// `stationdb build` passes DiffGuards.nightly unless told otherwise. The first
    /// version has nothing to compare with, so no guard applies to it.
    public var guards: DiffGuards
    /// Publish even when a guard is exceeded (FORCE_PUBLISH=1): the reasons are still printed.
    public var force: Bool

    public init(staging: Staging, stagingPath: String = "staging", weights: [Int: Int], weightsPath: String = "weights",
                renumberings: [Renumbering: SourceLocation] = [:], dist: String, requestedVersion: Int? = nil,
                guards: DiffGuards = .none, force: Bool = false) {
        self.staging = staging; self.stagingPath = stagingPath; self.weights = weights; self.weightsPath = weightsPath
        self.renumberings = renumberings; self.dist = dist; self.requestedVersion = requestedVersion
        self.guards = guards; self.force = force
    }
}

/// The steps of a publish, in order; a test can fail any of them through `BundleBuilder.beforeStep`.
public enum PublishStep: String, CaseIterable, Sendable {
    case writeDatabase, writeGzip, writePatch, writeSummary, writeManifest, syncFiles, renameFolder, writeLatest
}

public struct PublishedBundle {
    public var version: Int
    public var previousVersion: Int?
    /// dist/<version>
    public var folder: String
    public var rowCounts: [String: Int]
    /// Nil for the first version.
    public var difference: BundleDifference?
    public var weightChanges: Int
    /// What latest.json now holds.
    public var latest: JSON

    /// "170 operators, 616 lines, ..." in table order.
    public var countsText: String { BundleBuilder.countsText(rowCounts) }

    public var changesText: String {
        guard let difference else { return "first version" }
        var parts: [String] = []
        for t in difference.tables where !t.isEmpty {
            parts.append("\(t.shape.name) +\(t.added.count) -\(t.removed.count) ~\(t.changed.count)")
        }
        parts.append("\(weightChanges) weight change\(weightChanges == 1 ? "" : "s")")
        return parts.joined(separator: ", ")
    }
}

public enum BuildOutcome {
    case published(PublishedBundle)
    /// Same contents as the published version, which stays current.
    case unchanged(version: Int)
}

/// What latest.json says about the current version.
public struct PublishedVersion {
    public var version: Int
    /// Absolute (or dist-joined) path of its database.
    public var databasePath: String

    public static func read(dist: String) throws -> PublishedVersion? {
        let path = Path.appending(dist, DistLayout.latest)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let json = try JSONObject(path: path)
        let version = try json.requireInt("version")
        let database = try json.requireString("database")
        return PublishedVersion(version: version, databasePath: Path.appending(dist, database))
    }
}

public struct BundleBuilder {
    /// Called before each publish step; a throw there fails the build at that step.
    public var beforeStep: ((PublishStep) throws -> Void)?

    public init(beforeStep: ((PublishStep) throws -> Void)? = nil) { self.beforeStep = beforeStep }

    /// The version to build: previous + 1, or `requested` when it is larger than previous.
    public static func nextVersion(previous: Int?, requested: Int?) throws -> Int {
        if let requested {
            guard requested >= 1 else {
                throw InputError(SourceLocation(file: "VERSION"), "the version must be a positive integer, found \(requested)")
            }
            if let previous, requested <= previous {
                throw InputError(SourceLocation(file: "VERSION"),
                                 "version \(requested) is not larger than the published version \(previous); versions only grow")
            }
            return requested
        }
        return (previous ?? 0) + 1
    }

    public func build(_ request: BuildRequest) throws -> BuildOutcome {
        let fm = FileManager.default
        let dist = request.dist
        let previous = try PublishedVersion.read(dist: dist)
        let version = try Self.nextVersion(previous: previous?.version, requested: request.requestedVersion)
        // The checks run on the other core while the database is written (the
        // longest step): the database goes into the temporary folder, which a
        // failed check removes before anything is published, and a failed check
        // is what is reported, even when writing failed too. A dist/ made for a
        // build whose inputs fail the checks is removed again (when still empty).
        let validation = Background {
            try Self.validate(request, version: version)
            phase("checked")
        }
        let distExisted = fm.fileExists(atPath: dist)
        var checksFailed = false
        func checked() throws {
            do { try validation.value() } catch { checksFailed = true; throw error }
        }
        do {
            try AtomicFile.createDirectory(dist)
        } catch {
            try checked()
            throw error
        }
        Self.removeLeftovers(in: dist)
        let temporary = Path.appending(dist, "\(DistLayout.temporaryPrefix)\(version)-\(getpid())")
        let final = Path.appending(dist, String(version))
        let latestPath = Path.appending(dist, DistLayout.latest)
        var movedIn = false
        // Work started on other threads is waited for on every way out (unchanged,
        // refused, failed): no thread may still be reading a file of the temporary
        // folder when it is removed, or outlive the call in a library's caller.
        var started: [() -> Void] = []
        defer { for wait in started { wait() } }
        do {
            func file(_ name: String) -> String { Path.appending(temporary, name) }
            let renumberings = request.renumberings.keys.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
            let rowCounts: [String: Int]
            var earlyPieces: [Background<ParallelGzip.EarlySegment?>] = []
            do {
                try AtomicFile.createDirectory(temporary)
                try step(.writeDatabase)
                // What the file holds past page 1 at each commit is final (see BundleWriter):
                // each new piece is compressed on the other core while the rest is written,
                // and only page 1 and the last indexes are left for after.
                let databasePath = file(DistLayout.database)
                var pieceStart = BundleWriter.pageSize
                rowCounts = try BundleWriter.write(network: request.staging.network, weights: request.weights,
                                                   renumberings: renumberings, version: version, to: databasePath) {
                    // The file's size now, not when the other thread gets to it: the cuts,
                    // and so the gzip's bytes, depend only on the contents.
                    let end = AtomicFile.size(of: databasePath) ?? 0
                    guard end > pieceStart else { return }
                    let range = pieceStart..<end
                    pieceStart = end
                    let piece = Background { try ParallelGzip.segment(ofFile: databasePath, range: range, primedAfter: BundleWriter.pageSize) }
                    earlyPieces.append(piece)
                    started.append { _ = try? piece.value() }
                }
            } catch {
                try checked()
                throw error
            }
            try checked()
            // Complete and closed: mapped for the gzip and the digest rather than read.
            guard let database = MappedFile.data(path: file(DistLayout.database)) else {
                throw EnvironmentError("cannot read \(file(DistLayout.database))")
            }
            // Compressing is the slowest step: it runs on another core while the
            // diff, the patch and the summary are made, and is only written below.
            // The database's own digest is taken beside it, for the same reason.
            let pieces = earlyPieces
            let compressed = Background { () throws -> (data: Data, sha256: String) in
                // The pieces only save time: if one could not be made, none is used.
                let made = pieces.map { try? $0.value() }
                let gzip = try ParallelGzip.compress(database, reusing: made.contains { $0 == nil } ? [] : made.compactMap { $0 ?? nil })
                return (gzip, SHA256.hex(gzip))
            }
            let databaseDigest = Background { SHA256.hex(database) }
            // The database is complete and closed: its flush to disk (the longest
            // wait of a publish) starts now instead of at .syncFiles, which waits for it.
            let databasePath = file(DistLayout.database)
            let databaseSynced = Background { try AtomicFile.fsync(path: databasePath) }
            started = [{ _ = try? compressed.value() }, { _ = try? databaseDigest.value() }, { _ = try? databaseSynced.value() }]

            var difference: BundleDifference?
            if let previous {
                guard fm.fileExists(atPath: previous.databasePath) else {
                    throw InputError(SourceLocation(file: latestPath, field: "database"),
                                     "the published database \(previous.databasePath) is missing")
                }
                let d = try BundleDifference.between(oldPath: previous.databasePath, newPath: file(DistLayout.database))
                if d.isEmpty {
                    try? fm.removeItem(atPath: temporary)
                    return .unchanged(version: previous.version)
                }
                try Self.checkRenumberingHistory(d, request: request, version: version)
                if !request.guards.isEmpty {
                    let violations = request.guards.violations(of: try DiffSummary(difference: d, oldPath: previous.databasePath))
                    if !violations.isEmpty {
                        // Nothing is published yet: the catch below removes the temporary folder.
                        guard request.force else { throw GuardRefusal(violations) }
                        for reason in violations { note("publishing anyway (--force): \(reason)") }
                    }
                }
                difference = d
            }
            let weightChanges = difference?["stations"]?.changed.filter { $0.changes.contains { $0.column == "weight" } }.count ?? 0

            // Each file's sha256, taken from the bytes written, for the manifest.
            var digests: [String: String] = [:]
            digests[DistLayout.database] = try databaseDigest.value()

            try step(.writeGzip)
            let gzip = try compressed.value()
            try writeFile(gzip.data, to: file(DistLayout.gzip))
            digests[DistLayout.gzip] = gzip.sha256
            let gzipPath = file(DistLayout.gzip)
            let gzipSynced = Background { try AtomicFile.fsync(path: gzipPath) }
            started.append { _ = try? gzipSynced.value() }

            var patchName: String?
            if let previous, let difference {
                try step(.writePatch)
                patchName = DistLayout.patch(from: previous.version)
                digests[patchName!] = try writeDigested(Data(PatchWriter.patch(from: difference, toVersion: version).utf8), to: file(patchName!))
            }

            try step(.writeSummary)
            let introduced = renumberings.filter { $0.version == version }
            digests[DistLayout.summary] = try writeDigested(Data(Self.summaryText(
                version: version, previous: previous?.version, rowCounts: rowCounts, difference: difference,
                weightChanges: weightChanges, introduced: introduced).utf8), to: file(DistLayout.summary))

            // The facts latest.json and the manifest share; paths are relative to dist/.
            let v = String(version)
            var facts: [String: JSON] = [
                "version": .int(version),
                "previous_version": previous.map { .int($0.version) } ?? .null,
                "database": .string("\(v)/\(DistLayout.database)"),
                "sha256": .string(digests[DistLayout.database]!),
                "bytes": .int(database.count),
                "gzip": .string("\(v)/\(DistLayout.gzip)"),
                "manifest": .string("\(v)/\(DistLayout.manifest)"),
                "summary": .string("\(v)/\(DistLayout.summary)"),
                "patch": patchName.map { .string("\(v)/\($0)") } ?? .null,
                "rows": .sortedObject(rowCounts.mapValues { .int($0) }),
                "sources": .sortedObject(Self.sources(request.staging.meta)),
                "renumbered": .array(introduced.map {
                    .sortedObject(["new_s_id": .int($0.newID), "old_s_id": .int($0.oldID), "version": .int($0.version)])
                }),
            ]
            facts["gzip_sha256"] = .string(digests[DistLayout.gzip]!)
            facts["gzip_bytes"] = .int(gzip.data.count)
            if let patchName { facts["patch_sha256"] = .string(digests[patchName]!) }

            try step(.writeManifest)
            var manifest = facts
            manifest["files"] = .sortedObject(digests.mapValues { .string($0) })
            try writeFile(Data(JSON.sortedObject(manifest).text.utf8), to: file(DistLayout.manifest))

            try step(.syncFiles)
            // The small files are flushed together: concurrent fsyncs share one
            // journal commit instead of waiting for one each.
            let others = try fm.contentsOfDirectory(atPath: temporary).sorted()
                .filter { $0 != DistLayout.database && $0 != DistLayout.gzip }
            var syncErrors = [Error?](repeating: nil, count: others.count)
            syncErrors.withUnsafeMutableBufferPointer { errors in
                DispatchQueue.concurrentPerform(iterations: others.count) { i in
                    do { try AtomicFile.fsync(path: file(others[i])) } catch { errors[i] = error }
                }
            }
            try databaseSynced.value()
            try gzipSynced.value()
            if let error = syncErrors.lazy.compactMap({ $0 }).first { throw error }
            try AtomicFile.fsync(path: temporary)

            try step(.renameFolder)
            if fm.fileExists(atPath: final) {
                // Left by a publish that died between this rename and latest.json:
                // never named by latest.json, so no client has seen it.
                note("replacing \(final), left by an interrupted publish")
                try? fm.removeItem(atPath: final)
            }
            if rename(temporary, final) != 0 {
                throw EnvironmentError("cannot rename \(temporary) to \(final): \(String(cString: strerror(errno)))")
            }
            movedIn = true
            try AtomicFile.fsync(path: dist)

            try step(.writeLatest)
            let latest = JSON.sortedObject(facts)
            try AtomicFile.write(latest.text, to: latestPath)

            return .published(PublishedBundle(version: version, previousVersion: previous?.version, folder: final,
                                              rowCounts: rowCounts, difference: difference,
                                              weightChanges: weightChanges, latest: latest))
        } catch {
            // Leave dist/ as it was: latest.json and the versions it names are untouched.
            try? fm.removeItem(atPath: temporary)
            if movedIn { try? fm.removeItem(atPath: final) }
            if checksFailed && !distExisted { rmdir(dist) }
            unlink(AtomicFile.temporaryPath(for: latestPath))
            throw error
        }
    }

    private func step(_ s: PublishStep) throws { phase("step \(s)"); try beforeStep?(s) }


    /// Writes `data`: plain write(2), not Data.write, which flushes each file to
    /// disk on the way; the files in the temporary folder are flushed together at
    /// .syncFiles, before the folder is renamed into dist/.
    private func writeFile(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        let failure = fd < 0 ? errno : data.withUnsafeBytes { writeAll(fd, $0) }
        if fd >= 0, close(fd) != 0, failure == nil {
            throw EnvironmentError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        if let failure { throw EnvironmentError("cannot write \(path): \(String(cString: strerror(failure)))") }
    }

    /// Writes `data` and returns its sha256, for the manifest. (The gzip's digest is
    /// taken beside its compressing; hashing its 80 MB again at 100x took ~0.1 s.)
    private func writeDigested(_ data: Data, to path: String) throws -> String {
        try writeFile(data, to: path)
        return SHA256.hex(data)
    }

    static func rowCounts(of path: String) throws -> [String: Int] {
        let db = try SQLiteDatabase(path: path)
        defer { db.close() }
        var counts: [String: Int] = [:]
        for shape in TableShape.all { counts[shape.name] = try db.scalarInt("SELECT count(*) FROM \(shape.name)") ?? 0 }
        return counts
    }

    /// Temporary folders and files of runs that were killed.
    static func removeLeftovers(in dist: String) {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(atPath: dist) else { return }
        for name in names.sorted() where name.hasPrefix(DistLayout.temporaryPrefix) || name.hasPrefix(".\(DistLayout.latest).tmp-") {
            try? fm.removeItem(atPath: Path.appending(dist, name))
        }
    }

    static func sources(_ meta: [String: String]) -> [String: JSON] {
        var out: [String: JSON] = [:]
        for (key, value) in meta where key.hasPrefix("source:") { out[String(key.dropFirst("source:".count))] = .string(value) }
        return out
    }

    static let tableOrder = TableShape.all.map(\.name)

    static func countsText(_ counts: [String: Int]) -> String {
        tableOrder.map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }

    // MARK: - Input checks

    /// Everything that would make a bundle the clients cannot use, all at once.
    static func validate(_ request: BuildRequest, version: Int) throws {
        var problems = DiagnosticCollector()
        let network = request.staging.network
        let staging = request.stagingPath
        func at(_ field: String) -> SourceLocation { SourceLocation(file: staging, field: field) }

        // IDTable, not Set: SipHash and a cache miss a probe were a good part of a
        // build at 100 times national, and IDs counting up from 1 fill its direct array.
        var operatorIDs = IDTable(capacity: network.operators.count), lineIDs = IDTable(capacity: network.lines.count)
        var stationIDs = IDTable(capacity: network.stations.count)
        for o in network.operators where operatorIDs.insertIfAbsent(o.id, value: 0) != nil { problems.add(at("operators o_id \(o.id)"), "duplicate o_id") }
        for l in network.lines {
            if lineIDs.insertIfAbsent(l.id, value: 0) != nil { problems.add(at("lines l_id \(l.id)"), "duplicate l_id") }
            if !operatorIDs.contains(l.operatorID) { problems.add(at("lines l_id \(l.id)"), "names operator \(l.operatorID), which does not exist") }
        }
        var weighted = 0
        for s in network.stations {
            let unique = stationIDs.insertIfAbsent(s.id, value: 0) == nil
            if !unique { problems.add(at("stations s_id \(s.id)"), "duplicate s_id") }
            if !operatorIDs.contains(s.operatorID) { problems.add(at("stations s_id \(s.id)"), "names operator \(s.operatorID), which does not exist") }
            if !MicroDegrees.inJapan(lat: s.lat, lng: s.lng) {
                problems.add(at("stations s_id \(s.id)"), "coordinates \(MicroDegrees.format(s.lat)), \(MicroDegrees.format(s.lng)) are outside Japan")
            }
            if !(1...47).contains(s.pref) { problems.add(at("stations s_id \(s.id)"), "pref \(s.pref) is not 1..47") }
            switch request.weights[s.id] {
            case nil: problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(s.id)"), "station \(s.id) (\(s.name)) has no weight")
            case let w?:
                if unique { weighted += 1 }
                if !(1...13).contains(w) { problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(s.id)"), "weight \(w) is not 1..13") }
            }
        }
        // Every weight named a station when as many stations found a weight as there are weights.
        for id in (weighted == request.weights.count ? [] : request.weights.keys.sorted()) where !stationIDs.contains(id) {
            problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(id)"), "a weight for s_id \(id), which is not a station in \(staging)")
        }
        // The place is spelled only when there is a problem: this loop sees every stations_lines row.
        var pairs = StationLinePairs(stations: network.stations.count)
        for x in network.stationLines {
            func here() -> SourceLocation { at("stations_lines l_id \(x.lineID) s_id \(x.stationID)") }
            if pairs.insertIfAbsent(line: x.lineID, station: x.stationID, value: 0) != nil { problems.add(here(), "duplicate (l_id, s_id)") }
            if !lineIDs.contains(x.lineID) { problems.add(here(), "names line \(x.lineID), which does not exist") }
            if !stationIDs.contains(x.stationID) { problems.add(here(), "names station \(x.stationID), which does not exist") }
        }
        for (r, location) in request.renumberings.sorted(by: { $0.value.line ?? 0 < $1.value.line ?? 0 }) {
            if !stationIDs.contains(r.newID) {
                problems.add(SourceLocation(file: location.file, line: location.line, field: "new_s_id"),
                             "new s_id \(r.newID) is not a station in \(staging)")
            }
            if r.version > version {
                problems.add(SourceLocation(file: location.file, line: location.line, field: "version"),
                             "version \(r.version) is later than the version being built (\(version))")
            }
        }
        try problems.check()
    }

    /// A published renumbering is a promise to clients: it cannot be dropped or
    /// changed, and a new one must carry the version that introduces it.
    static func checkRenumberingHistory(_ d: BundleDifference, request: BuildRequest, version: Int) throws {
        guard let t = d["renumbered_stations"], !t.tableAdded else { return }
        var problems = DiagnosticCollector()
        let byPair = Dictionary(request.renumberings.map { ([$0.key.newID, $0.key.oldID], $0.value) }, uniquingKeysWith: { a, _ in a })
        for row in t.added {
            let newID = row[0].intValue ?? 0, oldID = row[1].intValue ?? 0, v = row[2].intValue ?? 0
            if v != version {
                let loc = byPair[[newID, oldID]] ?? SourceLocation(file: RenumberingFile.defaultPath)
                problems.add(SourceLocation(file: loc.file, line: loc.line, field: "version"),
                             "\(newID) <- \(oldID) is new in this build, so its version must be \(version), not \(v)")
            }
        }
        for row in t.removed {
            problems.add(SourceLocation(file: RenumberingFile.defaultPath),
                         "\(row[0]) <- \(row[1]) (version \(row[2])) was published and must stay listed")
        }
        for change in t.changed {
            let loc = byPair[[change.key[0].intValue ?? 0, change.key[1].intValue ?? 0]] ?? SourceLocation(file: RenumberingFile.defaultPath)
            problems.add(SourceLocation(file: loc.file, line: loc.line, field: "version"),
                         "\(change.key[0]) <- \(change.key[1]) was published with version \(change.old[2]), not \(change.new[2])")
        }
        try problems.check()
    }

    // MARK: - Summary

    static func summaryText(version: Int, previous: Int?, rowCounts: [String: Int], difference: BundleDifference?,
                            weightChanges: Int, introduced: [Renumbering]) -> String {
        var out = "station bundle version \(version)"
        out += previous.map { " (previous \($0))\n" } ?? " (first version)\n"
        out += "\n"
        func pad(_ s: String, _ n: Int, left: Bool = false) -> String {
            let fill = String(repeating: " ", count: max(0, n - s.count))
            return left ? s + fill : fill + s
        }
        out += pad("table", 22, left: true) + pad("rows", 8) + pad("added", 8) + pad("removed", 9) + pad("changed", 9) + "\n"
        for name in tableOrder {
            let t = difference?[name]
            out += pad(name, 22, left: true) + pad(String(rowCounts[name] ?? 0), 8)
            if let t {
                out += pad(String(t.added.count), 8) + pad(String(t.removed.count), 9) + pad(String(t.changed.count), 9)
            } else {
                out += pad(String(rowCounts[name] ?? 0), 8) + pad("0", 9) + pad("0", 9)
            }
            out += "\n"
        }
        out += "\nweight changes: \(weightChanges) station\(weightChanges == 1 ? "" : "s")\n"
        if let stations = difference?["stations"] {
            let limit = 50
            func name(_ row: [SQLValue]) -> String { "\(row[0]) \(row[1].textValue ?? "")" }
            if !stations.added.isEmpty {
                out += "\nstations added:\n"
                for row in stations.added.prefix(limit) { out += "  \(name(row))\n" }
                if stations.added.count > limit { out += "  ... and \(stations.added.count - limit) more\n" }
            }
            if !stations.removed.isEmpty {
                out += "\nstations removed:\n"
                for row in stations.removed.prefix(limit) { out += "  \(name(row))\n" }
                if stations.removed.count > limit { out += "  ... and \(stations.removed.count - limit) more\n" }
            }
            if !stations.changed.isEmpty {
                out += "\nstations changed:\n"
                for c in stations.changed.prefix(limit) {
                    out += "  \(name(c.new)): " + c.changes.map { "\($0.column) \($0.old.sqlLiteral) -> \($0.new.sqlLiteral)" }.joined(separator: ", ") + "\n"
                }
                if stations.changed.count > limit { out += "  ... and \(stations.changed.count - limit) more\n" }
            }
        }
        if !introduced.isEmpty {
            out += "\nrenumbered in this version (new <- old):\n"
            for r in introduced { out += "  \(r.newID) <- \(r.oldID)\n" }
        }
        return out
    }
}
