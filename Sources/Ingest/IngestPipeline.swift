import FoundationEssentials
import Glibc
import StationModel

// The Ingest stage end to end: read every declared source, merge them in
// precedence order, give every entity its stable ID from the registry,
// re-publish vanished ones disabled, apply the maintainers' fixes, validate the
// whole, and hand over a staging file. Nothing is written unless all of it
// succeeds.

public struct IngestReport: Sendable {
    public var disagreements: [Disagreement] = []
    public var warnings: [String] = []
    public var newIDs: [Registry.Kind: Int] = [:]
    public var vanished: [Registry.Kind: Int] = [:]
    public var sources: [String] = []
}

public struct IngestOutcome: Sendable {
    public var staging: Staging
    public var report: IngestReport
    /// The registry after this run, as the text of its file (see NextRegistry).
    let nextRegistry: NextRegistry

    /// The registry after this run (made from its text on each access).
    public var registry: Registry { try! Registry.parse(nextRegistry.text()) }
    /// Whether the registry file read already holds `registry`, so it is not rewritten.
    public var registryUnchanged: Bool { nextRegistry.fileUnchanged() }
}

/// The registry after a run as its file's text, made in two parts: the header,
/// operators, lines and the first three quarters of the stations on the other
/// core while the staging file is written, the rest on the thread that
/// publishes, after it.
final class NextRegistry: @unchecked Sendable {
    private let head: Background<[UInt8]>
    private let makeTail: @Sendable () -> [UInt8]
    /// The registry file as read, to compare with.
    private let read: CSVFields?

    init(read: CSVFields?, head: @escaping () -> [UInt8], tail: @escaping @Sendable () -> [UInt8]) {
        self.read = read
        self.head = Background(head)
        makeTail = tail
    }

    /// Both parts; the second is made on the calling thread, on each call.
    func parts() -> (head: [UInt8], tail: [UInt8]) {
        let tail = makeTail()
        return (try! head.value(), tail)
    }

    func text() -> [UInt8] { let p = parts(); return p.head + p.tail }

    func fileUnchanged() -> Bool { read?.fileHolds(parts()) ?? false }

    /// Writes the registry unless the file read already holds it (so make sees no change).
    func write(to path: String) throws {
        let p = parts()
        if let read, read.fileHolds(p), FileManager.default.fileExists(atPath: path) { return }
        try AtomicFile.write(parts: [p.head, p.tail], to: path)
    }
}

public struct IngestOptions: Sendable {
    /// The raw folder.
    public var rawFolder: String
    /// How raw/ is named in messages (defaults to the path as given).
    public var rawLabel: String
    public var registryPath: String
    public var fixesPath: String
    public var problemLimit: Int
    /// The largest registry read beside the sources (see `IngestPipeline.run`);
    /// national is about 1 MB. Above this, memory, not time, is the limit: read after
    /// the merge, the sources and the registry are never at their largest at once.
    var registryReadBesideSourcesUpTo = 32 << 20

    public init(rawFolder: String, rawLabel: String? = nil, registryPath: String? = nil, fixesPath: String? = nil, problemLimit: Int = 100) {
        self.rawFolder = rawFolder
        self.rawLabel = rawLabel ?? rawFolder
        self.registryPath = registryPath ?? Path.appending(rawFolder, Registry.fileName)
        self.fixesPath = fixesPath ?? Path.appending(rawFolder, DataFixes.fileName)
        self.problemLimit = problemLimit
    }
}

typealias RegisteredKeysByKind = (operators: RegisteredKeys, lines: RegisteredKeys, stations: RegisteredKeys)

public enum IngestPipeline {
    /// Reads one declared source with its reader.
    public static func read(_ source: SourceDeclaration, options: IngestOptions) throws -> SourceNetwork {
        let (path, label) = paths(of: source, options)
        switch source.kind {
        case .native: return try NativeCSVReader.read(folder: path, label: label)
        case .ekidata: return try EkidataReader.read(folder: path, label: label)
        case .n02: return try N02Reader.read(path: path, label: label)
        }
    }

