import StationCore

// The Ingest stage end to end: read every declared source, merge them in
// precedence order, give every entity its stable ID from the registry,
// re-publish vanished ones disabled, apply the maintainers' fixes, validate the
// whole, and hand over a staging file. Nothing is written unless all of it
// succeeds.

package struct IngestReport: Sendable {
    package var disagreements: [Disagreement] = []
    /// Values kept as the sources hold them but worth a look (unknown codes).
    package var warnings: [Diagnostic] = []
    /// Fixes whose value the network already held before they were applied.
    package var unneededFixes: [DataFix] = []
    /// Fixes that move a station more than a kilometre or rename one, against the station
    /// as the registry says it was published (DataFixes.Outcome).
    package var notableFixes: [(station: Int, diagnostic: Diagnostic)] = []
    package var newIDs: [Registry.Kind: Int] = [:]
    package var vanished: [Registry.Kind: Int] = [:]
    package var sources: [String] = []
}

package struct IngestOutcome: Sendable {
    package var staging: Staging
    package var report: IngestReport
    /// The registry file after this run: every key seen, every row as published.
    package var registryText: [UInt8]
    /// Where each station of the sources was first defined, by s_id (only when asked for: lint).
    package var stationOrigins: [Int: SourceLocation] = [:]
    /// raw/fixes.csv as read.
    package var fixes: [DataFix] = []
    /// The identity review's sides, for `stationdb explain` (none for a first version), kept only when
    /// IngestOptions.keepsEvidence asks.
    var reviewer: IdentityReviewer?
    /// Whether the run kept them: asking a run that did not is a caller's mistake, not a first version.
    var keptEvidence = false

    /// Every pair the evidence weighs (IdentityReviewer.pairs), for the weights' estimation.
    package func identityPairs() -> [IdentityPair] {
        precondition(keptEvidence, "the weighed pairs of a run made without IngestOptions.keepsEvidence")
        return reviewer?.pairs() ?? []
    }

    /// The evidence on each of `ids` (IdentityReviewer.explain); nil with no registry to weigh
    /// against. An s_id neither ever published nor this run's is bad input, all of them at once.
    package func explain(_ ids: [Int]) throws -> [IdentityExplanation]? {
        precondition(keptEvidence, "explain on a run made without IngestOptions.keepsEvidence")
        guard let reviewer else { return nil }
        let unknown = ids.filter { reviewer.registered.index[$0] == nil && reviewer.at[$0] == nil }
        guard unknown.isEmpty else {
            throw StationError.badInput(SourceLocation(file: "s_id"), unknown.map { "s_id \($0) was never published and no station of this run has it" }
                .joined(separator: "; ") + ": give an s_id of the registry or of this run")
        }
        let review = StagingMeta.identity(in: staging.meta).review
        return ids.map { reviewer.explain($0, review: review) }
    }

    /// The registry after this run, read back from its text.
    package var registry: Registry {
        get throws { try Registry.parse(CSVReader.parse(registryText, file: Registry.fileName)) }
    }
}

/// Everything a run reads before it assembles the network: the sources, merged in
/// precedence order, the fixes, the registry and the digests of the source files.
package struct IngestInputs {
    let merger: NetworkMerger
    package var labels: [String]
    /// What the readers warned of (unknown codes).
    package var warnings: [Diagnostic]
    package var fixes: [DataFix]
    /// The rows of fixes.csv that could not be read, listed with the problems of applying the others.
    package var fixProblems: [Diagnostic] = []
    package var registry: Registry
    /// The registry's stations as the evidence reads them (nil for a registry with none).
    var registered: IdentityLinker.Registered?
    /// raw/identity.csv: the maintainer's decisions on identities the evidence cannot prove.
    package var decisions: [IdentityDecision] = []
    /// The rows of raw/identity.csv that could not be read, listed with the problems of applying the others.
    package var decisionProblems: [Diagnostic] = []
    package var meta: [String: String]
    /// The evidence's weights (a test may change one to see it matter).
    package var model = IdentityModel.estimated
    /// Whether the outcome keeps the identity review's sides (IngestOptions.keepsEvidence).
    package var keepsEvidence = false
}

