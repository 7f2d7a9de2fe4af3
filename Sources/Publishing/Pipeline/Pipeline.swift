import BuildDB
import Ingest
import Priority
import StationCore
import Glibc

// Publishing: the maintainer's loop as library calls.
//
//   Pipeline(settings).plan(against:)   ingest, priority and a candidate version under
//       build/, compared with a baseline (the local dist's latest, or a dist served over
//       HTTP); dist/ and raw/ untouched; returns what would change and the guards' verdict
//   Pipeline(settings).publish()        the same stages, then the candidate moved into
//       dist/ (the one a plan left, when nothing changed since) and raw/registry.csv updated
//
// Each stage runs only when what it reads changed (Stages.swift), so a publish right
// after a plan redoes nothing and publishes the very files the plan showed.

package struct PublishSettings: Sendable {
    package var raw: String
    package var build: String
    package var dist: String
    package var seed: UInt64
    package var method: PriorityMethod
    package var guards: DiffGuards
    /// Publish even when a guard is exceeded (make FORCE_PUBLISH=1).
    package var force: Bool
    /// VERSION=N: publish as this version, which must be above every one in dist.
    package var requestedVersion: Int?
    /// Wait while another run holds the dist or the build folder (else exit 3).
    package var wait: Bool
    /// Limits on reading a baseline over HTTP (as `pull`'s).
    package var transfer = TransferOptions()
    /// Publish an upstream release older than the published version's (make ALLOW_OLDER_RELEASE=1).
    package var allowOlderRelease = false

    package init(raw: String, build: String, dist: String, seed: UInt64 = StationHash.defaultSeed,
                method: PriorityMethod = .blueNoise(.standard), guards: DiffGuards = .nightly, force: Bool = false,
                requestedVersion: Int? = nil, wait: Bool = true) {
        self.raw = raw; self.build = build; self.dist = dist; self.seed = seed; self.method = method; self.guards = guards
        self.force = force; self.requestedVersion = requestedVersion; self.wait = wait
    }
}

/// What a plan compares the candidate with.
package enum BaselineSource: Sendable {
    /// The version latest.json names in the local dist (none before the first publish).
    case dist
    /// The dist the apps download from, read as they read it (`stationdb pull`'s checks).
    case url(String)
}