    /// Where a declared source is, and how messages name it.
    static func paths(of source: SourceDeclaration, _ options: IngestOptions) -> (path: String, label: String) {
        (Path.appending(options.rawFolder, source.path), source.path == "." ? options.rawLabel : Path.appending(options.rawLabel, source.path))
    }

    public static func run(_ options: IngestOptions) throws -> IngestOutcome {
        let config = try SourcesConfig.load(rawFolder: options.rawFolder)
        // The registry and the sources' digests depend only on the files. A registry
        // of national size (about 1 MB) is read on the other core while the sources
        // are read and merged, together about a third of the stage; a problem in the
        // sources is still reported before one in the registry. A large registry is
        // read after the merge instead, on the other core while the IDs and the network
        // are made: read beside the sources, both are at their largest at once, which
        // at 100 times national passed 1 GiB.
        // The digests take a buffer of memory, so they are made beside the sources at any size.
        let digests = Background { () throws -> [String: String] in
            var meta: [String: String] = [:]
            let files = config.files(rawFolder: options.rawFolder) + [options.fixesPath]
            for f in files where FileManager.default.fileExists(atPath: f) {
                // Keyed relative to raw/, so the same sources give the same bundle wherever raw/ lives.
                meta["source:" + relativePath(f, in: options.rawFolder)] = try SHA256.hex(fileAt: f)
            }
            phase("source digests made")
            return meta
        }
        let loadRegistry = { (early: Bool) throws -> (Registry, RegisteredKeysByKind) in
            let registry = try Registry.load(path: options.registryPath)
            phase("registry read")
            let keys = RegisteredKeys.all(registry, now: early)
            phase("registry keys made")
            return (registry, keys)
        }
        let registryBytes = AtomicFile.size(of: options.registryPath) ?? 0
        let early = registryBytes <= options.registryReadBesideSourcesUpTo ? Background { try loadRegistry(true) } : nil
        // Awaited on every way out, so no work of this call outlives it.
        defer { _ = try? early?.value(); _ = try? digests.value() }
        var problems = DiagnosticCollector(limit: options.problemLimit)
        // Each source is merged as soon as it is read and then let go, so a
        // national run never holds every source's rows at once.
        var merger = NetworkMerger()
        var labels: [String] = []
        let progress = Progress("ingest: reading sources", total: config.sources.count)
        for (i, declaration) in config.sources.enumerated() {
            do {
                if config.sources.count == 1, declaration.kind == .native {
                    let (path, label) = paths(of: declaration, options)
                    merger = try NativeCSVReader.readAsOnlySource(folder: path, label: label)
                    labels.append(label)
                } else {
                    var source = try read(declaration, options: options)
                    source.sortByKey()
                    labels.append(source.label)
                    if problems.isEmpty { merger.add(source, last: i == config.sources.count - 1) }
                }
                phase("read and merged \(declaration.path)")
            } catch let e as InputError { problems.add(e) }
            progress.update(i + 1)
        }
        progress.finish()
        let fixes: [DataFix]
        do { fixes = try DataFixes.read(path: options.fixesPath, label: label(options, options.fixesPath)) } catch let e as InputError {
            problems.add(e); fixes = []
        }
        try problems.check()
        merger.dropLookups()
        phase("fixes read")
        // A large registry is read now, on the other core, while IDs are assigned:
        // a native master's fixed IDs need no registry, and the merge's memory is freed.
        let registry = early ?? Background { try loadRegistry(false) }
        defer { _ = try? registry.value() }
        let meta = try digests.value()
        return try assemble(merger: merger, labels: labels, registry: { try registry.value() }, fixes: fixes, meta: meta,
                            problemLimit: options.problemLimit)
    }

    /// Merges sources already read, assigns IDs against `registry`, applies
    /// `fixes` and validates: everything of `run` but the file reading.
    public static func assemble(sources: [SourceNetwork], registry: Registry, fixes: [DataFix] = [], meta: [String: String] = [:],
                                problemLimit: Int = 100) throws -> IngestOutcome {
        let merger = NetworkMerger()
        for (i, var s) in sources.enumerated() { s.sortByKey(); merger.add(s, last: i == sources.count - 1) }
        return try assemble(merger: merger, labels: sources.map(\.label), registry: { (registry, RegisteredKeys.all(registry)) },
                            fixes: fixes, meta: meta, problemLimit: problemLimit)
    }

