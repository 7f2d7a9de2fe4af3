
// The ID registry (raw/registry.csv) is what keeps s_id, l_id and o_id
// meaning the same thing across runs: clients key users' records by s_id.
// It maps every external key a source ever used to our ID, and keeps the last
// published row of each ID so that an entity that vanishes from the sources
// can still be published, disabled, under its old ID. IDs are never reused:
// a new entity gets one above every ID the registry has ever held.
//
// What an ID means is more than its keys, which a source may swap or hand on: each
// station's row also says whether it is a Shinkansen station and which lines it
// served, the evidence ingest links the next run's stations by (IdentityLinker).
//
// A run needs every key but only the rows of vanished IDs, so the registry
// stays the table it was read as and a row becomes a value only when asked
// for (at 100 times national, a million stations as values passed 1 GiB).

package struct Registry: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable { case operator_ = "operator", line, station }

    package static let fileName = "registry.csv"
    package static let columns = ["kind", "id", "keys", "name", "o_id", "type", "enabled", "yomi", "wiki", "pref", "address", "lat", "lng",
                                 "shinkansen", "lines", "decided", "merged"]
    /// A registry written before a station's row said whether it is a Shinkansen station,
    /// which lines it served, which decision of raw/identity.csv a version applied to it and
    /// which stations it merged into lacks the last four: it is read (its keys say which
    /// stations are Shinkansen ones) and completed by the next run.
    static let requiredColumns = Array(columns.prefix(13))
    /// Keys are joined with this; sources' keys never contain it.
    static let keySeparator = "|"

    /// The file as read; nil for a registry that has no file yet.
    private let table: CSVTable?
    private let c: Columns?
    /// Each ID's record in `table`, by kind.
    private let records: ByKind<[Int: Int]>

    package init() { table = nil; c = nil; records = ByKind([:]) }

    private init(table: CSVTable, records: ByKind<[Int: Int]>) { self.table = table; c = Columns(table); self.records = records }

    package var isEmpty: Bool { Kind.allCases.allSatisfy { records[$0].isEmpty } }

    /// Room for this registry's file and a sixteenth more.
    private var grownSize: Int { table.map { $0.fileBytes.count + $0.fileBytes.count / 16 } ?? 0 }

    /// The file exactly as read (nil for a registry that has no file yet).
    package var fileBytes: [UInt8]? { table.map { Array($0.fileBytes) } }

    package static func load(path: String) throws -> Registry {
        guard Files.exists(path) else { return Registry() }
        return try parse(CSVReader.read(path: path))
    }

    /// The rows of `ours` (raw/registry.csv) that differ from theirs in `theirs`, the registry
    /// `version` was published with (a row is its kind and id), each at its line and first
    /// differing column, with every column that differs; at most `limit`, then how many more.
    package static func differences(_ ours: CSVTable, from theirs: CSVTable, version: Int, limit: Int = 10) -> [Diagnostic] {
        func key(_ t: CSVTable, _ r: Int) -> String { t.string(r, "kind") + " " + t.string(r, "id") }
        var published: [String: Int] = [:]
        for r in theirs.records { published[key(theirs, r)] = r }
        let out: [Diagnostic] = ours.records.compactMap { r in
            guard let p = published[key(ours, r)], let first = ours.header.first(where: { ours.string(r, $0) != theirs.string(p, $0) }) else { return nil }
            return Diagnostic(ours.location(r, field: first), "\(key(ours, r)): " + ours.header.filter { ours.string(r, $0) != theirs.string(p, $0) }.map {
                "\($0) '\(shown(ours.string(r, $0)))', version \(version)'s registry has '\(shown(theirs.string(p, $0)))'"
            }.joined(separator: "; "))
        }
        return out.count <= limit ? out : Array(out.prefix(limit)) + [Diagnostic(SourceLocation(file: ours.file), "and \(out.count - limit) more rows that differ")]
    }

    /// The registry in a CSV table (the file, or the text `text()` made). Every row
    /// is checked here, so asking for one later cannot fail.
    package static func parse(_ t: CSVTable) throws -> Registry {
        try t.require(requiredColumns)
        var problems = DiagnosticCollector()
        var records = ByKind<[Int: Int]>([:])
        records.stations.reserveCapacity(t.count)
        let c = Columns(t)
        for i in t.records {
            guard let id = t.int(i, c.id, &problems), t.bool(i, c.enabled, default: true, &problems) != nil else { continue }
            let kindText = t.string(i, c.kind)
            guard let kind = Kind(rawValue: kindText) else {
                problems.add(t.location(i, c.kind), "expected operator, line or station, found '\(shown(kindText))'")
                continue
            }
            // The first bad number of a row is the one reported.
            let numbers: [CSVColumn] = switch kind {
            case .operator_: [c.type]
            case .line: [c.operatorID]
            case .station: [c.operatorID, c.pref, c.lat, c.lng]
            }
            guard numbers.allSatisfy({ t.int(i, $0, &problems) != nil }),
                  kind != .line || t.optionalInt(i, c.type, &problems) != nil else { continue }
            if kind == .station {
                guard t.trimmedBytes(i, c.shinkansen).isEmpty || t.bool(i, c.shinkansen, default: false, &problems) != nil else { continue }
                let lists = [(c.lines, "l_ids"), (c.merged, "s_ids")]
                let bad = lists.first { Self.lineIDs(t.bytes(i, $0.0)) == nil }
                if let (column, what) = bad {
                    problems.add(t.location(i, column), "expected \(what) separated by |, found '\(shown(t.string(i, column)))'")
                    continue
                }
            }
            if records.modify(kind, { $0.updateValue(i, forKey: id) }) != nil { problems.add(t.location(i, c.id), "duplicate \(kind.rawValue) id \(id)") }
        }
        try problems.check()
        return Registry(table: t, records: records)
    }

    /// The registry's columns, looked up once.
    private struct Columns {
        let kind, id, keys, name, operatorID, type, enabled, yomi, wiki, pref, address, lat, lng, shinkansen, lines, decided, merged: CSVColumn
        init(_ t: CSVTable) {
            kind = t.column("kind"); id = t.column("id"); keys = t.column("keys"); name = t.column("name"); operatorID = t.column("o_id")
            type = t.column("type"); enabled = t.column("enabled"); yomi = t.column("yomi"); wiki = t.column("wiki")
            pref = t.column("pref"); address = t.column("address"); lat = t.column("lat"); lng = t.column("lng")
            shinkansen = t.column("shinkansen"); lines = t.column("lines"); decided = t.column("decided"); merged = t.column("merged")
        }
    }

    /// "12|40|41" as l_ids; nil when a part is not a whole number.
    static func lineIDs(_ field: ArraySlice<UInt8>) -> [Int]? {
        var out: [Int] = []
        for part in field.split(separator: UInt8(ascii: "|")) {
            guard let id = Int(String(decoding: part, as: UTF8.self)) else { return nil }
            out.append(id)
        }
        return out
    }

    /// Every registered ID of a kind, in order.
    package func ids(_ kind: Kind) -> [Int] { records[kind].keys.sorted() }

    package func contains(_ kind: Kind, _ id: Int) -> Bool { records[kind][id] != nil }

    package func contains(anyOf kind: Kind) -> Bool { !records[kind].isEmpty }

    /// The keys an ID is registered under (empty ones in a hand-edited field dropped).
    package func keys(_ kind: Kind, _ id: Int) -> [String]? { keysField(kind, id).map(Self.keys) }

    /// A keys field's keys (empty ones dropped).
    private static func keys(_ field: ArraySlice<UInt8>) -> [String] {
        field.split(separator: UInt8(ascii: "|")).map { String(decoding: $0, as: UTF8.self) }
    }

    private func keysField(_ kind: Kind, _ id: Int) -> ArraySlice<UInt8>? {
        guard let table, let c, let r = records[kind][id] else { return nil }
        return table.bytes(r, c.keys)
    }

    // The rows as last published. `parse` checked every field these read, so the
    // problems collected here are always none.

    package func row(operator id: Int) -> Operator? {
        guard let table, let c, let r = records.operators[id] else { return nil }
        var unused = DiagnosticCollector()
        return Operator(id: id, name: table.string(r, c.name), type: table.int(r, c.type, &unused) ?? 0,
                        enabled: table.bool(r, c.enabled, default: true, &unused) ?? true)
    }

    package func row(line id: Int) -> Line? {
        guard let table, let c, let r = records.lines[id] else { return nil }
        var unused = DiagnosticCollector()
        return Line(id: id, name: table.string(r, c.name), operatorID: table.int(r, c.operatorID, &unused) ?? 0,
                    enabled: table.bool(r, c.enabled, default: true, &unused) ?? true, type: table.optionalInt(r, c.type, &unused) ?? nil)
    }

    package func row(station id: Int) -> Station? {
        guard let table, let c, let r = records.stations[id] else { return nil }
        var unused = DiagnosticCollector()
        func int(_ column: CSVColumn) -> Int { table.int(r, column, &unused) ?? 0 }
        return Station(id: id, name: table.string(r, c.name), yomi: table.string(r, c.yomi), wiki: table.string(r, c.wiki), pref: int(c.pref),
                       address: table.string(r, c.address), lat: int(c.lat), lng: int(c.lng), operatorID: int(c.operatorID),
                       enabled: table.bool(r, c.enabled, default: true, &unused) ?? true)
    }

    /// Whether the registered station is a Shinkansen station: its row says so, or, in a
    /// registry written before rows said, its keys do (ShinkansenKey).
    package func isShinkansen(station id: Int) -> Bool {
        guard let table, let c, let r = records.stations[id] else { return false }
        return Self.isShinkansen(table, c, r, keys: Self.keys(table.bytes(r, c.keys)))
    }

    private static func isShinkansen(_ table: CSVTable, _ c: Columns, _ r: Int, keys: [String]) -> Bool {
        if table.trimmedBytes(r, c.shinkansen).isEmpty { return ShinkansenKey.marks(keys) }
        var unused = DiagnosticCollector()
        return table.bool(r, c.shinkansen, default: false, &unused) ?? false
    }

    /// The registered stations `ids` as the identity evidence reads them, each of its lines as
    /// `lineIndex` numbers its l_id (one it lacks is left out): each row looked up once, and only
    /// the fields the evidence weighs made into strings.
    package func identityStations(_ ids: [Int], lineIndex: [Int: Int]) -> [IdentityStation] {
        guard let table, let c else { return [] }
        var unused = DiagnosticCollector()
        return ids.map { id in
            let r = records.stations[id]!
            let keys = Self.keys(table.bytes(r, c.keys))
            return IdentityStation(name: table.string(r, c.name), yomi: table.string(r, c.yomi), lat: table.int(r, c.lat, &unused) ?? 0,
                                   lng: table.int(r, c.lng, &unused) ?? 0, operatorID: table.int(r, c.operatorID, &unused) ?? 0,
                                   shinkansen: Self.isShinkansen(table, c, r, keys: keys),
                                   enabled: table.bool(r, c.enabled, default: true, &unused) ?? true, keys: keys,
                                   lines: (Self.lineIDs(table.bytes(r, c.lines)) ?? []).compactMap { lineIndex[$0] })
        }
    }

    /// The lines the station served when it was last published (none known for a
    /// registry written before rows said).
    package func lines(station id: Int) -> [Int] {
        guard let table, let c, let r = records.stations[id] else { return [] }
        return Self.lineIDs(table.bytes(r, c.lines)) ?? []
    }

    /// The s_ids a published version merged the station into (renumbered_stations), if any:
    /// it is published no more, and every version lists the pairs.
    package func merged(station id: Int) -> [Int] {
        guard let table, let c, let r = records.stations[id] else { return [] }
        return Self.lineIDs(table.bytes(r, c.merged)) ?? []
    }

    /// The decision of raw/identity.csv a published version applied to the station, as
    /// IdentityDecision.memory writes it ("same station=田町"); nil for none.
    package func decision(station id: Int) -> String? {
        guard let table, let c, let r = records.stations[id] else { return nil }
        let text = table.string(r, c.decided)
        return text.isEmpty ? nil : text
    }

    /// Each registered key's ID (a key two IDs held goes to the smaller) and the highest ID ever given.
    package func keyToID(_ kind: Kind) -> (ids: [String: Int], maxID: Int) {
        var ids: [String: Int] = [:]
        for id in self.ids(kind) {
            for key in keys(kind, id)! where ids[key] == nil { ids[key] = id }
        }
        return (ids, records[kind].keys.max() ?? 0)
    }

    /// The registry as its file: the header, then operators, lines and stations, each by ID.
    package func text() -> [UInt8] { text(while: { _ in true }) }

    /// The file, rendered row by row while `keepGoing` says so of the text so far.
    func text(while keepGoing: ([UInt8]) -> Bool) -> [UInt8] {
        var network = RailNetwork()
        network.operators = ids(.operator_).map { row(operator: $0)! }
        network.lines = ids(.line).map { row(line: $0)! }
        network.stations = ids(.station).map { row(station: $0)! }
        return Self.text(of: network, reserving: grownSize, keys: { kind, id in (keys(kind, id) ?? []).joined(separator: Self.keySeparator) },
                         facts: { (isShinkansen(station: $0), lines(station: $0), decision(station: $0), merged(station: $0)) }, while: keepGoing)
    }

    /// What a station's row says of it besides its bundle row: a Shinkansen station or not,
    /// the lines it serves, the decision a version applied to it, and the stations it merged into.
    package typealias StationFacts = (shinkansen: Bool, lines: [Int], decided: String?, merged: [Int])

    /// The file for `network`'s operators, lines and stations (each in ID order) under
    /// the keys field `joined` gives. Text fields are quoted when they must be, so every
    /// value reads back as it was.
    static func text(of network: RailNetwork, reserving capacity: Int = 0, keys joined: (Kind, Int) -> String,
                     facts: (Int) -> StationFacts, while keepGoing: ([UInt8]) -> Bool = { _ in true }) -> [UInt8] {
        var out: [UInt8] = []
        // Grown by appends alone, the text would pass through twice its size (at 100 times
        // national, 400 MB for a 145 MB file): a run's registry is the last one and a little more.
        out.reserveCapacity(capacity)
        CSVWriter.append(columns, to: &out)
        func flag(_ v: Bool) -> String { v ? "1" : "0" }
        for o in network.operators {
            CSVWriter.append(["operator", String(o.id), joined(.operator_, o.id), o.name, "", String(o.type), flag(o.enabled), "", "", "", "", "", "", "", "", "", ""],
                             to: &out)
            if !keepGoing(out) { return out }
        }
        for l in network.lines {
            CSVWriter.append(["line", String(l.id), joined(.line, l.id), l.name, String(l.operatorID), l.type.map(String.init) ?? "",
                              flag(l.enabled), "", "", "", "", "", "", "", "", "", ""], to: &out)
            if !keepGoing(out) { return out }
        }
        for s in network.stations {
            let f = facts(s.id)
            CSVWriter.append(["station", String(s.id), joined(.station, s.id), s.name, String(s.operatorID), "", flag(s.enabled), s.yomi, s.wiki,
                              String(s.pref), s.address, String(s.lat), String(s.lng), flag(f.shinkansen),
                              f.lines.map(String.init).joined(separator: Self.keySeparator), f.decided ?? "",
                              f.merged.map(String.init).joined(separator: Self.keySeparator)], to: &out)
            if !keepGoing(out) { return out }
        }
        return out
    }

    /// The registry after a run that published `network`: each ID under its keys now
    /// (`current`, by kind), plus the keys it had before unless another entity now holds one;
    /// each station a Shinkansen one or not and on the lines it is on in `network`, or, on
    /// none there (gone from the sources), as it was; and the decisions the run applied
    /// (`decided`, by s_id) beside those versions applied before.
    package func text(after network: RailNetwork, current: ByKind<[Int: [String]]>, decided: [Int: String] = [:], merged: [Int: [Int]] = [:]) -> [UInt8] {
        let served = LinesOfStations(network), shinkansen = network.shinkansenStations()
        var owners = ByKind<[String: Int]?>(nil)
        func owner(_ kind: Kind, _ key: String) -> Int? {
            if owners[kind] == nil {
                var owner: [String: Int] = [:]
                for (id, keys) in current[kind] { for k in keys { owner[k] = min(owner[k] ?? id, id) } }
                owners.modify(kind) { $0 = owner }
            }
            return owners[kind]![key]
        }
        func facts(_ id: Int) -> StationFacts {
            let decision = decided[id] ?? decision(station: id)
            let into = merged[id] ?? self.merged(station: id)
            guard let lines = served.lines(of: id) else { return (isShinkansen(station: id), self.lines(station: id), decision, into) }
            return (shinkansen.contains(id), lines, decision, into)
        }
        func joined(_ kind: Kind, _ id: Int) -> String {
            let now = (current[kind][id] ?? []).sorted().joined(separator: Self.keySeparator)
            guard let field = keysField(kind, id), !field.elementsEqual(now.utf8) else { return now }
            let before = keys(kind, id)!, nowKeys = now.isEmpty ? [] : now.split(separator: "|").map(String.init)
            guard !before.isEmpty, before != nowKeys else { return now }
            return Set(nowKeys + before.filter { owner(kind, $0).map { $0 == id } ?? true }).sorted().joined(separator: Self.keySeparator)
        }
        return Self.text(of: network, reserving: grownSize, keys: joined, facts: facts)
    }

    /// The keys `earlier` gave an ID that this registry still has and no longer gives them to,
    /// each with that ID's name then: the registry only ever grows, so each is a line edited by
    /// hand (a bad merge), and the station that had the key would get a new s_id. A key this
    /// registry gives another ID is not lost: ingest handed it on with the code it stands for
    /// (a source's code given to another station, IDAssigner), and the ID that had it kept its
    /// own. An ID gone altogether is a lost line (`lost(since:)`, PublishedIDs).
    package func lostKeys(since earlier: Registry) -> [(kind: Kind, id: Int, key: String, name: String)] {
        var lost: [(kind: Kind, id: Int, key: String, name: String)] = []
        for kind in Kind.allCases {
            var held: Set<String>?
            for id in earlier.ids(kind) {
                guard let now = keys(kind, id).map(Set.init) else { continue }
                for key in earlier.keys(kind, id) ?? [] where !now.contains(key) {
                    if held == nil { held = Set(ids(kind).flatMap { keys(kind, $0) ?? [] }) }
                    if !held!.contains(key) { lost.append((kind, id, key, earlier.name(kind, id))) }
                }
            }
        }
        return lost
    }

    /// What this registry lost of `published`, the registry version `version` was published
    /// with (kept at `publishedPath`): each ID whose line is gone (its entity would come back
    /// under a new ID) and each key lost (`lostKeys`). Named at `label`, this registry, with
    /// where to take the line back from.
    package func lost(since published: Registry, version: Int, publishedPath: String, label: String) -> [Diagnostic] {
        let restore = Self.restoreAdvice(label: label, version: version, publishedPath: publishedPath)
        let lines = Kind.allCases.flatMap { kind in
            published.ids(kind).filter { !contains(kind, $0) }.map {
                Self.lostLine(kind, $0, name: published.name(kind, $0), version: version, label: label, restore: restore)
            }
        }
        return lines + lostKeys(since: published).map {
            Self.lostKey($0.kind, $0.id, key: $0.key, name: $0.name, version: version, label: label, restore: restore)
        }
    }

    /// How to undo a lost line or key: from the registry the version was published with,
    /// when the dist keeps it (`publishedPath`), else from version control.
    package static func restoreAdvice(label: String, version: Int, publishedPath: String?) -> String {
        guard let publishedPath else {
            return "restore it from version control (e.g. `git checkout \(label)`), or declare a truly changed s_id in renumbered.csv"
        }
        return "take the line back from \(publishedPath), the registry version \(version) was published with (if that version is the last change, "
            + "copy it over \(label)), or declare a truly changed s_id in renumbered.csv"
    }

    /// An ID of version `version` that is gone: the registry lost its line.
    package static func lostLine(_ kind: Kind, _ id: Int, name: String, version: Int, label: String, restore: String) -> Diagnostic {
        let column = switch kind { case .operator_: "o_id"; case .line: "l_id"; case .station: "s_id" }
        return Diagnostic(SourceLocation(file: label, field: "\(column) \(id)"),
                          "\(kind.rawValue) \(id) (\(shown(name))), published in version \(version), is missing from this build: the registry lost its line; \(restore)")
    }

    /// A key an ID had in version `version` and has no longer.
    package static func lostKey(_ kind: Kind, _ id: Int, key: String, name: String, version: Int, label: String, restore: String) -> Diagnostic {
        Diagnostic(SourceLocation(file: label, field: "\(kind.rawValue) \(id)"),
                   "\(kind.rawValue) \(id) (\(shown(name))) had the key \(key) in version \(version) and no longer has it: "
                   + "the registry lost it, and what it named would get a new ID; \(restore)")
    }

    /// The name an ID's row holds.
    package func name(_ kind: Kind, _ id: Int) -> String {
        guard let table, let c, let r = records[kind][id] else { return "" }
        return table.string(r, c.name)
    }

    /// `text`, or the file as the maintainer wrote it when it already holds the same IDs,
    /// keys and rows (quoted another way, say): a run with nothing new changes nothing in raw/.
    package func keepingFile(_ text: [UInt8]) -> [UInt8] {
        guard let table else { return text }
        if table.fileBytes == text[...] { return Array(table.fileBytes) }
        // The same registry quoted another way? Rendered only as far as it agrees with `text`:
        // a changed row early in the file spared the rest (0.3 s of a plan at 10x).
        var agreed = 0
        let same = self.text(while: { out in
            defer { agreed = out.count }
            return out.count <= text.count && out[agreed...].elementsEqual(text[agreed..<out.count])
        }) == text
        return same ? Array(table.fileBytes) : text
    }

    package static func == (a: Registry, b: Registry) -> Bool { a.text() == b.text() }
}

