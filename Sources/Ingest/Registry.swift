import FoundationEssentials
import Glibc
import StationModel

// The ID registry (raw/registry.csv) is what keeps s_id, l_id and o_id
// meaning the same thing across runs: clients key users' records by s_id.
// It maps every external key a source ever used to our ID, and keeps the last
// published row of each ID so that an entity that vanishes from the sources
// can still be published, disabled, under its old ID. IDs are never reused:
// a new entity gets one above every ID the registry has ever held.

public struct Registry: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case operator_ = "operator", line, station }

    public var operators: [Int: (keys: [String], row: Operator)] { get { _operators.dictionary } }
    public var lines: [Int: (keys: [String], row: Line)] { get { _lines.dictionary } }
    public var stations: [Int: (keys: [String], row: Station)] { get { _stations.dictionary } }

    var _operators = RegistryTable<Operator>()
    var _lines = RegistryTable<Line>()
    var _stations = RegistryTable<Station>()

    public init() {}

    public static let fileName = "registry.csv"
    static let columns = ["kind", "id", "keys", "name", "o_id", "type", "enabled", "yomi", "wiki", "pref", "address", "lat", "lng"]
    /// Keys are joined with this; sources' keys never contain it.
    static let keySeparator: Character = "|"

    public static func == (a: Registry, b: Registry) -> Bool {
        same(a._operators, b._operators) && same(a._lines, b._lines) && same(a._stations, b._stations)
    }

    private static func same<Row>(_ a: RegistryTable<Row>, _ b: RegistryTable<Row>) -> Bool {
        a.count == b.count && a.sameEntries(as: b)
    }

    public var isEmpty: Bool { _operators.isEmpty && _lines.isEmpty && _stations.isEmpty }

    public static func load(path: String) throws -> Registry {
        guard FileManager.default.fileExists(atPath: path) else { return Registry() }
        var problems = DiagnosticCollector()
        let folder = Path.deletingLastComponent(path), name = Path.lastComponent(path)
        guard let t = try SourceTable.load(folder: folder.isEmpty ? "." : folder, label: folder, name: name, required: columns, &problems) else {
            try problems.check()
            return Registry()
        }
        let kind = t.column("kind"), idC = t.column("id"), keysC = t.column("keys"), nameC = t.column("name"), oC = t.column("o_id")
        let typeC = t.column("type"), enabledC = t.column("enabled"), yomiC = t.column("yomi"), wikiC = t.column("wiki")
        let prefC = t.column("pref"), addressC = t.column("address"), latC = t.column("lat"), lngC = t.column("lng")
        var r = Registry()
        // Nearly every row is a station: reserving up front spares the
        // national registry a resize, which holds the old and new tables at once.
        r._stations.reserveCapacity(t.count)
        for i in t.records {
            guard let id = t.int(i, idC, &problems) else { continue }
            let keys = t.text(i, keysC).split(separator: keySeparator).map(String.init)
            let enabled = t.bool(i, enabledC, default: true, &problems) ?? true
            switch t.text(i, kind) {
            case Kind.operator_.rawValue:
                guard let type = t.int(i, typeC, &problems) else { continue }
                if r._operators[id] != nil { problems.add(t.location(i, idC), "duplicate operator id \(id)") }
                r._operators[id] = (keys, Operator(id: id, name: t.text(i, nameC), type: type, enabled: enabled))
            case Kind.line.rawValue:
                guard let o = t.int(i, oC, &problems) else { continue }
                if r._lines[id] != nil { problems.add(t.location(i, idC), "duplicate line id \(id)") }
                r._lines[id] = (keys, Line(id: id, name: t.text(i, nameC), operatorID: o, enabled: enabled, type: t.optionalInt(i, typeC, &problems).value))
            case Kind.station.rawValue:
                guard let o = t.int(i, oC, &problems), let pref = t.int(i, prefC, &problems),
                      let lat = t.int(i, latC, &problems), let lng = t.int(i, lngC, &problems) else { continue }
                if r._stations[id] != nil { problems.add(t.location(i, idC), "duplicate station id \(id)") }
                r._stations[id] = (keys, Station(id: id, name: t.text(i, nameC), yomi: t.text(i, yomiC), wiki: t.text(i, wikiC),
                                                 pref: pref, address: t.text(i, addressC), lat: lat, lng: lng, operatorID: o, enabled: enabled))
            case let k:
                problems.add(t.location(i, kind), "expected operator, line or station, found '\(k)'")
            }
        }
        try problems.check()
        return r
    }

    func csvText() -> String {
        var out = CSVWriter.line(Registry.columns)
        out.reserveCapacity(160 * (_operators.count + _lines.count + _stations.count))
        func keys(_ k: [String]) -> String { k.joined(separator: String(Registry.keySeparator)) }
        for id in _operators.keys.sorted() {
            let (k, o) = _operators[id]!
            CSVWriter.append(["operator", String(id), keys(k), o.name, "", String(o.type), o.enabled ? "1" : "0", "", "", "", "", "", ""], to: &out)
        }
        for id in _lines.keys.sorted() {
            let (k, l) = _lines[id]!
            CSVWriter.append(["line", String(id), keys(k), l.name, String(l.operatorID), l.type.map(String.init) ?? "", l.enabled ? "1" : "0", "", "", "", "", "", ""], to: &out)
        }
        for id in _stations.keys.sorted() {
            let (k, s) = _stations[id]!
            CSVWriter.append(["station", String(id), keys(k), s.name, String(s.operatorID), "", s.enabled ? "1" : "0", s.yomi, s.wiki,
                                   String(s.pref), s.address, String(s.lat), String(s.lng)], to: &out)
        }
        return out
    }

    /// Writes atomically, and only when the content changed (so make sees no change).
    public func write(path: String, unlessEqualTo loaded: Registry? = nil) throws {
        try write(path: path, unchanged: loaded.map { $0 == self } ?? false)
    }

    /// Writes atomically unless `unchanged` (the caller compared it with the
    /// registry read) and the file is still there, or the file already holds this content.
    public func write(path: String, unchanged: Bool) throws {
        if unchanged, FileManager.default.fileExists(atPath: path) { return }
        let text = csvText()
        if let old = FileManager.default.contents(atPath: path), old == Data(text.utf8) { return }
        try AtomicFile.write(text, to: path)
    }
}