package struct IngestOptions: Sendable {
    /// The raw folder.
    package var rawFolder: String
    /// How raw/ is named in messages and reports: by default the path as given, or for an
    /// absolute one (make's RAW, scripts/ci-plan's) its last part, "raw", as the repository
    /// names it, not the machine's path.
    package var rawLabel: String
    package var registryPath: String
    package var fixesPath: String
    /// raw/identity.csv, the maintainer's decisions on identities.
    package var decisionsPath: String
    package var problemLimit: Int
    /// The sources' digests as `digests` gives them, when the caller has them already
    /// (a stage's record reads every source before the stage runs): a source is hashed once a run.
    package var sourceDigests: [String: String]?
    /// The published version, when there is one (publish and plan give it): the registry it
    /// was made with is checked against this run's before the fixes are applied (`read`).
    package var published: Baseline?
    /// The evidence's weights (a test may change one to see it matter).
    package var model = IdentityModel.estimated
    /// Whether the outcome keeps the identity review's sides, for `stationdb explain` and the
    /// weights' estimation. A run that only publishes lets them go once the review is made: at 100
    /// times national they are a third of its memory.
    package var keepsEvidence = false

    package init(rawFolder: String, rawLabel: String? = nil, registryPath: String? = nil, fixesPath: String? = nil, problemLimit: Int = 100) {
        self.rawFolder = rawFolder
        // As a path, not the string given: `make RAW=raw/` names raw/fixes.csv as RAW=raw does.
        self.rawLabel = SourcesConfig.lexicallyNormalized(rawLabel ?? (rawFolder.hasPrefix("/") ? fileName(of: rawFolder) : rawFolder))
        self.registryPath = registryPath ?? joinPath(rawFolder, Registry.fileName)
        self.fixesPath = fixesPath ?? joinPath(rawFolder, DataFixes.fileName)
        decisionsPath = joinPath(rawFolder, IdentityDecisions.fileName)
        self.problemLimit = problemLimit
    }

    /// A nightly job whose raw/ is gone must fail, not find nothing new.
    package func checkRawFolder() throws {
        guard !Files.isFolder(rawFolder) else { return }
        throw StationError.badInput(SourceLocation(file: rawFolder), Files.exists(rawFolder) ? "not a folder; expected the raw folder of station sources"
                             : "no such folder; expected the raw folder of station sources (docs/maintaining.md: Layout of raw/); nothing was written")
    }

    /// A path relative to the raw folder when it lies in it, else as given.
    package func relativePath(_ path: String) -> String { IngestPipeline.relativePath(path, in: rawFolder) }

    /// How messages name a file: under raw/ by the raw folder's label, elsewhere as given.
    package func label(for path: String) -> String {
        let relative = IngestPipeline.relativePath(path, in: rawFolder)
        return relative == SourcesConfig.lexicallyNormalized(path) ? path : joinPath(rawLabel, relative)
    }
}