/// What every reader's station key ends with (before any `:2` of a namesake) for a
/// Shinkansen station: the bundle keeps it apart from the conventional station of its
/// place (bundle.md), and an ID never passes from one to the other (IdentityLinker).
package enum ShinkansenKey {
    package static let mark = ":shinkansen"
    private static let markBytes = Array(mark.utf8)

    package static func marks(_ keys: [String]) -> Bool { keys.contains(where: isMarked) }

    /// Byte by byte: String's own search costs a sixth of a national ingest here.
    static func isMarked(_ key: String) -> Bool {
        var key = key
        return key.withUTF8 { bytes in
            let m = markBytes
            guard bytes.count >= m.count else { return false }
            for start in 0...(bytes.count - m.count) where bytes[start] == m[0] {
                if (1..<m.count).allSatisfy({ bytes[start + $0] == m[$0] }) { return true }
            }
            return false
        }
    }
}

extension RailNetwork {
    /// The stations on a Shinkansen line (l_type 1): the apps' masters give them rows of their own.
    package func shinkansenStations() -> Set<Int> {
        let shinkansenLines = Set(lines.lazy.filter(\.isShinkansen).map(\.id))
        return Set(stationLines.lazy.filter { shinkansenLines.contains($0.lineID) }.map(\.stationID))
    }

}