    /// `loadRegistry` is called once, when first needed: after the IDs when every
    /// entity has a fixed ID (or with the first that has none).
    static func assemble(merger: NetworkMerger, labels: [String], registry loadRegistry: () throws -> (Registry, RegisteredKeysByKind),
                         fixes: [DataFix], meta: [String: String], problemLimit: Int) throws -> IngestOutcome {
        var loaded: (registry: Registry, keys: RegisteredKeysByKind)?
        func registered() throws -> (registry: Registry, keys: RegisteredKeysByKind) {
            if let loaded { return loaded }
            let made = try loadRegistry()
            phase("registry ready")
            loaded = made
            return made
        }
        var problems = DiagnosticCollector(limit: problemLimit)
        var report = IngestReport()
        report.sources = labels
        merger.dropLookups()
        // The merged stations are the biggest thing held here: taken out of the
        // merger and dropped once the network's rows are made from them.
        var mergedStations = merger.takeStations()
        let stationKeys = mergedStations.map(\.keys)

        let operatorIDs = try IDAssigner.assign(registered: { try registered().keys.operators }, merger.operators.map { ($0.keys, $0.fixedID) })
        let lineIDs = try IDAssigner.assign(registered: { try registered().keys.lines }, merger.lines.map { ($0.keys, $0.fixedID) })
        let stationIDs = try IDAssigner.assign(registered: { try registered().keys.stations }, mergedStations.map { ($0.keys, $0.fixedID) })
        phase("IDs assigned")

        var network = RailNetwork()
        for (i, o) in merger.operators.enumerated() {
            network.operators.append(Operator(id: operatorIDs[i], name: o.name, type: o.type ?? OperatorType.thirdSectorOrOther.rawValue, enabled: o.enabled ?? true))
        }
        for (i, l) in merger.lines.enumerated() {
            network.lines.append(Line(id: lineIDs[i], name: l.name, operatorID: operatorIDs[l.operatorIndex], enabled: l.enabled ?? true, type: l.type))
        }
        let prefs = fillPrefectures(mergedStations)
        network.stations.reserveCapacity(mergedStations.count)
        for (i, s) in mergedStations.enumerated() {
            guard let pref = prefs[i] else {
                problems.add(s.origin, "no prefecture: the source has none and no other source has a station within reach; add one with a fix (set,stations,...,pref,N)")
                continue
            }
            network.stations.append(Station(id: stationIDs[i], name: s.name, yomi: s.yomi ?? "", wiki: s.wiki ?? "", pref: pref,
                                            address: s.address ?? "", lat: s.lat, lng: s.lng, operatorID: operatorIDs[s.operatorIndex],
                                            enabled: s.enabled ?? true))
        }
        mergedStations = []
        network.stationLines.reserveCapacity(merger.stationLines.count)
        for x in merger.stationLines {
            network.stationLines.append(StationLine(lineID: lineIDs[x.lineIndex], stationID: stationIDs[x.stationIndex], sort: x.sort))
        }

        phase("network built")
        // The registry is first needed here (unless an entity had no fixed ID).
        let registry = try registered().registry
        report.newIDs[.operator_] = operatorIDs.count { !registry._operators.contains($0) }
        report.newIDs[.line] = lineIDs.count { !registry._lines.contains($0) }
        report.newIDs[.station] = stationIDs.count { !registry._stations.contains($0) }
        let liveOperators = IDTable(set: operatorIDs), liveLines = IDTable(set: lineIDs), liveStations = IDTable(set: stationIDs)
        func vanished<Row: RegistryRow>(_ table: RegistryTable<Row>, live: IDTable) -> [Row] {
            table.ids.filter { !live.contains($0) }.sorted().map { table.row(of: $0, in: registry.file)! }
        }
        let goneOperators = vanished(registry._operators, live: liveOperators), goneLines = vanished(registry._lines, live: liveLines)
        let goneStations = vanished(registry._stations, live: liveStations)
        for var o in goneOperators { o.enabled = false; network.operators.append(o) }
        for var l in goneLines { l.enabled = false; network.lines.append(l) }
        network.stations.reserveCapacity(network.stations.count + goneStations.count)
        for var s in goneStations { s.enabled = false; network.stations.append(s) }
        report.vanished[.operator_] = goneOperators.count
        report.vanished[.line] = goneLines.count
        report.vanished[.station] = goneStations.count

        phase("vanished IDs added")
        network.sortByKey()
        phase("network sorted")
        do { try DataFixes.apply(fixes, to: &network) } catch let e as InputError { problems.add(e) }
        validate(network, &problems)
        try problems.check()
        phase("fixes applied, network checked")

        report.disagreements = merger.disagreements.map { (idx, d) in var d = d; d.stationID = stationIDs[idx]; return d }
            .sorted { ($0.stationID, $0.kind.rawValue, $0.other) < ($1.stationID, $1.kind.rawValue, $1.other) }

        // The registry after this run: every key we saw, the rows as published.
        // An ID keeps its old keys too, unless another entity now holds one.
        let operatorKeys = merger.operators.map(\.keys), lineKeys = merger.lines.map(\.keys)
        let stationEntities = EntityKeys(ids: stationIDs, currentKeys: stationKeys)
        // The other core also writes the operators and lines and starts first; this one
        // writes the staging file and flushes it to disk before its part.
        let split = network.stations.count * 3 / 4
        let nextRegistry = NextRegistry(read: registry.file?.fields, head: { [network] in
            var text = RegistryText(capacity: registry.file.map { $0.fields.fileByteCount * 3 / 4 + 4096 } ?? 1 << 20)
            appendEntries(network.operators[...], old: registry._operators, EntityKeys(ids: operatorIDs, currentKeys: operatorKeys), to: &text)
            appendEntries(network.lines[...], old: registry._lines, EntityKeys(ids: lineIDs, currentKeys: lineKeys), to: &text)
            appendEntries(network.stations[..<split], old: registry._stations, stationEntities, to: &text)
            phase("next registry's first part made")
            return text.finish()
        }, tail: { [network] in
            var text = RegistryText(capacity: registry.file.map { $0.fields.fileByteCount / 4 + 4096 } ?? 1 << 20, header: false)
            appendEntries(network.stations[split...], old: registry._stations, stationEntities, to: &text)
            return text.finish()
        })
        return IngestOutcome(staging: Staging(network: network, meta: meta), report: report, nextRegistry: nextRegistry)
    }

