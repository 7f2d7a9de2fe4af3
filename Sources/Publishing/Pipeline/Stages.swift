import BuildDB
import Ingest
import Priority
import StationCore
import FoundationEssentials
import Glibc

// The three stages, as their own commands and `publish` and `plan` run them.
// Each writes its outputs, then a record of what it read (StageRecord); a run
// does a stage only when what it would read now differs from that record, so a
// stage run by hand and `make` always agree on what has changed.

/// A stage of the pipeline: what it would read now, and whether its last run read the same.
package protocol Stage {
    /// The record a run now would write, outputs not yet filled in, its inputs' digests
    /// taken through the run's `digests` (a file the stage before wrote is known by them).
    func record(_ digests: inout FileDigests) throws -> StageRecord
    /// Where the record is kept (beside the main output).
    var recordOwner: String { get }
    /// The outputs by role, for checking that they are still as written.
    var outputs: [String: String] { get }
    /// Why a run with `now`'s inputs must run again after `recorded`'s; nil when it need not.
    func reason(_ now: StageRecord, recorded: StageRecord?, digests: inout FileDigests) -> String?
}

/// What a stage would read now (worked out once, just before it may run: its inputs'
/// digests are taken once per run) and why it must run, if it must.
package struct StageCheck: Sendable {
    /// nil when the inputs cannot be read; the run then says why.
    package var record: StageRecord?
    package var reason: String?
    /// The record of the last run, when the stage need not run again: it vouches for the outputs.
    package var recorded: StageRecord?
}

extension Stage {
    package func reason(_ now: StageRecord, recorded: StageRecord?, digests: inout FileDigests) -> String? {
        now.isCurrent(recorded: recorded, outputs: outputs, digests: &digests) ? nil : now.changes(since: recorded).joined(separator: ", ")
    }

    package func check(_ digests: inout FileDigests) -> StageCheck {
        guard let now = try? record(&digests) else { return StageCheck(record: nil, reason: "its inputs cannot be read") }
        let recorded = StageRecord.read(for: recordOwner)
        let reason = reason(now, recorded: recorded, digests: &digests)
        return StageCheck(record: now, reason: reason, recorded: reason == nil ? recorded : nil)
    }

    func record() throws -> StageRecord {
        var digests = FileDigests()
        return try record(&digests)
    }

    /// Writes the record of a finished run: `record` with the digests of what it `wrote`
    /// (by path), which a later run takes without reading the files again; returns it.
    @discardableResult
    func writeRecord(_ record: StageRecord, wrote: [String: WrittenFile]) throws -> StageRecord {
        var record = record
        for (role, path) in outputs { record.outputs[role] = try wrote[path]?.sha256 ?? StageRecord.digest(of: path) }
        record.written = wrote
        try record.write(for: recordOwner)
        return record
    }
}

/// Where ingest leaves the registry its staging file was made with, for build to copy into
/// raw/ once the version is published: a refused or failed publish leaves raw/ as it was.
package func pendingRegistry(for staging: String) -> String { staging + ".registry.csv" }