/// One kind's entries by ID: the entries in one array, and an index from ID
/// to position. A dictionary of the entries themselves was more than twice
/// their size at national scale (wide rows in a table kept at most
/// three-quarters full, at a power-of-two size), and a run holds two registries.
struct RegistryTable<Row: Equatable & Sendable>: Sendable {
    private var entries: [(keys: [String], row: Row)] = []
    private var index: [Int: Int] = [:]

    var count: Int { index.count }
    var isEmpty: Bool { index.isEmpty }
    /// The IDs, in no particular order.
    var keys: Dictionary<Int, Int>.Keys { index.keys }

    mutating func reserveCapacity(_ n: Int) {
        entries.reserveCapacity(n)
        index.reserveCapacity(n)
    }

    /// Entries are added or replaced, never removed.
    subscript(id: Int) -> (keys: [String], row: Row)? {
        get { index[id].map { entries[$0] } }
        set {
            guard let newValue else { preconditionFailure("registry entries are never removed") }
            if let i = index[id] { entries[i] = newValue } else { index[id] = entries.count; entries.append(newValue) }
        }
    }

    /// The keys of `id`, without copying its row.
    func keys(of id: Int) -> [String]? { index[id].map { entries[$0].keys } }

    /// Whether every entry here is in `other` too, the same; compared in
    /// place, since copying out a million entries was a good part of the time.
    func sameEntries(as other: RegistryTable<Row>) -> Bool {
        for (id, i) in index {
            guard let j = other.index[id], entries[i].keys == other.entries[j].keys, entries[i].row == other.entries[j].row else { return false }
        }
        return true
    }

    var dictionary: [Int: (keys: [String], row: Row)] { index.mapValues { entries[$0] } }
}

/// One kind's registered keys: each key's ID (the smallest ID that holds it)
/// and the highest ID ever registered. Made from the registry alone, so a run
/// makes it on the other core while it reads its sources.
struct RegisteredKeys: Sendable {
    var keyToID: [String: Int] = [:]
    var maxID = 0

    /// Reads the registry's keys in place (no copy of its key lists).
    init<Row>(_ registered: RegistryTable<Row>) {
        keyToID.reserveCapacity(registered.count)
        for id in registered.keys.sorted() {
            for k in registered.keys(of: id)! where keyToID[k] == nil { keyToID[k] = id }
        }
        maxID = registered.keys.max() ?? 0
    }

    /// All three kinds of `registry`.
    static func all(_ registry: Registry) -> (operators: RegisteredKeys, lines: RegisteredKeys, stations: RegisteredKeys) {
        (RegisteredKeys(registry._operators), RegisteredKeys(registry._lines), RegisteredKeys(registry._stations))
    }
}

/// Gives each merged entity its ID: a fixed ID from the native master first,
/// else the smallest registered ID among its keys not taken by another
/// entity this run, else a new ID above everything ever registered.
struct IDAssigner {
    var keyToID: [String: Int]
    var maxID: Int

    init(registered: RegisteredKeys, fixedIDs: [Int]) {
        keyToID = registered.keyToID
        maxID = max(registered.maxID, fixedIDs.max() ?? 0)
    }

    /// Lets the key map go as soon as the IDs are out.
    static func assign(registered: RegisteredKeys, _ entities: [(keys: [String], fixedID: Int?)]) -> [Int] {
        var assigner = IDAssigner(registered: registered, fixedIDs: entities.compactMap(\.fixedID))
        return assigner.assign(entities)
    }

    /// `entities` are (keys, fixedID); returns IDs in the same order.
    mutating func assign(_ entities: [(keys: [String], fixedID: Int?)]) -> [Int] {
        var result = [Int](repeating: 0, count: entities.count)
        var taken = Set<Int>()
        for (i, e) in entities.enumerated() {
            if let f = e.fixedID, !taken.contains(f) { result[i] = f; taken.insert(f) }
        }
        // The rest in key order, so file order never decides who keeps an ID.
        let order = entities.indices.filter { result[$0] == 0 }.sorted { (entities[$0].keys.min() ?? "") < (entities[$1].keys.min() ?? "") }
        for i in order {
            let candidates = entities[i].keys.compactMap { keyToID[$0] }.filter { !taken.contains($0) }
            if let id = candidates.min() {
                result[i] = id
            } else {
                maxID += 1
                result[i] = maxID
            }
            taken.insert(result[i])
        }
        return result
    }
}

/// What the registry keeps of a row: its ID.
protocol RegistryRow: Equatable { var registryID: Int { get } }
extension Operator: RegistryRow { var registryID: Int { id } }
extension Line: RegistryRow { var registryID: Int { id } }
extension Station: RegistryRow { var registryID: Int { id } }
