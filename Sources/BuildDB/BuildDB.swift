import Glibc
import StationCore

// BuildDB: the staging file and the weights become what the apps download.
//
//   BundleBuilder().prepare(request, baseline:version:into:) -> BuildOutcome
//       writes every file of dist/<version>/ into a folder of the caller's (bundle, gzip,
//       patch, summary, registry, manifest) and compares it with the baseline;
//       Publishing (BuildStage) prepares it beside the staging file, the one publish path
//   PublishGuards.violations(...)   every rule that refuses a version unless forced
//   BundleBuilder().commit(candidate, into: dist, replacing:)
//       moves a prepared version into dist/<version>/ and replaces latest.json last
//   BundleWriter.write(network:weights:renumberings:version:to:)   one reproducible bundle file
//   BundleVerifier.verify(path:) -> VerifyReport                     stationdb verify
//   RenumberingFile.read(from:)                                      raw/renumbered.csv

package struct BuildRequest: Sendable {
    package var staging: Staging
    /// Where the inputs came from, for messages only.
    package var stagingPath: String
    package var weights: [Int: Int]
    package var weightsPath: String
    /// Every renumbering ever made (raw/renumbered.csv), with its line in that file.
    package var renumberings: [Renumbering: SourceLocation]
    /// How messages name the renumbering file.
    package var renumberedLabel: String
    /// How many values `stationdb lint` found worth a look, for latest.json: asked for only
    /// at the summary, so that a lint running beside the build has the longest to finish.
    package var lintWarnings: @Sendable () async throws -> Int?
    /// The ID registry file the staging file was made with (raw/registry.csv), kept with
    /// the version as it is (copied, never whole in memory: 145 MB at 100 times national).
    package var registryPath: String?

    package init(staging: Staging, stagingPath: String = "staging", weights: [Int: Int], weightsPath: String = "weights",
                renumberings: [Renumbering: SourceLocation] = [:], renumberedLabel: String = RenumberingFile.fileName,
                lintWarnings: @escaping @Sendable () async throws -> Int? = { nil }, registryPath: String? = nil) {
        self.staging = staging; self.stagingPath = stagingPath; self.weights = weights; self.weightsPath = weightsPath
        self.renumberings = renumberings; self.renumberedLabel = renumberedLabel; self.lintWarnings = lintWarnings
        self.registryPath = registryPath
    }
}

/// A version whose tables equal the baseline's is made all the same when the data's
/// attribution changed: raw/CREDITS.md (published as CREDITS.md) or the licence latest.json
/// names.
package struct AttributionChanged: Event, Equatable {
    package var credits: Bool
    package var license: Bool

    package init(credits: Bool, license: Bool) { self.credits = credits; self.license = license }

    /// What `meta` (the staging file's) publishes against `baseline`; credits are compared by
    /// the sha256 the baseline's manifest gives them, when it was read.
    init(_ meta: [String: String], against baseline: Baseline) {
        let credits = meta[StagingMeta.credits].map { SHA256.hex(Array($0.utf8)) }
        self.credits = baseline.files.map { $0[DistLayout.credits] != credits } ?? false
        license = meta[StagingMeta.license] != baseline.bundle.license
    }

    package var description: String {
        let what = [credits ? "CREDITS.md" : nil, license ? "the licence" : nil].compactMap { $0 }.joined(separator: " and ")
        return "build: the tables equal the published version's, but \(what) changed: a new version publishes \(credits && license ? "them" : "it")"
    }
}

/// The steps of a publish, in order; a test can fail any of them through `BundleBuilder.beforeStep`.
package enum PublishStep: String, CaseIterable, Sendable {
    case writeDatabase, writeGzip, writePatch, writeSummary, writeManifest, syncFiles, renameFolder, writeLatest
}

/// A version built and compared with its baseline, not yet published: the files of
/// dist/<version>/ in `folder`.
package struct Candidate: Sendable {
    package var folder: String
    /// What latest.json will say once it is published.
    package var bundle: PublishedBundle
    /// Against the baseline, and the same by station, line and operator name; nil for a first version.
    package var difference: BundleDifference?
    package var changes: ChangeList?
    /// Every rule it breaks (PublishGuards): each refuses it unless forced.
    package var violations: [String]
    /// What it does to identities against the baseline, s_id by s_id (nil for a first version).
    package var identity: IdentityReview?
    /// The s_ids it would hand to another station without a decision (PublishGuards.undecided):
    /// refused, forced or not.
    package var undecided: [String] = []

    package init(folder: String, bundle: PublishedBundle, difference: BundleDifference?, changes: ChangeList?, violations: [String] = []) {
        self.folder = folder; self.bundle = bundle; self.difference = difference; self.changes = changes; self.violations = violations
    }

    /// Whether a publish would refuse it: past a guard unless forced, undecided identities always.
    package func refused(force: Bool) -> Bool { !undecided.isEmpty || (!violations.isEmpty && !force) }

    package var database: String { joinPath(folder, DistLayout.database) }
}