package enum IngestPipeline {
    /// Reads one declared source with its reader.
    package static func read(_ source: SourceDeclaration, options: IngestOptions) throws -> SourceNetwork {
        let path = joinPath(options.rawFolder, source.path)
        let label = source.path == "." ? options.rawLabel : joinPath(options.rawLabel, source.path)
        let folder = source.kind == .n02 ? parentFolder(of: path) : path
        if let journal = FetchJournal.unfinished(in: folder.isEmpty ? "." : folder) {
            throw StationError.badInput(SourceLocation(file: label), "a fetch was stopped while it replaced this source's files (\(journal) remains), "
                             + "so they may be part old, part new; run `stationdb fetch` (make fetch) to complete it")
        }
        return try source.kind.read(path, label: label)
    }

    package static func run(_ options: IngestOptions) async throws -> IngestOutcome {
        try assemble(try await read(options), problemLimit: options.problemLimit)
    }

    /// Reads every declared source and merges it as soon as it is read (so the sources
    /// are never all held at once); `each` sees each source before it is let go. Then the
    /// fixes; the registry is read beside the sources, its errors said after theirs. Bad
    /// input in any of them is one StationError of bad input.
    package static func read(_ options: IngestOptions, each: (SourceNetwork) -> Void = { _ in }) async throws -> IngestInputs {
        try options.checkRawFolder()
        let config = try SourcesConfig.load(rawFolder: options.rawFolder, rawLabel: options.rawLabel)
        async let meta = options.sourceDigests ?? digests(config, options)
        // The registry and its stations as the evidence reads them are made beside the sources, on
        // the second core: a fifth of an ingest at 10 times national, for 130 MB more at the read's
        // peak at 100 times (bench/README.md, issue 51).
        async let registered = Self.registered(options)
        var problems = DiagnosticCollector(limit: options.problemLimit)
        let merger = NetworkMerger()
        var labels: [String] = [], warnings: [Diagnostic] = []
        let progress = Progress("ingest: reading sources", total: config.sources.count)
        for (i, declaration) in config.sources.enumerated() {
            do {
                var source = try read(declaration, options: options)
                source.sortByKey()
                each(source)
                labels.append(source.label)
                warnings += source.warnings
                if problems.isEmpty { merger.add(source, last: i == config.sources.count - 1) }
            } catch let e as StationError where e.kind == .badInput {
                problems.add(e)
            }
            progress.update(i + 1)
        }
        progress.finish()
        var fixes: [DataFix] = [], fixProblems: [Diagnostic] = []
        do { (fixes, fixProblems) = try DataFixes.read(path: options.fixesPath, label: label(options, options.fixesPath)) } catch let e as StationError where e.kind == .badInput { problems.add(e) }
        var decisions: [IdentityDecision] = [], decisionProblems: [Diagnostic] = []
        do {
            (decisions, decisionProblems) = try IdentityDecisions.rows(path: options.decisionsPath, label: label(options, options.decisionsPath))
        } catch let e as StationError where e.kind == .badInput { problems.add(e) }
        // Listed now when the sources fail, else with what applying the other decisions finds.
        if !problems.isEmpty { for d in decisionProblems { problems.add(d.location, d.message) } }
        try problems.check()
        let (registry, evidence) = try await registered
        try checkRegistry(registry, options)
        var facts = try await meta
        facts[StagingMeta.license] = config.license
        for source in config.sources where source.kind == .stationDatabase {
            let info = joinPath(joinPath(options.rawFolder, source.path), StationDatabaseReader.releaseFile)
            if Files.exists(info), let release = StationDatabaseReader.release(of: try Files.read(info)) {
                facts[StagingMeta.release(source.path)] = SourceRelease.name(release)
            }
        }
        let credits = joinPath(options.rawFolder, SourcesConfig.creditsFile)
        if Files.exists(credits) { facts[StagingMeta.credits] = String(decoding: try Files.read(credits, label: options.label(for: credits)), as: UTF8.self) }
        return IngestInputs(merger: merger, labels: labels, warnings: warnings, fixes: fixes, fixProblems: fixProblems, registry: registry,
                            registered: evidence, decisions: decisions, decisionProblems: decisionProblems, meta: facts, model: options.model,
                            keepsEvidence: options.keepsEvidence)
    }

    /// raw/registry.csv, and its stations as the evidence reads them.
    static func registered(_ options: IngestOptions) throws -> (Registry, IdentityLinker.Registered?) {
        let registry = try Registry.load(path: options.registryPath)
        return (registry, IdentityLinker.Registered.of(registry))
    }

    /// A registry that lost a line or a key of the published version's (a bad merge) gives
    /// the entity behind it a new ID, and every fix naming the old one then matches nothing,
    /// pointing at fixes.csv. So the registry is checked against the one the published
    /// version was made with before the fixes are applied, and the error names the real
    /// cause: the registry, and the copy to take the line back from. (After the stages,
    /// PublishedIDs checks the same against the published bundle itself.)
    static func checkRegistry(_ registry: Registry, _ options: IngestOptions) throws {
        guard let published = options.published, let path = published.registryPath else { return }
        // The registry the version was published with is raw/'s own after a publish: nothing lost, nothing to parse.
        if Files.exists(options.registryPath), try Files.read(options.registryPath) == Files.read(path) { return }
        let lost = registry.lost(since: try Registry.load(path: path), version: published.bundle.version, publishedPath: path,
                                 label: options.label(for: options.registryPath))
        if !lost.isEmpty { throw StationError.badInput(Array(lost.prefix(options.problemLimit)), truncated: lost.count > options.problemLimit) }
    }

    /// Every source file's sha256, keyed relative to raw/, so the same sources give
    /// the same bundle wherever raw/ lives.
    static func digests(_ config: SourcesConfig, _ options: IngestOptions) throws -> [String: String] {
        var meta: [String: String] = [:]
        for file in config.inputFiles(rawFolder: options.rawFolder) + [options.fixesPath, options.decisionsPath] where Files.exists(file) {
            meta["source:" + relativePath(file, in: options.rawFolder)] = try SHA256.hex(fileAt: file)
        }
        return meta
    }

    /// Merges sources already read, assigns IDs against `registry`, applies
    /// `fixes` and validates: everything of `run` but the file reading.
    package static func assemble(sources: [SourceNetwork], registry: Registry, fixes: [DataFix] = [], decisions: [IdentityDecision] = [],
                                meta: [String: String] = [:],
                                problemLimit: Int = 100, keepOrigins: Bool = false) throws -> IngestOutcome {
        let merger = NetworkMerger()
        for (i, var source) in sources.enumerated() {
            source.sortByKey()
            merger.add(source, last: i == sources.count - 1)
        }
        return try assemble(IngestInputs(merger: merger, labels: sources.map(\.label), warnings: sources.flatMap(\.warnings), fixes: fixes,
                                         registry: registry, registered: IdentityLinker.Registered.of(registry), decisions: decisions, meta: meta),
                            problemLimit: problemLimit, keepOrigins: keepOrigins)
    }

    /// Assigns IDs against the registry, builds the network, re-publishes vanished
    /// entities disabled, applies the fixes and validates.
    package static func assemble(_ inputs: consuming IngestInputs, problemLimit: Int = 100, keepOrigins: Bool = false) throws -> IngestOutcome {
        var problems = DiagnosticCollector(limit: problemLimit)
        var report = IngestReport()
        report.sources = inputs.labels
        report.warnings = inputs.warnings
        let merger = inputs.merger, registry = inputs.registry

        // The s_ids fixes.csv changes by s_id, each with its fix's place.
        var fixTargets: [Int: SourceLocation] = [:]
        for fix in inputs.fixes where fix.table == .stations {
            for m in fix.match where m.column == "s_id" { if let id = Int(m.value), fixTargets[id] == nil { fixTargets[id] = fix.location } }
        }
        let ids: IdentityLinker.IDs
        // The registry's stations as the evidence reads them, for the linker and the review alike.
        let registered = inputs.registered
        do {
            ids = try IdentityLinker.link(IdentityLinker.Input(operators: merger.operators, lines: merger.lines, stations: merger.stations,
                                                               stationLines: merger.stationLines),
                                          registry: registry, decisions: inputs.decisions, fixed: Set(fixTargets.keys), model: inputs.model,
                                          registered: registered)
        } catch let e as StationError where e.kind == .badInput {
            // Every row of raw/identity.csv that is wrong, in the file's order, whatever made it so.
            let all = (inputs.decisionProblems + e.diagnostics).enumerated()
                .sorted { ($0.element.location.file, $0.element.location.line ?? 0, $0.offset) < ($1.element.location.file, $1.element.location.line ?? 0, $1.offset) }
            for (_, d) in all { problems.add(d.location, d.message) }
            try problems.check()
            throw e
        }
        for d in inputs.decisionProblems { problems.add(d.location, d.message) }
        let (operatorIDs, lineIDs, stationIDs) = (ids.operators, ids.lines, ids.stations)

        var network = RailNetwork()
        for (i, o) in merger.operators.enumerated() {
            network.operators.append(Operator(id: operatorIDs[i], name: o.name, type: o.type ?? OperatorType.thirdSectorOrOther, enabled: o.enabled ?? true))
        }
        for (i, l) in merger.lines.enumerated() {
            network.lines.append(Line(id: lineIDs[i], name: l.name, operatorID: operatorIDs[l.operatorIndex], enabled: l.enabled ?? true, type: l.type))
        }
        let prefs = fillPrefectures(merger.stations)
        network.stations.reserveCapacity(merger.stations.count)
        for (i, s) in merger.stations.enumerated() {
            guard let pref = prefs[i] else {
                problems.add(s.origin, "no prefecture: the source has none and no other source has a station within reach; add one with a fix (set,stations,...,pref,N)")
                continue
            }
            network.stations.append(Station(id: stationIDs[i], name: s.name, yomi: s.yomi ?? "", wiki: s.wiki ?? "", pref: pref,
                                            address: s.address ?? "", lat: s.lat, lng: s.lng, operatorID: operatorIDs[s.operatorIndex],
                                            enabled: s.enabled ?? true))
        }
        network.stationLines.reserveCapacity(merger.stationLines.count)
        for x in merger.stationLines {
            network.stationLines.append(StationLine(lineID: lineIDs[x.lineIndex], stationID: stationIDs[x.stationIndex], sort: x.sort))
        }
        report.disagreements = merger.disagreements.map { (index, d) in var d = d; d.stationID = stationIDs[index]; return d }
            .sorted { ($0.stationID, $0.kind.rawValue, $0.other) < ($1.stationID, $1.kind.rawValue, $1.other) }
        var stationOrigins: [Int: SourceLocation] = [:]
        if keepOrigins {
            for (i, s) in merger.stations.enumerated() { stationOrigins[stationIDs[i]] = s.origin }
        }
        var identity = StagingIdentity()
        for m in ids.merged { identity.merged[m.oldID, default: []].append(m.newID) }
        let identityKeys = Dictionary(uniqueKeysWithValues: zip(stationIDs, merger.stations.map(\.identityKeys)))
        // Each entity's keys now; the merged rows themselves are no longer needed.
        let keys = ByKind(operators: Dictionary(uniqueKeysWithValues: zip(operatorIDs, merger.operators.map(\.keys))),
                          lines: Dictionary(uniqueKeysWithValues: zip(lineIDs, merger.lines.map(\.keys))),
                          stations: Dictionary(uniqueKeysWithValues: zip(stationIDs, merger.takeStations().map(\.keys))))

        report.newIDs[.operator_] = operatorIDs.count { !registry.contains(.operator_, $0) }
        report.newIDs[.line] = lineIDs.count { !registry.contains(.line, $0) }
        report.newIDs[.station] = stationIDs.count { !registry.contains(.station, $0) }
        // An ID the registry knows and no source gives any more is published disabled, as last seen.
        func vanished(_ kind: Registry.Kind, live: [Int]) -> [Int] {
            let live = Set(live)
            return registry.ids(kind).filter { !live.contains($0) }
        }
        let goneOperators = vanished(.operator_, live: operatorIDs).map { registry.row(operator: $0)! }
        let goneLines = vanished(.line, live: lineIDs).map { registry.row(line: $0)! }
        // A merged s_id is published no more: the apps carry its records to its survivor
        // (renumbered_stations); the registry keeps its row.
        let mergedRows = Set(ids.merged.map(\.oldID)).sorted().map { registry.row(station: $0)! }
        let goneStations = vanished(.station, live: stationIDs + ids.merged.map(\.oldID)).map { registry.row(station: $0)! }
        for var o in goneOperators { o.enabled = false; network.operators.append(o) }
        for var l in goneLines { l.enabled = false; network.lines.append(l) }
        for var s in goneStations { s.enabled = false; network.stations.append(s) }
        report.vanished[.operator_] = goneOperators.count
        report.vanished[.line] = goneLines.count
        report.vanished[.station] = goneStations.count

        network.sortByKey()
        var meta = inputs.meta
        var fixProblems = inputs.fixProblems
        do {
            let fixed = try DataFixes.apply(inputs.fixes, to: &network, published: { registry.row(station: $0) })
            (report.unneededFixes, report.notableFixes) = (fixed.unneeded, fixed.notable)
            if !fixed.applied.isEmpty { meta[StagingMeta.fixes] = FixedValue.text(fixed.applied) }
        } catch let e as StationError where e.kind == .badInput { fixProblems += e.diagnostics }
        // Every bad fix at once, in file order: those that could not be read among those that could not be applied.
        for (_, d) in fixProblems.enumerated().sorted(by: { ($0.element.location.line ?? 0, $0.offset) < ($1.element.location.line ?? 0, $1.offset) }) {
            problems.add(d.location, d.message)
        }
        checkDecisions(ids.applied, in: network, fixTargets: fixTargets, registry: registry, &problems)
        network.validate(&problems, place: "merged network")
        try problems.check()
        // A copy only when there is something to add: a network's stations were 115 MB at 100 times national.
        let remembered = mergedRows.isEmpty ? network : { var n = network; n.stations += mergedRows.map { var s = $0; s.enabled = false; return s }; return n }()
        let decided = Dictionary(ids.applied.map { ($0.stationID, $0.memory) }) { a, _ in a }, merged = identity.merged
        let (model, decisions, keepsEvidence) = (inputs.model, inputs.decisions, inputs.keepsEvidence)
        // The registry's text and the identity review read the same network and nothing of each
        // other: the text is made on the second core (a fifth of an ingest at 10 times national).
        let (registryText, (review, reviewer)) = try Pending<[UInt8]>.onThread({
            registry.keepingFile(registry.text(after: remembered, current: keys, decided: decided, merged: merged))
        }) {
            let reviewer = registered.map {
                IdentityReviewer(model: model, registry: registry, registered: $0, network: network, keys: identityKeys,
                                 ids: ids, fixTargets: Set(fixTargets.keys), decisions: decisions)
            }
            return (reviewer?.review(), keepsEvidence ? reviewer : nil)
        }
        // A review that names nothing is not kept: the staging file is the same whether or not a
        // version was published before it (every s_id kept says nothing the plan must show).
        identity.review = review?.nonEmpty
        if !identity.isEmpty { meta[StagingMeta.identity] = identity.text }
        return IngestOutcome(staging: Staging(network: network, meta: meta), report: report, registryText: registryText,
                             stationOrigins: stationOrigins, fixes: inputs.fixes, reviewer: reviewer, keptEvidence: keepsEvidence)
    }

    /// The decisions of raw/identity.csv this run applied, held against the network as the
    /// fixes leave it: a `same` s_id names, live, the station its expect describes; a `new`
    /// or `merge` one is retired and no fix changes it. Each that does not is an error at its
    /// line, unless a published version applied it (the registry remembers: history).
    static func checkDecisions(_ decisions: [IdentityDecision], in network: RailNetwork, fixTargets: [Int: SourceLocation], registry: Registry,
                               _ problems: inout DiagnosticCollector) {
        for d in decisions {
            let at = SourceLocation(file: d.location.file, line: d.location.line, field: "expect")
            let s = network.stations.first { $0.id == d.stationID }
            switch d.kind {
            case .same:
                guard let s, registry.decision(station: d.stationID) != d.memory else { continue }
                if !s.enabled || !d.expect.isMet(name: s.name, operatorID: s.operatorID, pref: s.pref, enabled: true) {
                    problems.add(at, "s_id \(s.id) names \(shown(s.name)) (o_id \(s.operatorID)\(s.enabled ? "" : ", disabled")) in this run, not \(d.expect) "
                                 + "as decided: no station the evidence points at is that; correct the decision, or remove it")
                }
            case .new, .merge:
                if let fix = fixTargets[d.stationID] {
                    problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "decision"),
                                 "s_id \(d.stationID) retires, and \(fix.file):\(fix.line ?? 0) changes it: remove that fix, or decide same")
                } else if let s, s.enabled {
                    problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "decision"),
                                 "s_id \(s.id) is to retire, and a fix enables it: remove the fix, or the decision")
                }
            }
        }
    }

    static func relativePath(_ path: String, in folder: String) -> String {
        let base = SourcesConfig.lexicallyNormalized(folder)
        let p = SourcesConfig.lexicallyNormalized(path)
        return p.hasPrefix(base + "/") ? String(p.dropFirst(base.count + 1)) : p
    }

    static func label(_ options: IngestOptions, _ path: String) -> String { options.label(for: path) }

    /// A station whose sources give no prefecture takes the nearest one's that
    /// has one, within 20 km (N02 carries no prefecture).
    static func fillPrefectures(_ stations: [MergedStation]) -> [Int?] {
        let known = stations.indices.filter { stations[$0].pref != nil }
        if known.count == stations.count { return stations.map(\.pref) }
        // Known stations in 0.2-degree cells (over 20 km), so each search looks at the nine around it.
        let grid = PointGrid(known.map { (stations[$0].lat, stations[$0].lng) }, cellSize: 200_000)
        return stations.map { s in
            if let p = s.pref { return p }
            let c = grid.cell(lat: s.lat, lng: s.lng)
            var best: (index: Int, metres: Double)?
            for dy in -1...1 {
                for dx in -1...1 {
                    for j in grid.points(row: c.row + dy, column: c.column + dx).lazy.map({ known[Int($0)] }) {
                        let d = MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: stations[j].lat, lng2: stations[j].lng)
                        if d <= 20_000, best == nil || d < best!.metres || (d == best!.metres && j < best!.index) { best = (j, d) }
                    }
                }
            }
            return best.flatMap { stations[$0.index].pref }
        }
    }
}
