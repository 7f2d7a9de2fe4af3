import ArgumentParser
import BuildDB
import BundleDiff
import FoundationEssentials
import Ingest
import Lint
import Priority
import StationIO
import StationModel

// The three stages as both their own commands and `stationdb publish` run
// them. Each writes its outputs, then a record of what it read (StageRecord);
// `publish` runs a stage only when what it would read now differs from that
// record, so a stage run by hand and `make` always agree on what has changed.

/// A stage of the pipeline: what it would read now, and whether its last run read the same.
protocol Stage {
    /// The record a run now would write, outputs not yet filled in.
    func record() throws -> StageRecord
    /// Where the record is kept (beside the main output).
    var recordOwner: String { get }
    /// The outputs by role, for checking that they are still as written.
    var outputs: [String: String] { get }
}

extension Stage {
    /// nil when the last run read the same and its outputs are as it wrote them; else why it must run.
    func reasonToRun() -> String? {
        guard let now = try? record() else { return "its inputs cannot be read" }   // the run then says why
        let recorded = StageRecord.read(for: recordOwner)
        return now.isCurrent(recorded: recorded, outputs: outputs) ? nil : now.changes(since: recorded).joined(separator: ", ")
    }

    /// Writes the record of a finished run: `record` with the digests of what it wrote.
    func writeRecord(_ record: StageRecord) throws {
        var record = record
        for (role, path) in outputs { record.outputs[role] = try StageRecord.digest(of: path) }
        try record.write(for: recordOwner)
    }
}

/// Where ingest leaves the registry its staging file was made with, for build to copy into
/// raw/ once the version is published: a refused or failed publish leaves raw/ as it was.
func pendingRegistry(for staging: String) -> String { staging + ".registry.csv" }

/// raw/ -> the staging file, the registry to publish with it (and the lint report).
struct IngestStage: Stage {
    var options: IngestOptions
    var staging: String
    /// Where the lint report goes, if anywhere.
    var lint: String?
    /// Hand weights for the lint (default: RAW/weights.csv when present).
    var hand: String?

    var handWeights: String { hand ?? joinPath(options.rawFolder, HandWeights.fileName) }
    var recordOwner: String { staging }
    var outputs: [String: String] {
        var outputs = ["staging": staging, "registry": pendingRegistry(for: staging)]
        if let lint { outputs["lint report"] = lint }
        return outputs
    }

    func record() throws -> StageRecord {
        let raw = options.rawFolder
        guard Files.isFolder(raw) else { throw EnvironmentError("no raw folder at \(raw)") }   // the run says so properly
        var inputs = ["sources.json": try StageRecord.digest(of: joinPath(raw, SourcesConfig.fileName)),
                      "fixes": try StageRecord.digest(of: options.fixesPath), "registry": try StageRecord.digest(of: options.registryPath)]
        for file in try SourcesConfig.load(rawFolder: raw).files(rawFolder: raw) {
            inputs["source:" + options.relativePath(file)] = try StageRecord.digest(of: file)
        }
        if lint != nil { inputs["hand weights"] = try StageRecord.digest(of: handWeights) }
        return StageRecord(stage: "ingest", inputs: inputs)
    }

    /// Reads, assembles and (unless `check`) writes the staging file, the registry and the record.
    func run(check: Bool = false, report: Bool = false) async throws {
        var record = try? record()
        var sourceFindings: [LintFinding] = []
        let inputs = try await IngestPipeline.read(options) { if lint != nil { sourceFindings += Lint.sourceValues($0) } }
        let fixes = inputs.fixes
        let outcome = try IngestPipeline.assemble(inputs, problemLimit: options.problemLimit, keepOrigins: lint != nil)
        let n = outcome.staging.network
        if report { Self.printReport(outcome) }
        let live = n.stations.count(where: \.enabled)
        var summary = "ingest: \(n.operators.count) operators, \(n.lines.count) lines, \(n.stations.count) stations (\(live) live), \(n.stationLines.count) station-line rows"
        let newStations = outcome.report.newIDs[.station] ?? 0, gone = outcome.report.vanished[.station] ?? 0
        if newStations > 0 || gone > 0 { summary += "; \(newStations) new station IDs, \(gone) vanished stations kept disabled" }
        if !outcome.report.disagreements.isEmpty { summary += "; \(outcome.report.disagreements.count) disagreements between sources (see --report)" }
        for w in outcome.report.warnings { note("warning: \(w)") }
        if check {
            note(summary + " (checked; nothing written)")
            return
        }
        try AtomicFile.write(outcome.registryText, to: pendingRegistry(for: staging))
        try StagingFile.write(outcome.staging, to: staging)
        let newIDs = outcome.report.newIDs.values.reduce(0, +)
        if newIDs > 0 { note("ingest: \(newIDs) new IDs; \(options.label(for: options.registryPath)) takes them when the version is published") }
        note(summary + " -> \(staging)")
        if let lint {
            let report = try Lint.check(sourceFindings: sourceFindings, fixes: fixes, outcome, options: options, handWeights: handWeights)
            try AtomicFile.write(try report.json(), to: lint)
            note("lint: \(report.summary) in \(options.rawLabel)" + (report.count > 0 ? "; `make lint` lists them" : ""))
        }
        // The registry as it will be once published: a run after that finds nothing new.
        record?.inputs["registry"] = SHA256.hex(outcome.registryText)
        if let record { try writeRecord(record) }
    }