/// What a build does, or would do, with the version it prepares: the one outcome that
/// build, plan and publish report (RunReport says it to people and to CI).
package enum BuildOutcome: Sendable {
    /// Its tables equal the published version `version`'s: there is nothing to publish.
    case unchanged(version: Int)
    /// Prepared and compared, not published (a plan; a guard may refuse it: its violations).
    case prepared(Candidate)
    /// A guard refused it; dist is as it was.
    case refused(Candidate)
    /// In dist, named by latest.json.
    case published(Candidate)

    package var candidate: Candidate? {
        switch self {
        case .unchanged: nil
        case .prepared(let c), .refused(let c), .published(let c): c
        }
    }

    /// What a build by hand exits with: 4 when a guard refused, else 0.
    package var exitStatus: ExitStatus {
        if case .refused = self { return .guardRefused }
        return .success
    }
}

package struct BundleBuilder: Sendable {
    /// Called before each publish step; a throw there fails the build at that step.
    package var beforeStep: (@Sendable (PublishStep) throws -> Void)?

    package init(beforeStep: (@Sendable (PublishStep) throws -> Void)? = nil) { self.beforeStep = beforeStep }

    /// The version to build: one above every version latest.json named (`previous`) and
    /// every version folder in dist (`highestFolder`, which may be a dead publish's that
    /// latest.json never named), or `requested` when it is larger than all of those.
    package static func nextVersion(previous: Int?, highestFolder: Int? = nil, requested: Int?) throws -> Int {
        let taken = max(previous ?? 0, highestFolder ?? 0)
        if let requested {
            _ = try BundleVersion.checked(requested, at: SourceLocation(file: "VERSION"))
            if let previous, requested <= previous {
                throw StationError.badInput(SourceLocation(file: "VERSION"),
                                 "version \(requested) is not larger than the published version \(previous); versions only grow")
            }
            if requested <= taken {
                throw StationError.badInput(SourceLocation(file: "VERSION"),
                                 "version \(requested) is not larger than the version folder \(taken) already in dist/; a version is never replaced")
            }
            return requested
        }
        return try BundleVersion.checked(taken + 1, at: SourceLocation(file: "VERSION", field: "the next version"))
    }

    /// The highest version folder in dist (a folder named by a version).
    package static func highestVersionFolder(in dist: String) throws -> Int? {
        try BundleVersion.named(Files.names(in: dist).filter { Files.isFolder(joinPath(dist, $0)) }, in: dist).last
    }

    /// The version a build into `dist` takes (see nextVersion), saying so when a dead
    /// publish's folder is skipped.
    package static func version(for dist: String, previous: Baseline?, requested: Int?) throws -> Int {
        let highestFolder = try highestVersionFolder(in: dist)
        let version = try nextVersion(previous: previous?.bundle.version, highestFolder: highestFolder, requested: requested)
        if let highestFolder, highestFolder > previous?.bundle.version ?? 0 {
            Events.send(SkippedVersion(folder: highestFolder, version: version))
        }
        return version
    }

    /// Writes version `version` into `folder` (which it replaces) and compares it with
    /// `baseline`: every file of dist/<version>/, or `.unchanged` (and no folder) when its
    /// tables equal the baseline's. Nothing outside `folder` is written; the guards are
    /// the caller's (PublishGuards).
    /// `judge` (the identity review and the guards, the caller's) runs while the gzip is made.
    package func prepare(_ request: BuildRequest, baseline: Baseline?, version: Int, into folder: String,
                         judge: (Candidate) async throws -> Candidate = { $0 }) async throws -> BuildOutcome {
        try Self.validate(request, version: version)
        func file(_ name: String) -> String { joinPath(folder, name) }
        Files.remove(folder)
        do {
            try Files.createFolder(folder)
            try step(.writeDatabase)
            let renumberings = request.renumberings.keys.sorted { ($0.newID, $0.oldID) < ($1.newID, $1.oldID) }
            let database = file(DistLayout.database), gzipPath = file(DistLayout.gzip)
            let rowCounts = try BundleWriter.write(network: request.staging.network, weights: request.weights,
                                                   renumberings: renumberings, version: version, to: database)
            // The finished bundle is compressed and hashed on the second core while it is
            // compared with the published one, the patch and summary are written and it is judged.
            return try await Pending.onThread({ (gzip: try Gzip.compress(fileAt: database, to: gzipPath), sha256: try SHA256.hex(fileAt: database)) }) { compressed in

                var difference: BundleDifference?
                if let baseline {
                    let d = try BundleDifference.between(oldPath: baseline.databasePath, newPath: database)
                    if d.isEmpty {
                        // The same tables; a version publishes the data's attribution too, which the
                        // licence asks to be current: a change of it alone is a version of its own.
                        let attribution = AttributionChanged(request.staging.meta, against: baseline)
                        guard attribution.credits || attribution.license else {
                            _ = try? await compressed.value
                            Files.remove(folder)
                            return .unchanged(version: baseline.bundle.version)
                        }
                        Events.send(attribution)
                    }
                    try Self.checkRenumberingHistory(d, request: request, version: version)
                    difference = d
                }

                // Each file's sha256, for the manifest.
                var digests: [String: String] = [:]
                try step(.writeGzip)

                var patchName: String?
                if let previous = baseline?.bundle, let difference {
                    try step(.writePatch)
                    let name = DistLayout.patch(from: previous.version)
                    digests[name] = try write(PatchWriter.patch(from: difference, toVersion: version), to: file(name))
                    patchName = name
                }

                let credits = request.staging.meta[StagingMeta.credits]
                if let credits { digests[DistLayout.credits] = try write(credits, to: file(DistLayout.credits)) }

                if let registryPath = request.registryPath {
                    digests[DistLayout.registry] = try SHA256.hex(copying: registryPath, to: file(DistLayout.registry))
                }

                try step(.writeSummary)
                let lintWarnings = try await request.lintWarnings()
                // The changes by name, each with its cause, for the summary and the reports.
                let changes = try baseline.map { try ChangeList(difference!, from: $0, to: database, meta: request.staging.meta) }
                let introduced = renumberings.filter { $0.version == version }
                let releases = SourceRelease.list(previous: baseline?.bundle.releases, current: StagingMeta.releases(in: request.staging.meta))
                digests[DistLayout.summary] = try write(Self.summaryText(version: version, previous: baseline?.bundle.version, rowCounts: rowCounts,
                                                                         difference: difference, introduced: introduced,
                                                                         lintWarnings: lintWarnings, releases: releases, changes: changes),
                                                        to: file(DistLayout.summary))
                // Paths are relative to dist/.
                let v = String(version)
                var bundle = PublishedBundle(
                    version: version, previousVersion: baseline?.bundle.version, database: "\(v)/\(DistLayout.database)",
                    sha256: "", bytes: Files.size(of: file(DistLayout.database)) ?? 0,
                    gzip: "\(v)/\(DistLayout.gzip)", gzipSHA256: "", gzipBytes: 0,
                    manifest: "\(v)/\(DistLayout.manifest)", summary: "\(v)/\(DistLayout.summary)",
                    patch: patchName.map { "\(v)/\($0)" }, patchSHA256: patchName.map { digests[$0]! },
                    rows: rowCounts, sources: StagingMeta.sources(in: request.staging.meta),
                    renumbered: introduced.map { .init(newStationID: $0.newID, oldStationID: $0.oldID, version: $0.version) },
                    warnings: lintWarnings)

                bundle.license = request.staging.meta[StagingMeta.license]
                let held = StagingMeta.releases(in: request.staging.meta)
                bundle.releases = held.isEmpty ? nil : held
                bundle.credits = credits.map { _ in "\(v)/\(DistLayout.credits)" }
                // Judged while the gzip is made: nothing the caller reads is in the gzip.
                var candidate = try await judge(Candidate(folder: folder, bundle: bundle, difference: difference, changes: changes))
                let (gzip, databaseDigest) = try await compressed.value
                digests[DistLayout.database] = databaseDigest
                digests[DistLayout.gzip] = gzip.sha256
                (bundle.sha256, bundle.gzipSHA256, bundle.gzipBytes) = (digests[DistLayout.database]!, gzip.sha256, gzip.bytes)
                try step(.writeManifest)
                bundle.files = digests
                try Files.write(try bundle.json(), to: file(DistLayout.manifest))
                bundle.files = nil
                candidate.bundle = bundle
                return .prepared(candidate)
            }
        } catch {
            Files.remove(folder)
            throw error
        }
    }

    /// Publishes a prepared version into `dist`, whose lock the caller holds: its folder is
    /// flushed and moved to dist/<version> (renamed when on the same file system, else
    /// copied beside it first), and latest.json is replaced last. `replacing` is the
    /// version the candidate was compared with: if latest.json names another one now, the
    /// candidate is stale and nothing is written.
    package func commit(_ candidate: Candidate, into dist: String, replacing previous: PublishedBundle?) throws -> PublishedBundle {
        let version = candidate.bundle.version
        let latestPath = joinPath(dist, DistLayout.latest)
        let now = try PublishedBundle.latest(in: dist)
        guard now?.version == previous?.version, now?.sha256 == previous?.sha256 else {
            throw StationError.environment("\(latestPath) names version \(now.map { String($0.version) } ?? "none") now, not \(previous.map { String($0.version) } ?? "none") as when version \(version) was built; build it again")
        }
        let final = joinPath(dist, String(version))
        if Files.exists(final) { throw StationError.environment("\(final) exists already; a version is never replaced") }
        let temporary = joinPath(dist, "\(DistLayout.temporaryPrefix)\(version)-\(getpid())")
        var movedIn = false
        do {
            if candidate.folder != temporary {
                Files.remove(temporary)
                try Files.moveFolder(candidate.folder, to: temporary)
            }
            try step(.syncFiles)
            for name in Files.names(in: temporary) { try Files.sync(joinPath(temporary, name)) }
            try Files.sync(temporary)

            try step(.renameFolder)
            // The version is above every folder, and the lock keeps others out: nothing is replaced.
            if Files.exists(final) { throw StationError.environment("\(final) appeared while this publish was running; nothing was replaced") }
            if rename(temporary, final) != 0 {
                throw StationError.environment("cannot rename \(temporary) to \(final): \(systemError())")
            }
            movedIn = true
            try Files.sync(dist)

            try step(.writeLatest)
            try AtomicFile.write(try candidate.bundle.json(), to: latestPath)
            return candidate.bundle
        } catch {
            // Leave dist/ as it was: latest.json and the versions it names are untouched.
            Files.remove(temporary)
            if movedIn { Files.remove(final) }
            unlink(AtomicFile.temporaryPath(for: latestPath))
            throw error
        }
    }

    private func step(_ s: PublishStep) throws { try beforeStep?(s) }

    /// Writes a file of the version's folder; returns its sha256, for the manifest.
    private func write(_ text: String, to path: String) throws -> String {
        let bytes = Array(text.utf8)
        try Files.write(bytes, to: path)
        return SHA256.hex(bytes)
    }

    /// Temporary folders and files of runs that were killed; call it holding the dist's lock.
    package static func removeLeftovers(in dist: String) {
        // latest.json's own temporary file and its record's (latest.json.inputs).
        for name in Files.names(in: dist) where name.hasPrefix(DistLayout.temporaryPrefix) || (name.hasPrefix(".\(DistLayout.latest).") && name.contains(".tmp-")) {
            Files.remove(joinPath(dist, name))
        }
    }

    static let tableOrder = BundleSchema.tables.map(\.name)

    /// "170 operators, 616 lines, ..." in table order.
    package static func countsText(_ counts: [String: Int]) -> String {
        tableOrder.map { "\(counts[$0] ?? 0) \($0)" }.joined(separator: ", ")
    }

    /// Stations whose weight changed against the previous version.
    package static func weightChanges(_ difference: BundleDifference?) -> Int {
        difference.map { DiffSummary(difference: $0).weightChanges } ?? 0
    }

    /// "stations +0 -0 ~3, 12 weight changes", or "first version".
    package static func changesText(_ difference: BundleDifference?) -> String {
        guard let difference else { return "first version" }
        var parts: [String] = []
        for t in difference.tables where !t.isEmpty {
            parts.append("\(t.shape.name) +\(t.added.count) -\(t.removed.count) ~\(t.changed.count)")
        }
        let n = weightChanges(difference)
        parts.append("\(n) weight change\(n == 1 ? "" : "s")")
        return parts.joined(separator: ", ")
    }

    // MARK: - Input checks

    /// Everything that would make a bundle the clients cannot use, all at once.
    static func validate(_ request: BuildRequest, version: Int) throws {
        var problems = DiagnosticCollector()
        let network = request.staging.network
        network.validate(&problems, place: request.stagingPath)
        let stationIDs = Set(network.stations.map(\.id))
        for s in network.stations {
            switch request.weights[s.id] {
            case nil: problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(s.id)"), "station \(s.id) (\(shown(s.name))) has no weight")
            case let w? where !(1...13).contains(w):
                problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(s.id)"), "weight \(w) is not 1..13")
            default: break
            }
        }
        for id in request.weights.keys.sorted() where !stationIDs.contains(id) {
            problems.add(SourceLocation(file: request.weightsPath, field: "s_id \(id)"), "a weight for s_id \(id), which is not a station in \(request.stagingPath)")
        }
        for (r, location) in request.renumberings.sorted(by: { $0.value.line ?? 0 < $1.value.line ?? 0 }) {
            if !stationIDs.contains(r.newID) {
                problems.add(SourceLocation(file: location.file, line: location.line, field: "new_s_id"),
                             "new s_id \(r.newID) is not a station in \(request.stagingPath)")
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
        guard let t = d[BundleSchema.renumberedStations.name], !t.tableAdded else { return }
        var problems = DiagnosticCollector()
        let byPair = Dictionary(request.renumberings.map { ([$0.key.newID, $0.key.oldID], $0.value) }, uniquingKeysWith: { a, _ in a })
        for row in t.added {
            let newID = row[0].intValue ?? 0, oldID = row[1].intValue ?? 0, v = row[2].intValue ?? 0
            if v != version {
                let loc = byPair[[newID, oldID]] ?? SourceLocation(file: request.renumberedLabel)
                problems.add(SourceLocation(file: loc.file, line: loc.line, field: "version"),
                             "\(newID) <- \(oldID) is new in this build, so its version must be \(version), not \(v)")
            }
        }
        for row in t.removed {
            problems.add(SourceLocation(file: request.renumberedLabel),
                         "\(row[0]) <- \(row[1]) (version \(row[2])) was published and must stay listed")
        }
        for change in t.changed {
            let loc = byPair[[change.key[0].intValue ?? 0, change.key[1].intValue ?? 0]] ?? SourceLocation(file: request.renumberedLabel)
            problems.add(SourceLocation(file: loc.file, line: loc.line, field: "version"),
                         "\(change.key[0]) <- \(change.key[1]) was published with version \(change.old[2]), not \(change.new[2])")
        }
        try problems.check()
    }

    // MARK: - Summary

    static func summaryText(version: Int, previous: Int?, rowCounts: [String: Int], difference: BundleDifference?,
                            introduced: [Renumbering], lintWarnings: Int? = nil, releases: [SourceRelease] = [], changes: ChangeList? = nil) -> String {
        let weightChanges = weightChanges(difference)
        var out = "station bundle version \(version)"
        out += previous.map { " (previous \($0))\n" } ?? " (first version)\n"
        for release in releases { out += "upstream: \(release)\n" }
        out += "\n"
        out += "table".padded(to: 22) + "rows".padded(to: 8, right: true) + "added".padded(to: 8, right: true) + "removed".padded(to: 9, right: true) + "changed".padded(to: 9, right: true) + "\n"
        for name in tableOrder {
            let t = difference?[name]
            out += name.padded(to: 22) + String(rowCounts[name] ?? 0).padded(to: 8, right: true)
            if let t {
                out += String(t.added.count).padded(to: 8, right: true) + String(t.removed.count).padded(to: 9, right: true) + String(t.changed.count).padded(to: 9, right: true)
            } else {
                out += String(rowCounts[name] ?? 0).padded(to: 8, right: true) + "0".padded(to: 9, right: true) + "0".padded(to: 9, right: true)
            }
            out += "\n"
        }
        out += "\nweight changes: \(weightChanges) station\(weightChanges == 1 ? "" : "s")\n"
        if let lintWarnings { out += "lint warnings: \(lintWarnings) (values of the sources worth a look: `make lint`)\n" }
        // Every change by the name of its station, line or operator, with its cause, as the plan lists them.
        if let changes { out += changes.text(limit: 50) }
        if !introduced.isEmpty {
            out += "\nrenumbered in this version (new <- old):\n"
            for r in introduced { out += "  \(r.newID) <- \(r.oldID)\n" }
        }
        return out
    }
}