/// raw/ -> the staging file, the registry to publish with it (and the lint report).
package struct IngestStage: Stage, Sendable {
    package var options: IngestOptions
    package var staging: String
    /// Where the lint report goes, if anywhere.
    package var lint: String?
    /// Hand weights for the lint (default: RAW/weights.csv when present).
    package var hand: String?

    package init(options: IngestOptions, staging: String, lint: String? = nil, hand: String? = nil) {
        self.options = options; self.staging = staging; self.lint = lint; self.hand = hand
    }

    var handWeights: String { hand ?? joinPath(options.rawFolder, HandWeights.fileName) }
    package var recordOwner: String { staging }
    package var outputs: [String: String] {
        var outputs = ["staging": staging, "registry": pendingRegistry(for: staging)]
        if let lint { outputs["lint report"] = lint }
        return outputs
    }

    package func record(_ digests: inout FileDigests) throws -> StageRecord {
        let raw = options.rawFolder
        guard Files.isFolder(raw) else { throw StationError.environment("no raw folder at \(raw)") }   // the run says so properly
        let config = try SourcesConfig.load(rawFolder: raw)
        var inputs = ["sources.json": config.sha256 ?? StageRecord.absent,
                      "fixes": try digests.digest(of: options.fixesPath), "registry": try digests.digest(of: options.registryPath),
                      "identity decisions": try digests.digest(of: options.decisionsPath)]
        for file in config.inputFiles(rawFolder: raw) {
            inputs["source:" + options.relativePath(file)] = try digests.digest(of: file)
        }
        if lint != nil {
            inputs["hand weights"] = try digests.digest(of: handWeights)
            inputs["reviewed lint findings"] = try digests.digest(of: joinPath(raw, LintReviews.fileName))
        }
        return StageRecord(stage: "ingest", inputs: inputs)
    }

    /// The registry in raw/ is the one ingest read, or the one it wrote once build has
    /// copied it there: either way the staging file is still what ingest would make.
    /// (A plan leaves raw/ alone, so the `make` after it finds the registry it read.)
    /// Not so the lint report's `review` findings, fixes that change a station from how
    /// the registry says it was published: once published, they are no news, and the
    /// report is made again.
    package func reason(_ now: StageRecord, recorded: StageRecord?, digests: inout FileDigests) -> String? {
        var now = now
        if let recorded, now.inputs["registry"] == recorded.outputs["registry"], (recorded.facts?["review findings"] ?? "0") == "0" {
            now.inputs["registry"] = recorded.inputs["registry"]
        }
        return now.isCurrent(recorded: recorded, outputs: outputs, digests: &digests) ? nil : now.changes(since: recorded).joined(separator: ", ")
    }

    /// Reads, assembles and (unless `check`) writes the staging file, the registry, the lint
    /// report and `record` (by default, what it reads now); returns what it assembled and the record written.
    @discardableResult
    package func run(check: Bool = false, record: StageRecord? = nil) async throws -> (outcome: IngestOutcome, record: StageRecord?) {
        let ingested = try await assemble(check: check, record: record)
        return (ingested.outcome, try lint(ingested, check: check).record)
    }

    /// What ingest made before its lint: the network, the files written, the lint still to check.
    package struct Ingested: Sendable {
        package var outcome: IngestOutcome
        var lint: Lint.Check?
        var record: StageRecord?
        var wrote: [String: WrittenFile]
    }

    /// What ingest's lint left: its report, and the stage's record once every output is written.
    package struct Linted: Sendable {
        package var report: LintReport?
        package var record: StageRecord?
        /// The lint report's sha256 as written, which the build's record reads.
        package var digest: String?
    }

    /// Reads, assembles and (unless `check`) writes the staging file and the registry: all
    /// that priority and the build wait for. The lint and the record are `lint(_:check:)`'s.
    package func assemble(check: Bool = false, record: StageRecord? = nil) async throws -> Ingested {
        let record = record ?? (try? self.record())
        var options = self.options
        options.sourceDigests = record.map(sourceDigests)
        let (outcome, lint) = try await Lint.ingest(options, lint: self.lint != nil, handWeights: handWeights)
        let n = outcome.staging.network
        let live = n.stations.count(where: \.enabled)
        var summary = "ingest: \(n.operators.count) operators, \(n.lines.count) lines, \(n.stations.count) stations (\(live) live), \(n.stationLines.count) station-line rows"
        let newStations = outcome.report.newIDs[.station] ?? 0, gone = outcome.report.vanished[.station] ?? 0
        if newStations > 0 || gone > 0 { summary += "; \(newStations) new station IDs, \(gone) vanished stations kept disabled" }
        if !outcome.report.disagreements.isEmpty { summary += "; \(outcome.report.disagreements.count) disagreements between sources (see --report)" }
        // The source's warnings, but those a maintainer reviewed in raw/reviewed.csv: lint counts
        // those apart, and a run need not repeat them every night.
        let reviewed = lint?.reviewedWarnings ?? []
        for w in outcome.report.warnings where !reviewed.contains("\(w.location): \(w.message)") { Events.send(Warning(w)) }
        for found in Lint.stationsEnabledOnNoLine(outcome.fixes, outcome.staging.network) {
            Events.send(Warning(Diagnostic(SourceLocation(file: found.file, line: found.line, field: found.field), found.message)))
        }
        if check {
            Events.send(PublishEvent.ingested(summary: summary, staging: nil))
            return Ingested(outcome: outcome, lint: lint, record: nil, wrote: [:])
        }
        let wrote = [pendingRegistry(for: staging): try AtomicFile.write(outcome.registryText, to: pendingRegistry(for: staging)),
                     staging: try StagingFile.write(outcome.staging, to: staging)]
        let newIDs = outcome.report.newIDs.values.reduce(0, +)
        if newIDs > 0 { Events.send(PublishEvent.newIDs(newIDs, registry: options.label(for: options.registryPath))) }
        Events.send(PublishEvent.ingested(summary: summary, staging: staging))
        return Ingested(outcome: outcome, lint: lint, record: record, wrote: wrote)
    }

    /// Every lint rule over what `ingested` read, the report written (unless `check`), then
    /// the stage's record: a publish runs it beside priority and the build.
    package func lint(_ ingested: Ingested, check: Bool = false) throws -> Linted {
        let report = try ingested.lint?.report()
        var wrote = ingested.wrote
        if !check, let lint, let report {
            wrote[lint] = try AtomicFile.write(try report.json(), to: lint)
            Events.send(PublishEvent.linted(summary: report.summary, raw: options.rawLabel, count: report.count))
        }
        let digest = lint.flatMap { wrote[$0]?.sha256 }
        guard !check, var record = ingested.record else { return Linted(report: report, record: nil, digest: digest) }
        let review = report?.byRule[LintRule.review.rawValue] ?? 0
        record.facts = ["review findings": String(review)]
        if let report { record.facts?["lint warnings"] = String(report.count - review) }
        return Linted(report: report, record: try writeRecord(record, wrote: wrote), digest: digest)
    }

    /// The sources' digests (latest.json's "sources") from the record, which has just hashed them.
    func sourceDigests(_ record: StageRecord) -> [String: String] {
        var digests = record.inputs.filter { $0.key.hasPrefix("source:") && $0.value != StageRecord.absent }
        if let fixes = record.inputs["fixes"], fixes != StageRecord.absent { digests["source:" + options.relativePath(options.fixesPath)] = fixes }
        if let decisions = record.inputs["identity decisions"], decisions != StageRecord.absent {
            digests["source:" + options.relativePath(options.decisionsPath)] = decisions
        }
        return digests
    }
}