    static func printReport(_ outcome: IngestOutcome) {
        let d = outcome.report.disagreements
        print("# Disagreements between sources (\(outcome.report.sources.joined(separator: " > ")); the first wins)")
        if d.isEmpty { print("none"); return }
        for kind in [Disagreement.Kind.name, .coordinates, .prefecture] {
            let rows = d.filter { $0.kind == kind }
            if rows.isEmpty { continue }
            print("\n## \(kind.rawValue) (\(rows.count))")
            for r in rows { print(r.description) }
        }
    }
}

/// The staging file and hand weights -> every station's weight.
struct PriorityStage: Stage {
    var staging: String
    /// The hand weights file; nil for none (--no-hand).
    var hand: String?
    var weights: String
    var seed: UInt64
    var method: PriorityMethod = .blueNoise(.standard)
    var tiers: String?

    var recordOwner: String { weights }
    var outputs: [String: String] { ["weights": weights] }

    func record() throws -> StageRecord {
        var options = ["seed": String(seed), "method": method.description]
        if let tiers { options["tiers"] = tiers }
        return StageRecord(stage: "priority", options: options,
                           inputs: ["staging": try StageRecord.digest(of: staging),
                                    "hand weights": try hand.map(StageRecord.digest) ?? StageRecord.absent])
    }

    @discardableResult
    func run() throws -> (weights: [Int: Int], network: RailNetwork) {
        let record = try? record()
        let network = try StagingFile.read(from: staging).network
        let hand = try self.hand.map { try HandWeights.read(path: $0, network: network) } ?? (weights: [], warnings: [])
        for w in hand.warnings { note("warning: \(w)") }
        var config = PriorityConfig(seed: seed, method: method)
        if let tiers { config.method = .meshLottery(try MeshTier.parse(list: tiers)) }
        let assigned = PriorityAssigner.assign(network: network, hand: hand.weights, config: config)
        try StationWeightsFile.write(assigned, to: weights)
        note("priority: \(describeCounts(assigned, network: network)); wrote \(weights)")
        if let record { try writeRecord(record) }
        return (assigned, network)
    }
}

/// The staging file and weights -> a new version in dist (or none, when nothing changed).
/// Its record is kept beside latest.json, the file a publish replaces.
struct BuildStage: Stage {
    var staging: String
    var weights: String
    var dist: String
    var renumbered: String?
    /// raw/registry.csv: it takes the registry the staging file was made with once the version is published.
    var registry: String?
    var lint: String?
    var requestedVersion: Int?
    var guards: DiffGuards
    var force: Bool

    var recordOwner: String { joinPath(dist, DistLayout.latest) }
    var outputs: [String: String] { ["latest.json": recordOwner] }

    func record() throws -> StageRecord {
        var options: [String: String] = [:]
        if let requestedVersion { options["version"] = String(requestedVersion) }
        return StageRecord(stage: "build", options: options,
                           inputs: ["staging": try StageRecord.digest(of: staging), "weights": try StageRecord.digest(of: weights),
                                    "renumbered": try renumbered.map(StageRecord.digest) ?? StageRecord.absent,
                                    "registry": try StageRecord.digest(of: stagingRegistry),
                                    "lint report": try lint.map(StageRecord.digest) ?? "not used"])
    }

    /// The registry the staging file was made with: ingest's, or raw/'s for a staging file made without one.
    var stagingRegistry: String {
        let pending = pendingRegistry(for: staging)
        return Files.exists(pending) || registry == nil ? pending : registry!
    }
    var registryLabel: String { registry ?? "raw/registry.csv" }

    /// Checks the staging file's IDs against the published version (PublishedIDs).
    func checkPublishedIDs() throws {
        let renumbered = try self.renumbered.map { try RenumberingFile.read(from: $0) } ?? [:]
        try PublishedIDs.check(try StagingFile.read(from: staging).network, renumbered: Set(renumbered.keys.map(\.oldID)),
                               registry: try Registry.load(path: stagingRegistry), registryLabel: registryLabel, dist: dist)
    }

    /// Once the version is published (or found equal to the published one), raw/registry.csv
    /// takes the registry it was made with: the memory of every ID that version holds.
    func commitRegistry() throws {
        guard let registry, Files.exists(stagingRegistry), stagingRegistry != registry else { return }
        let next = try Files.read(stagingRegistry)
        if Files.exists(registry), try Files.read(registry) == next { return }
        let before = try Registry.load(path: registry), after = try Registry.parse(CSVReader.parse(next, file: stagingRegistry))
        let newIDs = Registry.Kind.allCases.reduce(0) { count, kind in count + after.ids(kind).count { !before.contains(kind, $0) } }
        try AtomicFile.write(next, to: registry)
        note("build: \(registry) updated (\(newIDs > 0 ? "\(newIDs) new IDs" : "rows as now published")); commit it with the source change that caused it")
    }