/// Each station's lines: the (s_id, l_id) pairs of stations_lines in order, looked up by
/// halving (a dictionary of arrays would hold a hundred MB at 100 times national).
package struct LinesOfStations {
    private let pairs: [(station: Int, line: Int)]

    package init(_ network: RailNetwork) {
        pairs = network.stationLines.map { ($0.stationID, $0.lineID) }.sorted { ($0.station, $0.line) < ($1.station, $1.line) }
    }

    /// The station's l_ids in order, each once; nil for a station on no line.
    package func lines(of station: Int) -> [Int]? {
        var low = 0, high = pairs.count
        while low < high {
            let mid = (low + high) / 2
            if pairs[mid].station < station { low = mid + 1 } else { high = mid }
        }
        var out: [Int] = []
        while low < pairs.count, pairs[low].station == station {
            if out.last != pairs[low].line { out.append(pairs[low].line) }
            low += 1
        }
        return out.isEmpty ? nil : out
    }
}

/// One value for each kind of entity.
package struct ByKind<Value>: Sendable where Value: Sendable {
    package var operators, lines, stations: Value

    package init(operators: Value, lines: Value, stations: Value) { self.operators = operators; self.lines = lines; self.stations = stations }
    package init(_ value: Value) { self.init(operators: value, lines: value, stations: value) }

    package subscript(kind: Registry.Kind) -> Value {
        switch kind {
        case .operator_: operators
        case .line: lines
        case .station: stations
        }
    }

    /// Changes one kind's value in place.
    package mutating func modify<Result>(_ kind: Registry.Kind, _ body: (inout Value) -> Result) -> Result {
        switch kind {
        case .operator_: body(&operators)
        case .line: body(&lines)
        case .station: body(&stations)
        }
    }
}