/// The staging file and hand weights -> every station's weight.
package struct PriorityStage: Stage {
    package var staging: String
    /// The hand weights file; nil for none (--no-hand).
    package var hand: String?
    package var weights: String
    package var seed: UInt64
    package var method: PriorityMethod
    package var tiers: String?

    package init(staging: String, hand: String?, weights: String, seed: UInt64, method: PriorityMethod = .blueNoise(.standard), tiers: String? = nil) {
        self.staging = staging; self.hand = hand; self.weights = weights; self.seed = seed; self.method = method; self.tiers = tiers
    }

    package var recordOwner: String { weights }
    package var outputs: [String: String] { ["weights": weights] }

    package func record(_ digests: inout FileDigests) throws -> StageRecord {
        var options = ["seed": String(seed), "method": method.description]
        if let tiers { options["tiers"] = tiers }
        return StageRecord(stage: "priority", options: options,
                           inputs: ["staging": try digests.digest(of: staging),
                                    "hand weights": try hand.map { try digests.digest(of: $0) } ?? StageRecord.absent])
    }

    /// Weighs the network of the staging file (`held` when the caller has just made it);
    /// returns the weights and the record written.
    @discardableResult
    package func run(record: StageRecord? = nil, staging held: Staging? = nil) throws -> (weights: [Int: Int], record: StageRecord?) {
        let record = record ?? (try? self.record())
        let staged = try held ?? StagingFile.read(from: staging), network = staged.network
        let merged = StagingMeta.identity(in: staged.meta).merged
        let hand = try self.hand.map { try HandWeights.read(path: $0, network: network, merged: merged) } ?? (weights: [], warnings: [])
        for w in hand.warnings { Events.send(Warning(w)) }
        var config = PriorityConfig(seed: seed, method: method)
        if let tiers { config.method = .meshLottery(try MeshTier.parse(list: tiers)) }
        let assigned = PriorityAssigner.assign(network: network, hand: hand.weights, config: config)
        let wrote = [weights: try StationWeightsFile.write(assigned, to: weights)]
        Events.send(PublishEvent.weighed(counts: PriorityAssigner.countsText(assigned, network: network), path: weights))
        return (assigned, try record.map { try writeRecord($0, wrote: wrote) })
    }
}