    /// Writes the registry (only if changed), then the staging file: both
    /// atomically, the staging file last so that it is the newer one for make.
    public static func publish(_ outcome: IngestOutcome, stagingPath: String, registryPath: String) throws {
        // The staging file is written while the registry is worked out on the other
        // core, and renamed into place only after the registry is written.
        try StagingFile.write(outcome.staging, to: stagingPath) {
            phase("staging file written and flushed")
            try outcome.nextRegistry.write(to: registryPath)
            phase("registry compared (written if changed)")
        }
    }

    /// Appends each row's registry line: its ID's keys now, and the keys it had
    /// before unless another entity now holds one. `rows` are in ID order.
    static func appendEntries<Row: RegistryRow>(_ rows: ArraySlice<Row>, old: RegistryTable<Row>, _ entities: EntityKeys,
                                                to text: inout RegistryText) {
        var owner: [String: Int]?   // built only if some ID's keys changed
        precondition(zip(rows, rows.dropFirst()).allSatisfy { $0.registryID < $1.registryID }, "registry rows must be in ID order, each ID once")
        for row in rows {
            let current = entities.keys(of: row.registryID)
            var keys = current
            if !old.keys(of: row.registryID, are: current), let previous = old.keys(of: row.registryID), !previous.isEmpty {
                if owner == nil { owner = entities.owners() }
                keys = Array(Set(current + previous.filter { owner![$0].map { $0 == row.registryID } ?? true })).sorted()
            }
            row.appendRegistryLine(to: &text, keys: keys)
        }
    }