    /// Builds and, unless it equals the published version, publishes; `lock` is the dist's, when held already.
    func run(lock: FileLock? = nil) async throws -> BuildOutcome {
        let record = try? record()
        let staging = try StagingFile.read(from: self.staging)
        let weights = try StationWeightsFile.read(from: self.weights)
        let renumberings = try renumbered.map { try RenumberingFile.read(from: $0) } ?? [:]
        let request = BuildRequest(staging: staging, stagingPath: self.staging, weights: weights, weightsPath: self.weights,
                                   renumberings: renumberings, renumberedLabel: renumbered ?? RenumberingFile.defaultPath, dist: dist, requestedVersion: requestedVersion, guards: guards,
                                   force: force, lintWarnings: try lint.map(Self.lintCount),
                                   registry: try Registry.load(path: stagingRegistry), registryLabel: registryLabel, lock: lock)
        let outcome: BuildOutcome
        do {
            outcome = try await BundleBuilder().build(request)
        } catch let refusal as GuardRefusal {
            note(refusal.description)
            note("nothing was published (\(dist) is as it was); if this change is intended, run the same make again with FORCE_PUBLISH=1 (stationdb build --force)")
            throw CommandExit(status: .guardRefused)
        }
        try commitRegistry()
        switch outcome {
        case .unchanged(let version):
            note("build: the bundle equals the published version \(version); nothing published")
        case .published(let bundle, let difference):
            let warnings = bundle.warnings.map { "; \($0) lint warning\($0 == 1 ? "" : "s")" } ?? ""
            note("published version \(bundle.version): \(BundleBuilder.countsText(bundle.rows)); \(BundleBuilder.changesText(difference))\(warnings)")
        }
        if let record { try writeRecord(record) }
        return outcome
    }

    /// The count of a lint report (`stationdb lint --out`).
    static func lintCount(_ path: String) throws -> Int {
        do {
            return try JSONDecoder().decode(LintReport.self, from: Data(try Files.read(path))).count
        } catch let error as DecodingError {
            throw InputError(SourceLocation(file: path, field: error.keyPath), "not a lint report (\(error.reason)); write one with `stationdb lint --out`")
        }
    }
}

/// The publish guards, shared by `build` and `publish`.
struct GuardOptions: ParsableArguments {
    @Option(name: .customLong("max-removed"), help: ArgumentHelp("Refuse to publish when more than PCT % of the published stations are removed.", valueName: "PCT"))
    var maxRemoved = DiffGuards.nightly.maxRemovedPercent!

    @Option(name: .customLong("max-disabled"), help: ArgumentHelp("Refuse when more than PCT % of the published enabled stations, lines or operators are disabled.", valueName: "PCT"))
    var maxDisabled = DiffGuards.nightly.maxDisabledPercent!

    @Option(name: .customLong("max-line-rows-removed"), help: ArgumentHelp("Refuse when more than PCT % of the published stations_lines rows are removed.", valueName: "PCT"))
    var maxLineRowsRemoved = DiffGuards.nightly.maxLineRowsRemovedPercent!

    @Option(name: .customLong("max-moved-m"), help: ArgumentHelp("Refuse when a station moved further than METRES.", valueName: "METRES"))
    var maxMovedMetres = DiffGuards.nightly.maxMovedMetres!

    @Option(name: .customLong("max-weight-churn"), help: ArgumentHelp("Refuse when more than PCT % of the stations enabled in both changed weight.", valueName: "PCT"))
    var maxWeightChurn = DiffGuards.nightly.maxWeightChurnPercent!

    @Flag(help: "Publish even when a guard is exceeded (make FORCE_PUBLISH=1).")
    var force = false

    @Option(name: .customLong("as-version"), help: ArgumentHelp("Publish as version N (make VERSION=N); it must be larger than every version in dist.", valueName: "N"))
    var requestedVersion: Int?

    var guards: DiffGuards {
        DiffGuards(maxRemovedPercent: maxRemoved, maxDisabledPercent: maxDisabled, maxLineRowsRemovedPercent: maxLineRowsRemoved,
                   maxMovedMetres: maxMovedMetres, maxWeightChurnPercent: maxWeightChurn)
    }

    func validate() throws {
        for (name, value) in [("--max-removed", maxRemoved), ("--max-disabled", maxDisabled), ("--max-line-rows-removed", maxLineRowsRemoved),
                              ("--max-moved-m", maxMovedMetres), ("--max-weight-churn", maxWeightChurn)] where !(value >= 0) {
            throw ValidationError("\(name) must be a number of 0 or more")
        }
    }
}