/// The staging file and weights -> a new version: a candidate prepared beside the
/// staging file, compared with a baseline, then (for a publish) moved into dist.
/// Its record is kept beside latest.json, the file a publish replaces.
package struct BuildStage: Stage, Sendable {
    package var staging: String
    package var weights: String
    package var dist: String
    package var renumbered: String?
    /// raw/registry.csv: it takes the registry the staging file was made with once the version is published.
    package var registry: String?
    package var lint: String?
    /// The lint report's digest when the caller knows it without reading the file.
    var lintDigest: String?
    package var requestedVersion: Int?
    package var guards: DiffGuards
    /// Publish an upstream release older than the published version's (make ALLOW_OLDER_RELEASE=1).
    package var allowOlderRelease = false
    /// Called before each step of writing and publishing the version (the failure tests throw there).
    package var beforeStep: (@Sendable (PublishStep) throws -> Void)?

    package init(staging: String, weights: String, dist: String, renumbered: String?, registry: String?, lint: String?,
                requestedVersion: Int? = nil, guards: DiffGuards = .nightly) {
        self.staging = staging; self.weights = weights; self.dist = dist; self.renumbered = renumbered; self.registry = registry
        self.lint = lint; self.requestedVersion = requestedVersion; self.guards = guards
    }

    package var recordOwner: String { joinPath(dist, DistLayout.latest) }
    package var outputs: [String: String] { ["latest.json": recordOwner] }

    /// Where the version is prepared before it is published: named for the staging file
    /// it is made from (so it never stands for any other folder), so a plan leaves the
    /// dist alone and the publish after it moves the same files in.
    package var candidateFolder: String { staging + ".candidate" }

    /// Builds by hand, plans and publishes share the staging file and the candidate.
    package func lockBuildFolder(wait: Bool = true) throws -> FileLock {
        try DistLock.acquire(build: parentFolder(of: staging).isEmpty ? "." : parentFolder(of: staging), wait: wait)
    }

    package func record(_ digests: inout FileDigests) throws -> StageRecord {
        var options: [String: String] = [:]
        if let requestedVersion { options["version"] = String(requestedVersion) }
        return StageRecord(stage: "build", options: options,
                           inputs: ["staging": try digests.digest(of: staging), "weights": try digests.digest(of: weights),
                                    "renumbered": try renumbered.map { try digests.digest(of: $0) } ?? StageRecord.absent,
                                    "registry": try digests.digest(of: stagingRegistry),
                                    "lint report": try lintDigest ?? lint.map { try digests.digest(of: $0) } ?? "not used"])
    }

    /// The build's check while this run's lint still runs (`linted`): the lint report is taken
    /// to be the one the last build read, and waited for only when nothing else changed. A
    /// build that runs takes the report's digest into its record once it is written (`settled`).
    func check(_ digests: inout FileDigests, linted: Pending<IngestStage.Linted>?) async throws -> StageCheck {
        guard let linted, lint != nil else { return check(&digests) }
        var stage = self
        stage.lintDigest = StageRecord.read(for: recordOwner)?.inputs["lint report"] ?? StageRecord.absent
        let provisional = stage.check(&digests)
        if provisional.reason != nil { return provisional }
        stage.lintDigest = try await linted.value.digest
        return stage.check(&digests)
    }

    /// `record` with the digest of the lint report this run wrote, once it is written.
    func settled(_ record: StageRecord, _ linted: Pending<IngestStage.Linted>?) async throws -> StageRecord {
        guard let linted, let digest = try await linted.value.digest else { return record }
        var record = record
        record.inputs["lint report"] = digest
        return record
    }

    /// The registry the staging file was made with: ingest's, or raw/'s for a staging file made without one.
    package var stagingRegistry: String {
        let pending = pendingRegistry(for: staging)
        return Files.exists(pending) || registry == nil ? pending : registry!
    }
    var registryLabel: String { registry ?? "raw/registry.csv" }

    /// raw/renumbered.csv's renumberings, and the merges of raw/identity.csv the staging file
    /// records (`meta`): each published with the version that first listed it, a new one
    /// with `version`.
    func renumberings(meta: [String: String]? = nil, version: Int = 0, baseline: Baseline? = nil) throws -> [Renumbering: SourceLocation] {
        var out = try renumbered.map { try RenumberingFile.read(from: $0) } ?? [:]
        let merged = StagingMeta.identity(in: try meta ?? StagingFile.readMeta(from: staging)).merged
        guard !merged.isEmpty else { return out }
        let published = try baseline.map { try RenumberingFile.published(in: $0.databasePath) } ?? [:]
        for (old, survivors) in merged.sorted(by: { $0.key < $1.key }) {
            for new in survivors { out[Renumbering(newID: new, oldID: old, version: published[[new, old]] ?? version)] = SourceLocation(file: IdentityDecisions.fileName) }
        }
        return out
    }

    /// Checks the staging file's IDs (`staging`, when the caller holds it) against the
    /// published version (PublishedIDs), and that every renumbered old s_id was once a station.
    package func checkPublishedIDs(against baseline: Baseline?, staging held: Staging? = nil) throws {
        let staging = try held ?? StagingFile.read(from: staging)
        let renumberings = try renumberings(meta: staging.meta), registry = try Registry.load(path: stagingRegistry)
        try RenumberingFile.checkOldIDs(renumberings, registry: registry, registryLabel: registryLabel, baseline: baseline)
        try PublishedIDs.check(staging.network, renumbered: Set(renumberings.keys.map(\.oldID)),
                               registry: registry, registryLabel: registryLabel, baseline: baseline)
    }

    /// Once the version is published (or found equal to the published one), raw/registry.csv
    /// takes the registry it was made with: the memory of every ID that version holds.
    /// `gains` (from `registryGains`, when the caller counted them beforehand) or counted here.
    package func commitRegistry(version: Int, gains: Result<Int?, any Error>? = nil) throws {
        guard let registry else { return }
        do {
            guard let newIDs = try (gains ?? Result { try registryGains() }).get() else { return }
            try AtomicFile.write(try Files.read(stagingRegistry), to: registry, creatingFolder: false)
            Events.send(PublishEvent.registryUpdated(path: registry, newIDs: newIDs))
        } catch {
            throw Self.registryNotUpdated(error, registry: registry, version: version, dist: dist)
        }
    }

    /// How many IDs raw/registry.csv gains when it takes the staging file's registry, nil
    /// when it has it already. A publish counts them beside the build: both registries are parsed.
    func registryGains() throws -> Int? {
        guard let registry, Files.exists(stagingRegistry), stagingRegistry != registry else { return nil }
        let next = try Files.read(stagingRegistry)
        if Files.exists(registry), try Files.read(registry) == next { return nil }
        let before = Files.exists(registry) ? try Registry.load(path: registry) : nil
        let after = try Registry.parse(CSVReader.parse(next, file: stagingRegistry))
        return Registry.Kind.allCases.reduce(0) { count, kind in count + after.ids(kind).count { !(before?.contains(kind, $0) ?? false) } }
    }

    /// raw/registry.csv could not take the registry version `version` was published with (a
    /// read-only raw/): the version is out and raw/ lags behind it. Says which copy to put
    /// there, on this run and every run after it until that is done (exit 5).
    static func registryNotUpdated(_ error: Error, registry: String, version: Int, dist: String) -> StationError {
        let kept = joinPath(joinPath(dist, String(version)), DistLayout.registry)
        let event = PublishEvent.registryNotUpdated(version: version, dist: dist, registry: registry, kept: kept, error: "\(error)")
        Events.send(event)
        return StationError(.publishedWithoutRegistry, reasons: [event.description], said: true)
    }

    /// The candidate's own record: what the build reads, and the version and baseline it was made for.
    func candidateRecord(_ build: StageRecord, version: Int, baseline: Baseline?) -> StageRecord {
        var record = build
        record.stage = "candidate"
        record.options["version"] = String(version)
        record.options["baseline"] = baseline.map { "version \($0.bundle.version), sha256 \($0.bundle.sha256)" } ?? "none"
        return record
    }

    /// The version `version`, prepared in candidateFolder against `baseline`, with every rule
    /// it breaks (PublishGuards): the one a plan left when nothing it was made from has
    /// changed since, else made afresh (from `staging` and `weights` when the caller holds them).
    /// `then` sees it judged (a plan writes its preview there, beside the gzip of a new one).
    package func candidate(version: Int, baseline: Baseline?, record: StageRecord? = nil,
                          staging: Staging? = nil, weights: [Int: Int]? = nil, linted: Pending<IngestStage.Linted>? = nil,
                          then: (Candidate) async -> Void = { _ in }) async throws -> BuildOutcome {
        // The staging file's facts, read once when the caller holds no staging.
        var staging = staging
        var meta = try staging?.meta ?? StagingFile.readMeta(from: self.staging)
        if let baseline, !allowOlderRelease { try Self.checkReleases(meta, against: baseline) }
        let owner = candidateFolder
        let manifest = joinPath(owner, DistLayout.manifest)
        var now = candidateRecord(try record ?? self.record(), version: version, baseline: baseline)
        let recorded = StageRecord.read(for: owner)
        // A plan's candidate is taken only with the lint report it was made with.
        if recorded != nil { now = try await settled(now, linted) }
        func judged(_ candidate: Candidate) async throws -> Candidate {
            var candidate = candidate
            // Ingest reviewed every s_id against the registry the baseline was published with.
            if baseline != nil { candidate.identity = StagingMeta.identity(in: meta).review }
            candidate.violations = try PublishGuards.violations(of: candidate, against: baseline, guards: guards)
            candidate.undecided = PublishGuards.undecided(candidate)
            await then(candidate)
            return candidate
        }
        var digests = FileDigests()
        if now.isCurrent(recorded: recorded, outputs: ["manifest": manifest], digests: &digests), let bundle = Self.intact(owner) {
            let database = joinPath(owner, DistLayout.database)
            let difference = try baseline.map { try BundleDifference.between(oldPath: $0.databasePath, newPath: database) }
            let changes = try baseline.map { try ChangeList(difference!, from: $0, to: database, meta: meta) }
            Events.send(PublishEvent.candidateTaken(version: version, folder: owner))
            return .prepared(try await judged(Candidate(folder: owner, bundle: bundle, difference: difference, changes: changes)))
        } else {
            // What a plan showed is not what goes out: say why, before it is made again.
            if let recorded { Events.send(PublishEvent.candidateRedone(folder: owner, changes: now.changes(since: recorded))) }
            // A record never vouches for a folder being rewritten.
            unlink(StageRecord.path(for: owner))
            let staged = try staging ?? StagingFile.read(from: self.staging)
            (staging, meta) = (staged, staged.meta)
            let request = BuildRequest(staging: staged, stagingPath: self.staging,
                                       weights: try weights ?? StationWeightsFile.read(from: self.weights), weightsPath: self.weights,
                                       renumberings: try renumberings(meta: staged.meta, version: version, baseline: baseline),
                                       renumberedLabel: renumbered ?? RenumberingFile.fileName,
                                       lintWarnings: { [lint] in
                                           if let linted { return try await linted.value.report?.count }
                                           return try lint.map { try Self.lintReport($0).count }
                                       },
                                       registryPath: Files.exists(stagingRegistry) ? stagingRegistry : nil)
            let outcome = try await BundleBuilder(beforeStep: beforeStep).prepare(request, baseline: baseline, version: version, into: owner,
                                                                                  judge: judged)
            guard case .prepared = outcome else { return outcome }
            var record = try await settled(now, linted)
            record.outputs["manifest"] = try StageRecord.digest(of: manifest)
            try record.write(for: owner)
            return outcome
        }
    }

    /// An upstream release older than the one the published version was made from would
    /// take every app back: refused as fetch refuses it, with the same way past.
    static func checkReleases(_ meta: [String: String], against baseline: Baseline) throws {
        let published = baseline.bundle.releases ?? [:]
        for (source, release) in StagingMeta.releases(in: meta).sorted(by: { $0.key < $1.key }) {
            guard let held = published[source], release < held else { continue }
            throw StationError.badInput(SourceLocation(file: source), "release \(release), older than \(held), the release the published version "
                             + "\(baseline.bundle.version) was made from. Publishing it would take every app back, so nothing was published; "
                             + "to publish it all the same (the upstream withdrew a release), run with --allow-older-release (make ALLOW_OLDER_RELEASE=1)")
        }
    }

    /// A prepared version's description when its folder holds exactly the files its
    /// manifest lists, each with its sha256; nil when one was changed, added or removed
    /// since (it is then prepared again, never published as it is).
    static func intact(_ folder: String) -> PublishedBundle? {
        let manifestPath = joinPath(folder, DistLayout.manifest)
        guard Files.exists(manifestPath), var bundle = try? PublishedBundle.read(path: manifestPath) else { return nil }
        var problems = DiagnosticCollector()
        DistLayout.checkFiles(bundle.files, in: folder, manifest: manifestPath, &problems)
        guard problems.isEmpty else { return nil }
        bundle.files = nil
        return bundle
    }

    /// `stationdb build` by hand: the published-ID check, the candidate and, when the
    /// guards allow, the publish, under the dist's lock.
    package func run(force: Bool, wait: Bool = true) async throws -> BuildOutcome {
        let lock = try DistLock.acquire(dist: dist, wait: wait)
        let buildLock = try lockBuildFolder(wait: wait)
        defer { withExtendedLifetime((lock, buildLock)) {} }
        BundleBuilder.removeLeftovers(in: dist)
        let baseline = try Baseline.local(dist: dist)
        let staging = try StagingFile.read(from: self.staging)
        try checkPublishedIDs(against: baseline, staging: staging)
        return try await publish(baseline: baseline, version: try BundleBuilder.version(for: dist, previous: baseline, requested: requestedVersion),
                                 force: force, staging: staging)
    }

    /// Prepares (or takes the prepared) version `version`, checks the guards and publishes
    /// it into dist, whose lock the caller holds; then raw/registry.csv takes its registry
    /// (not when it is unchanged and `registryLags`: an earlier version's registry stays for the caller to say).
    /// `record`, `staging` and `weights` are what the build reads now, when the caller has them.
    package func publish(baseline: Baseline?, version: Int, force: Bool, record: StageRecord? = nil,
                        staging: Staging? = nil, weights: [Int: Int]? = nil, linted: Pending<IngestStage.Linted>? = nil,
                        checked: Pending<Void>? = nil, registryLags: Bool = false) async throws -> BuildOutcome {
        var record = try record ?? self.record()
        return try await Pending.beside({ Result { try registryGains() } }) { gains in
            let made = try await candidate(version: version, baseline: baseline, record: record, staging: staging, weights: weights, linted: linted)
            // Nothing is published, nor raw/ written, before the checks beside the build have passed.
            record = try await settled(record, linted)
            try await checked?.value
            let outcome: BuildOutcome
            switch made {
            case .prepared(let candidate):
                if candidate.refused(force: force) {
                    Events.send(PublishEvent.refused(reasons: candidate.undecided + candidate.violations, dist: dist, undecided: !candidate.undecided.isEmpty))
                    return .refused(candidate)
                }
                if !candidate.violations.isEmpty { Events.send(PublishEvent.forced(reasons: candidate.violations)) }
                let bundle = try BundleBuilder(beforeStep: beforeStep).commit(candidate, into: dist, replacing: baseline?.bundle)
                unlink(StageRecord.path(for: candidateFolder))
                Events.send(PublishEvent.published(version: bundle.version, counts: BundleBuilder.countsText(bundle.rows),
                                                   changes: BundleBuilder.changesText(candidate.difference), lintWarnings: bundle.warnings))
                try commitRegistry(version: bundle.version, gains: try await gains.value)
                outcome = .published(candidate)
            case .unchanged(let published):
                Events.send(PublishEvent.unchanged(version: published))
                // A raw/registry.csv that lags is the maintainer's to restore (the caller says how), not overwritten here.
                if !registryLags { try commitRegistry(version: published, gains: try await gains.value) }
                outcome = .unchanged(version: published)
            case .refused, .published:
                preconditionFailure("a candidate is prepared or unchanged")
            }
            do {
                try writeRecord(record, wrote: [:])
            } catch {
                // The version is out; without its record the next run only finds it equal again.
                Events.send(PublishEvent.recordNotWritten("\(error)"))
            }
            return outcome
        }
    }

    /// A lint report (`stationdb lint --out`).
    static func lintReport(_ path: String) throws -> LintReport {
        do {
            return try JSONDecoder().decode(LintReport.self, from: Data(try Files.read(path)))
        } catch let error as DecodingError {
            throw StationError.badInput(SourceLocation(file: path, field: error.keyPath), "not a lint report (\(error.reason)); write one with `stationdb lint --out`")
        }
    }
}