package struct Pipeline: Sendable {
    package var settings: PublishSettings

    package init(_ settings: PublishSettings) { self.settings = settings }

    var staging: String { joinPath(settings.build, StagingFile.defaultName) }
    var weights: String { joinPath(settings.build, StationWeightsFile.defaultName) }
    var lint: String { joinPath(settings.build, "lint.json") }
    var registry: String { joinPath(settings.raw, Registry.fileName) }
    /// Where a plan writes its preview of what the apps will show.
    package var preview: String { joinPath(settings.build, "preview.html") }
    /// Where a plan against a URL keeps the version it downloaded.
    var downloadedBaseline: String { joinPath(settings.build, "baseline") }

    func inRaw(_ name: String) -> String? { Files.exists(joinPath(settings.raw, name)) ? joinPath(settings.raw, name) : nil }

    /// Ingest, told the published version so that a registry that lost one of its lines is
    /// named before the fix errors it causes (IngestPipeline.checkRegistry).
    func ingestStage(registry: String? = nil, published: Baseline? = nil) -> IngestStage {
        var options = IngestOptions(rawFolder: settings.raw, registryPath: registry)
        options.published = published
        return IngestStage(options: options, staging: staging, lint: lint)
    }

    var priorityStage: PriorityStage {
        PriorityStage(staging: staging, hand: inRaw(HandWeights.fileName), weights: weights, seed: settings.seed, method: settings.method)
    }

    var buildStage: BuildStage {
        var stage = BuildStage(staging: staging, weights: weights, dist: settings.dist, renumbered: inRaw(RenumberingFile.fileName),
                               registry: registry, lint: lint, requestedVersion: settings.requestedVersion, guards: settings.guards)
        stage.allowOlderRelease = settings.allowOlderRelease
        return stage
    }

    /// Says whether a stage runs and why; true when it must.
    func announce(_ name: String, _ reason: String?) -> Bool {
        Events.send(PublishEvent.stage(name, reason: reason))
        return reason != nil
    }

    /// What the stages hand the build: its check, and the staging and weights when this run
    /// made them (each read from its file by whoever needs it, at most once, otherwise).
    struct Staged {
        var buildCheck: StageCheck
        var staging: Staging?
        var weights: [Int: Int]?
        /// Ingest's record when it did not run this time.
        var ingested: StageRecord?
        /// This run's lint, running beside the stages after ingest: the build waits for it
        /// only where it needs its count.
        var linted: Pending<IngestStage.Linted>?
        /// The published-ID check, running beside priority and the build.
        var checked: Pending<Void>

        /// The lint's count and report when this run made them, else the record's count.
        func lint() async throws -> (record: StageRecord?, report: LintReport?) {
            guard let linted else { return (ingested, nil) }
            let done = try await linted.value
            return (done.record, done.report)
        }
    }

    /// Ingest, then priority, each only when what it reads changed, then `then` with what
    /// they made; the published IDs are checked against `baseline` beside priority and
    /// `then`, and joined before anything is published (a damaged registry would give a
    /// station a new s_id: its weights may be drawn, never published). `registry` stands in
    /// for a raw/registry.csv that is gone. Lint runs beside priority and `then`.
    func runStages<T>(baseline: Baseline?, registry: String? = nil, _ then: (Staged) async throws -> T) async throws -> T {
        // Each file is read and hashed at most once a run; the files a stage wrote are known
        // by its record while they keep the stamps they were written with, and latest.json as
        // the baseline read it: a run with nothing changed opens none of build/'s files.
        var digests = FileDigests()
        if let latest = baseline?.latest { digests.know([joinPath(settings.dist, DistLayout.latest): latest]) }
        let ingest = ingestStage(registry: registry, published: baseline)
        let ingestCheck = ingest.check(&digests)
        guard announce("ingest", ingestCheck.reason) else {
            return try await weigh(baseline: baseline, staging: nil, ingested: ingestCheck.recorded, linted: nil, &digests, then)
        }
        let ingested = try await ingest.assemble(record: ingestCheck.record)
        digests.know(ingested.wrote)
        return try await Pending.beside({ try ingest.lint(ingested) }) { linted in
            try await weigh(baseline: baseline, staging: ingested.outcome.staging, ingested: nil, linted: linted, &digests, then)
        }
    }

    /// Priority when what it reads changed, and the build's check; then `then`.
    func weigh<T>(baseline: Baseline?, staging: Staging?, ingested: StageRecord?, linted: Pending<IngestStage.Linted>?,
                  _ digests: inout FileDigests, _ then: (Staged) async throws -> T) async throws -> T {
        var staging = staging
        let priority = priorityStage
        let priorityCheck = priority.check(&digests)
        let build = buildStage
        // The build is checked before priority runs only when priority need not: else it must.
        let buildCheck = priorityCheck.reason == nil ? try await build.check(&digests, linted: linted) : nil
        // The IDs are checked when a stage makes or weighs anew; else the run that wrote
        // these files checked them against this very baseline (latest.json is the build's output).
        // The check runs beside priority and the build, and is joined before anything is published.
        let checkIDs = priorityCheck.reason != nil || buildCheck?.reason != nil
        if checkIDs, staging == nil { staging = try StagingFile.read(from: self.staging) }
        let held = staging
        return try await Pending.beside({ if checkIDs { try build.checkPublishedIDs(against: baseline, staging: held) } }) { checked in
            var weights: [Int: Int]?
            if announce("priority", priorityCheck.reason) {
                let run = try priority.run(record: priorityCheck.record, staging: held)
                weights = run.weights
                digests.know(run.record?.written ?? [:])
            }
            var check = buildCheck
            if check == nil { check = try await build.check(&digests, linted: linted) }
            return try await then(Staged(buildCheck: check!, staging: held, weights: weights, ingested: ingested, linted: linted, checked: checked))
        }
    }

    /// A raw/registry.csv that is gone would give every station a new s_id. The registry
    /// the baseline was published with is the memory of its IDs: a publish restores it
    /// into raw/ (for the maintainer to commit), a plan only reads it. With that copy gone
    /// too, nothing is rebuilt from nothing: the run stops, saying where to find one.
    func missingRegistry(baseline: Baseline?, restore: Bool) throws -> String? {
        guard !Files.exists(registry), let baseline else { return nil }
        let version = baseline.bundle.version
        guard let kept = baseline.registryPath else {
            throw StationError.badInput(SourceLocation(file: registry), "missing, and so is the registry version \(version) was published with "
                             + "(\(joinPath(joinPath(settings.dist, String(version)), DistLayout.registry))): a registry made afresh would give every "
                             + "station a new s_id, and users' records would point at other stations. Restore it from version control "
                             + "(git checkout -- \(registry)) or from the copy the web server keeps (BASE/\(version)/registry.csv); "
                             + "\(baseline.databasePath) holds every s_id with its name and place, to check it against")
        }
        if restore {
            do { try AtomicFile.write(try Files.read(kept), to: registry, creatingFolder: false) } catch {
                throw BuildStage.registryNotUpdated(error, registry: registry, version: version, dist: settings.dist)
            }
            Events.send(PublishEvent.registryRestored(path: registry, from: kept, version: version))
            return nil
        }
        Events.send(PublishEvent.registryBorrowed(path: registry, from: kept, version: version))
        return kept
    }

    // MARK: - publish

    /// The nightly job: the stages, then the new version into dist when anything changed
    /// and the guards allow it. Holds dist/.lock from the first read to the new latest.json.
    package func publish() async throws -> RunReport {
        try await HeldInputs.$current.withValue(HeldInputs(raw: settings.raw)) { try await publishing() }
    }

    func publishing() async throws -> RunReport {
        try IngestOptions(rawFolder: settings.raw).checkRawFolder()
        let distLock = try DistLock.acquire(dist: settings.dist, wait: settings.wait)
        let buildLock = try buildStage.lockBuildFolder(wait: settings.wait)
        defer { withExtendedLifetime((distLock, buildLock)) {} }
        // Under the lock, every temporary file in dist is a dead run's, whether or not this one publishes.
        BundleBuilder.removeLeftovers(in: settings.dist)
        let baseline = try Baseline.local(dist: settings.dist)
        let version = try BundleBuilder.version(for: settings.dist, previous: baseline, requested: settings.requestedVersion)
        _ = try missingRegistry(baseline: baseline, restore: true)

        let (outcome, report, lags) = try await runStages(baseline: baseline) { staged in
            let lags = try registryLags(behind: baseline)
            guard announce("build", staged.buildCheck.reason) else {
                // Nothing changed: the lint count is ingest's record's, the report unread.
                let outcome = BuildOutcome.unchanged(version: baseline?.bundle.version ?? 0)
                var report = RunReport(outcome, command: "publish", baseline: baseline, lint: nil, force: settings.force)
                report.lintWarnings = try await staged.lint().record?.facts?["lint warnings"].flatMap { Int($0) }
                return (outcome, report, lags)
            }
            let outcome = try await buildStage.publish(baseline: baseline, version: version, force: settings.force, record: staged.buildCheck.record,
                                                       staging: staged.staging, weights: staged.weights, linted: staged.linted,
                                                       checked: staged.checked, registryLags: lags)
            let lint = staged.linted == nil ? try? BuildStage.lintReport(lint) : try await staged.lint().report
            return (outcome, RunReport(outcome, command: "publish", baseline: baseline, lint: lint, force: settings.force), lags)
        }
        // A raw/registry.csv that lags (an exit 5 before, a checkout, a lost write) is never said to
        // be "nothing changed", nor overwritten by a version equal to the published one: the run
        // says so as a plan does (exit 5), naming the copy. A new version's registry replaces it.
        if lags, case .unchanged = outcome, let baseline { try refuseLaggingRegistry(behind: baseline) }
        switch outcome {
        case .published:
            // What a reviewer looks at first, said even when no plan was looked at.
            for line in report.lookAtThese { Events.send(PublishEvent.lookAtThis(line)) }
            Events.send(PublishEvent.publishedInto(version: report.version ?? 0, dist: settings.dist))
        case .refused: break
        case .unchanged, .prepared:
            Events.send(PublishEvent.nothingChanged(dist: settings.dist, version: baseline?.bundle.version))
        }
        return report
    }

    // MARK: - plan

    /// What a publish would do, without doing it: the stages and a candidate version
    /// under build/, compared with `source`. dist/ and raw/ are left byte for byte as
    /// they were, whatever happens; the publish after it takes the same candidate.
    package func plan(against source: BaselineSource = .dist) async throws -> Plan {
        try await HeldInputs.$current.withValue(HeldInputs(raw: settings.raw)) { try await planning(against: source) }
    }

    func planning(against source: BaselineSource) async throws -> Plan {
        try IngestOptions(rawFolder: settings.raw).checkRawFolder()
        let buildLock = try buildStage.lockBuildFolder(wait: settings.wait)
        defer { withExtendedLifetime(buildLock) {} }
        let baseline: Baseline?
        let version: Int
        // The version a publish here compares with, when it is not the one the apps have.
        var local: Baseline?
        switch source {
        case .dist:
            baseline = try Baseline.local(dist: settings.dist)
            version = try BundleBuilder.version(for: settings.dist, previous: baseline, requested: settings.requestedVersion)
        case .url(let url):
            let production = try downloadBaseline(url)
            baseline = production
            if let mine = try Baseline.local(dist: settings.dist) {
                // The version the next publish makes is this dist's next, whatever is served.
                version = try BundleBuilder.version(for: settings.dist, previous: mine, requested: settings.requestedVersion)
                if !Self.same(mine.bundle, production.bundle) {
                    local = mine
                    sayWhere(mine, standsTo: production, url: url, next: version)
                }
            } else {
                // Nothing published here (CI): the version after the served one, as a dist copied from it would make.
                version = try BundleBuilder.nextVersion(previous: production.bundle.version, requested: settings.requestedVersion)
                Events.send(PublishEvent.distEmpty(dist: settings.dist, url: url, served: production.bundle.version))
            }
        }
        // The stages and the candidate as the publish after this plan makes them: against this
        // dist's version when it is not the served one, so that the publish takes this candidate.
        let made = local ?? baseline
        // The published version as the preview reads it, read while the stages run (the second
        // core idles while ingest parses); on a failure the preview reads it again itself, and
        // says what is wrong with it as before.
        let shown = local == nil ? made : nil
        return try await Pending.beside({ try? shown.map { PublishedRead(preview: try PageData.Side.read(path: $0.databasePath, label: $0.label)) } }) { read in
          try await runStages(baseline: made, registry: try missingRegistry(baseline: made, restore: false)) { staged in
            let lags = try registryLags(behind: made)
            // The preview of a new candidate is written while its gzip is made (not when it is
            // compared with a served version other than the one it was made against: below).
            var previewed: String??
            var outcome = try await buildStage.candidate(version: version, baseline: made, record: staged.buildCheck.record,
                                                         staging: staged.staging, weights: staged.weights, linted: staged.linted) { candidate in
                guard local == nil else { return }
                previewed = writePreview(candidate.database, baseline: baseline, changes: candidate.changes, identity: candidate.identity,
                                         baselineRead: try? await read.value?.preview)
            }
            if case .unchanged = outcome, lags, let made { try refuseLaggingRegistry(behind: made) }
            var reportBaseline = baseline
            if let local {
                switch outcome {
                case .prepared(let candidate):
                    outcome = .prepared(try compare(candidate, madeAgainst: local, with: baseline!))
                default:
                    // Equal to this dist's version, which the apps do not have yet: nothing new to publish.
                    reportBaseline = local
                }
            }
            let lint = staged.linted == nil ? try? BuildStage.lintReport(lint) : try await staged.lint().report
            var report = RunReport(outcome, command: "plan", baseline: reportBaseline, lint: lint, force: settings.force, listingChanges: true)
            report.baseline?.source = reportBaseline?.databasePath == local?.databasePath ? settings.dist : source.label(dist: settings.dist)
            var plan = Plan(report: report, changes: outcome.candidate?.changes, candidate: outcome.candidate?.database ?? reportBaseline?.databasePath,
                            baseline: reportBaseline)
            plan.preview = previewed ?? writePreview(plan.candidate, baseline: reportBaseline, changes: plan.changes, identity: report.identity)
            return plan
          }
        }
    }

    /// Whether raw/registry.csv lags the registry `published` was made with, which this run
    /// made again: it is an earlier version's of this dist (after an exit 5, a version was
    /// published and raw/ could not take its registry). Any other raw/registry.csv that is not
    /// the published one while this run makes it again was edited by hand: plan and publish
    /// refuse it alike (exit 2), naming each row that differs, and how to put it back.
    func registryLags(behind published: Baseline?) throws -> Bool {
        let pending = pendingRegistry(for: staging)
        guard let published, let kept = published.registryPath, Files.exists(registry), Files.exists(pending) else { return false }
        let ours = try Files.read(registry), theirs = try Files.read(kept)
        guard ours != theirs, try Files.read(pending) == theirs else { return false }
        let earlier = published.label == settings.dist ? try BundleVersion.named(Files.names(in: settings.dist), in: settings.dist) : []
        if earlier.contains(where: { (try? Files.read(joinPath(joinPath(settings.dist, String($0)), DistLayout.registry))) == ours }) { return true }
        let version = published.bundle.version
        let named = published.label == settings.dist ? joinPath(joinPath(settings.dist, String(version)), DistLayout.registry) : kept
        var differences = try Registry.differences(CSVReader.parse(ours, file: registry), from: CSVReader.parse(theirs, file: named), version: version)
        differences.append(Diagnostic(SourceLocation(file: registry), "not the registry version \(version) was published with (\(named)), and this run makes "
                                      + "that one again: it was edited by hand. It is the memory of every s_id as published, not a place for fixes "
                                      + "(raw/fixes.csv is): put it back with cp \(named) \(registry) (or git checkout -- \(registry))"))
        throw StationError.badInput(differences)
    }

    /// After an exit 5 (a version published, raw/registry.csv not written), raw/registry.csv
    /// lags the registry `published` was made with, while ingest, reading the published
    /// copy's IDs back, makes that very registry again and nothing changes: a plan says so
    /// with exit 5, naming the copy, until it is there, never "nothing would change".
    func refuseLaggingRegistry(behind published: Baseline) throws {
        guard let kept = published.registryPath else { return }
        let version = published.bundle.version
        let named = published.label == settings.dist ? joinPath(joinPath(settings.dist, String(version)), DistLayout.registry) : kept
        let event = PublishEvent.registryNotUpdated(version: version, dist: published.label, registry: registry, kept: named,
                                                    error: "it is not the registry version \(version) was published with (a publish that exited 5?)")
        Events.send(event)
        throw StationError(.publishedWithoutRegistry, reasons: [event.description], said: true)
    }

    static func same(_ a: PublishedBundle, _ b: PublishedBundle) -> Bool {
        a.version == b.version && a.sha256.lowercased() == b.sha256.lowercased()
    }

    /// Says how this dist stands to the one served: ahead of it (versions published here and
    /// not deployed: the served version is on this dist's line), or off its line (behind it,
    /// or another publication), which a deploy of the next version would refuse.
    func sayWhere(_ local: Baseline, standsTo production: Baseline, url: String, next: Int) {
        var line: [PublishedBundle] = [local.bundle]
        while let previous = line.last?.previousVersion, previous < line.last!.version,
              let earlier = try? PublishedBundle.read(path: joinPath(joinPath(settings.dist, String(previous)), DistLayout.manifest)) {
            line.append(earlier)
        }
        if let at = line.firstIndex(where: { Self.same($0, production.bundle) }) {
            Events.send(PublishEvent.distAhead(dist: settings.dist, versions: line[..<at].map(\.version).reversed(), url: url,
                                               served: production.bundle.version))
        } else {
            Events.send(PublishEvent.distOffProduction(dist: settings.dist, version: local.bundle.version, url: url,
                                                       served: production.bundle.version, next: next))
        }
    }

    /// The candidate made against this dist's `local` version, as the apps at `production`
    /// will see it: its changes against `production`, and the guards against both (a publish
    /// here checks them against `local`; the apps go from `production` to it at once).
    func compare(_ candidate: Candidate, madeAgainst local: Baseline, with production: Baseline) throws -> Candidate {
        Events.send(PublishEvent.againstDist(dist: settings.dist, version: local.bundle.version, next: candidate.bundle.version,
                                             changes: BundleBuilder.changesText(candidate.difference), violations: candidate.violations))
        let difference = try BundleDifference.between(oldPath: production.databasePath, newPath: candidate.database)
        var seen = Candidate(folder: candidate.folder, bundle: candidate.bundle, difference: difference,
                             changes: try ChangeList(difference, from: production, to: candidate.database, meta: StagingFile.readMeta(from: staging)))
        let label = "against version \(local.bundle.version) of \(settings.dist) (what the publish compares with)"
        seen.violations = try PublishGuards.violations(of: seen, against: production, guards: settings.guards)
            + candidate.violations.filter { !seen.violations.contains($0) }.map { "\(label): \($0)" }
        return seen
    }

    /// build/preview.html: the candidate against the baseline as the apps would show
    /// them. A plan is still a plan without it (CI has no browser to open it in), so a
    /// missing Leaflet is said, not fatal.
    func writePreview(_ candidate: String?, baseline shown: Baseline?, changes: ChangeList?, identity: IdentityReview?,
                      baselineRead: PageData.Side? = nil) -> String? {
        guard let candidate else {
            unlink(preview)
            return nil
        }
        let unchanged = candidate == shown?.databasePath
        let baseline = unchanged ? nil : shown
        // A plan with nothing to publish shows the published version, and says so.
        let nothingChanged = unchanged ? shown.map {
            "Nothing changed: the bundle equals version \($0.bundle.version) of \($0.label); the next make publishes nothing."
        } : nil
        do {
            try PreviewPage.write(candidate: candidate, baseline: baseline?.databasePath, to: preview,
                                  candidateLabel: baseline == nil ? nil : buildStage.candidateFolder, baselineLabel: baseline?.label,
                                  changes: changes, identity: identity, nothingChanged: nothingChanged, baselineRead: baselineRead)
            Events.send(PublishEvent.preview(path: preview))
            return preview
        } catch {
            unlink(preview)
            Events.send(PublishEvent.noPreview("\(error)"))
            return nil
        }
    }

    /// The version published at `url`, downloaded into build/baseline/ with pull's code and checks.
    func downloadBaseline(_ url: String) throws -> Baseline {
        Events.send(PublishEvent.readingBaseline(url: url))
        let client = BundleClient(baseURL: url, databasePath: joinPath(downloadedBaseline, DistLayout.database), http: HTTPClient(options: settings.transfer))
        let baseline = try client.downloadPublished()
        Events.send(PublishEvent.baselineRead(version: baseline.bundle.version, url: url, sha256: baseline.bundle.sha256))
        return baseline
    }
}

extension BaselineSource {
    func label(dist: String) -> String {
        switch self {
        case .dist: dist
        case .url(let url): url
        }
    }
}

/// The published version as a plan shows it, read beside the stages.
package struct PublishedRead: Sendable {
    var preview: PageData.Side
}

/// What `plan` found: the report, the changes by name, and the two bundles (for a preview).
package struct Plan: Sendable {
    package var report: RunReport
    package var changes: ChangeList?
    /// The bundle that would be published (the baseline's own when nothing would change).
    package var candidate: String?
    package var baseline: Baseline?
    /// build/preview.html, when it was written.
    package var preview: String?
}