    static func relativePath(_ path: String, in folder: String) -> String {
        let base = SourcesConfig.lexicallyNormalized(folder)
        let p = SourcesConfig.lexicallyNormalized(path)
        return p.hasPrefix(base + "/") ? String(p.dropFirst(base.count + 1)) : p
    }

    static func label(_ options: IngestOptions, _ path: String) -> String {
        let raw = SourcesConfig.lexicallyNormalized(options.rawFolder)
        let p = SourcesConfig.lexicallyNormalized(path)
        if p.hasPrefix(raw + "/") { return Path.appending(options.rawLabel, String(p.dropFirst(raw.count + 1))) }
        return path
    }

    /// A station whose sources give no prefecture takes the nearest one's that
    /// has one, within 20 km (N02 carries no prefecture).
    static func fillPrefectures(_ stations: [MergedStation]) -> [Int?] {
        let known = stations.indices.filter { stations[$0].pref != nil }
        if known.count == stations.count { return stations.map(\.pref) }
        // Bucket known stations by a 0.2-degree grid so the search stays linear.
        var grid: [Int: [Int]] = [:]
        func cell(_ lat: Int, _ lng: Int) -> (Int, Int) { (lat / 200_000, lng / 200_000) }
        for i in known { let c = cell(stations[i].lat, stations[i].lng); grid[c.0 << 20 | c.1, default: []].append(i) }
        return stations.map { s in
            if let p = s.pref { return p }
            let c = cell(s.lat, s.lng)
            var best: (Int, Double)?
            for dy in -1...1 { for dx in -1...1 {
                for j in grid[(c.0 + dy) << 20 | (c.1 + dx)] ?? [] {
                    let d = MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: stations[j].lat, lng2: stations[j].lng)
                    if d <= 20_000, best == nil || d < best!.1 || (d == best!.1 && j < best!.0) { best = (j, d) }
                }
            } }
            return best.flatMap { stations[$0.0].pref }
        }
    }

    /// Checks the merged, fixed network as a whole: references, ranges, Japan.
    static func validate(_ network: RailNetwork, _ problems: inout DiagnosticCollector) {
        let operators = IDTable(set: network.operators.map(\.id))
        let lines = IDTable(set: network.lines.map(\.id))
        let stations = IDTable(set: network.stations.map(\.id))
        let here = SourceLocation(file: "merged network")
        // IDs are unique by construction (sources, registry, and fixes cannot set one); checked
        // here because nothing downstream of the staging file could say where a duplicate came from.
        for (what, unique, all) in [("o_id", operators.count, network.operators.count), ("l_id", lines.count, network.lines.count),
                                    ("s_id", stations.count, network.stations.count)] where unique != all {
            problems.add(here, "\(all - unique) \(what) values used twice; expected each once")
        }
        for l in network.lines where !operators.contains(l.operatorID) {
            problems.add(here, "line \(l.id) \(l.name) names operator \(l.operatorID), which does not exist")
        }
        for s in network.stations {
            if !operators.contains(s.operatorID) { problems.add(here, "station \(s.id) \(s.name) names operator \(s.operatorID), which does not exist") }
            if !(1...47).contains(s.pref) { problems.add(here, "station \(s.id) \(s.name): pref expected 1..47, found \(s.pref)") }
            if !MicroDegrees.inJapan(lat: s.lat, lng: s.lng) {
                problems.add(here, "station \(s.id) \(s.name): coordinates \(MicroDegrees.format(s.lat)),\(MicroDegrees.format(s.lng)) lie outside Japan")
            }
        }
        var pairs = StationLinePairs(stations: network.stations.count)
        for x in network.stationLines {
            if !lines.contains(x.lineID) || !stations.contains(x.stationID) {
                problems.add(here, "stations_lines row (l_id \(x.lineID), s_id \(x.stationID)) names a missing line or station")
            }
            if pairs.insertIfAbsent(line: x.lineID, station: x.stationID, value: 0) != nil {
                problems.add(here, "stations_lines row (l_id \(x.lineID), s_id \(x.stationID)) appears twice; expected each station once per line")
            }
        }
    }
}
