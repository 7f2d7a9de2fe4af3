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

    /// Every entry with its row, made from the file on each access (tests and tools; the pipeline reads entries in place).
    public var operators: [Int: (keys: [String], row: Operator)] { _operators.dictionary(file) }
    public var lines: [Int: (keys: [String], row: Line)] { _lines.dictionary(file) }
    public var stations: [Int: (keys: [String], row: Station)] { _stations.dictionary(file) }

    /// The registry file as read; each entry names its record, and a row is
    /// made from the record only when asked for (a vanished entity's, to publish it
    /// disabled). Nearly every row of a run is the same as the network's, so making
    /// all of them (four strings per station) was most of the registry's cost.
    let file: SourceTable?
    var _operators = RegistryTable<Operator>()
    var _lines = RegistryTable<Line>()
    var _stations = RegistryTable<Station>()

    public init() { file = nil }

    init(file: SourceTable?) { self.file = file }

    public static let fileName = "registry.csv"
    static let columns = ["kind", "id", "keys", "name", "o_id", "type", "enabled", "yomi", "wiki", "pref", "address", "lat", "lng"]
    /// Keys are joined with this; sources' keys never contain it.
    static let keySeparator: Character = "|"
    static let keySeparatorByte = UInt8(ascii: "|")

    /// Equal when they would be written as the same file.
    public static func == (a: Registry, b: Registry) -> Bool { a.csvBytes() == b.csvBytes() }

    public var isEmpty: Bool { _operators.isEmpty && _lines.isEmpty && _stations.isEmpty }

    public static func load(path: String) throws -> Registry {
        guard FileManager.default.fileExists(atPath: path) else { return Registry() }
        var problems = DiagnosticCollector()
        let folder = Path.deletingLastComponent(path), name = Path.lastComponent(path)
        guard let t = try SourceTable.load(folder: folder.isEmpty ? "." : folder, label: folder, name: name, required: columns, &problems) else {
            try problems.check()
            return Registry()
        }
        return try load(t)
    }

    /// A registry from the text `RegistryText` wrote (an ingest's next registry).
    static func parse(_ text: [UInt8]) throws -> Registry {
        let fields = try text.withUnsafeBufferPointer { try CSVReader.scan($0, file: fileName) }
        try fields.require(columns)
        return try load(SourceTable(file: fileName, fields: fields))
    }

    private static func load(_ t: SourceTable) throws -> Registry {
        var problems = DiagnosticCollector()
        let c = RegistryColumns(t)
        var r = Registry(file: t)
        // Nearly every row is a station: reserving up front spares the
        // national registry a resize, which holds the old and new tables at once.
        r._stations.reserveCapacity(t.count)
        // Every field a row would be made from is checked here, so that making one later cannot fail.
        for i in t.records {
            guard let id = t.int(i, c.id, &problems) else { continue }
            guard t.bool(i, c.enabled, default: true, &problems) != nil else { continue }
            switch t.withTrimmed(i, c.kind, Kind.init(utf8:)) {
            case .operator_:
                guard t.int(i, c.type, &problems) != nil else { continue }
                if !r._operators.add(id: id, keys: t.registryKeys(i, c.keys), record: i) { problems.add(t.location(i, c.id), "duplicate operator id \(id)") }
            case .line:
                guard t.int(i, c.operatorID, &problems) != nil, t.optionalInt(i, c.type, &problems).ok else { continue }
                if !r._lines.add(id: id, keys: t.registryKeys(i, c.keys), record: i) { problems.add(t.location(i, c.id), "duplicate line id \(id)") }
            case .station:
                guard t.int(i, c.operatorID, &problems) != nil, t.int(i, c.pref, &problems) != nil,
                      t.int(i, c.lat, &problems) != nil, t.int(i, c.lng, &problems) != nil else { continue }
                if !r._stations.add(id: id, keys: t.registryKeys(i, c.keys), record: i) { problems.add(t.location(i, c.id), "duplicate station id \(id)") }
            case nil:
                problems.add(t.location(i, c.kind), "expected operator, line or station, found '\(t.text(i, c.kind))'")
            }
        }
        try problems.check()
        return r
    }

    /// The registry as its file: the header, then operators, lines and stations, each by ID.
    func csvBytes() -> [UInt8] {
        var out = RegistryText()
        for id in _operators.ids.sorted() { out.append(_operators.row(of: id, in: file)!, keys: _operators.keys(of: id)!) }
        for id in _lines.ids.sorted() { out.append(_lines.row(of: id, in: file)!, keys: _lines.keys(of: id)!) }
        for id in _stations.ids.sorted() { out.append(_stations.row(of: id, in: file)!, keys: _stations.keys(of: id)!) }
        return out.finish()
    }

    /// Writes atomically, unless the file already holds this content (so make sees no change).
    public func write(path: String) throws {
        let bytes = csvBytes()
        if let old = FileManager.default.contents(atPath: path), old.elementsEqual(bytes) { return }
        try AtomicFile.write(parts: [bytes], to: path)
    }
}

/// The registry's columns, resolved once.
struct RegistryColumns {
    let kind, id, keys, name, operatorID, type, enabled, yomi, wiki, pref, address, lat, lng: SourceColumn
    init(_ t: SourceTable) {
        kind = t.column("kind"); id = t.column("id"); keys = t.column("keys"); name = t.column("name")
        operatorID = t.column("o_id"); type = t.column("type"); enabled = t.column("enabled"); yomi = t.column("yomi")
        wiki = t.column("wiki"); pref = t.column("pref"); address = t.column("address"); lat = t.column("lat"); lng = t.column("lng")
    }
}

/// One kind's entries by ID: each ID's keys and the record its row is in. A
/// dictionary of the entries themselves was more than twice their size at
/// national scale (a table kept at most three-quarters full, at a power-of-two size).
struct RegistryTable<Row: RegistryRow>: Sendable {
    /// Keys as the file holds them, joined by `Registry.keySeparator` (most
    /// entries have one, short enough to live inside the String): an array for
    /// each of a million entries was a million allocations.
    private var entries: [(id: Int, keys: String, record: Int)] = []
    /// Registry IDs count up from 1, so this is IDTable's direct array: 8 bytes an entry.
    private var index = IDTable()

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }
    /// The IDs, in the order they were added.
    var ids: [Int] { entries.map(\.id) }

    mutating func reserveCapacity(_ n: Int) {
        entries.reserveCapacity(n)
        if index.count == 0 { index = IDTable(capacity: n) }
    }

    /// Adds an entry (`keys` joined); false (and nothing added) when the ID is already there.
    mutating func add(id: Int, keys: String, record: Int) -> Bool {
        guard index.insertIfAbsent(id, value: entries.count) == nil else { return false }
        entries.append((id, keys, record))
        return true
    }

    /// Every entry's ID and each of its keys, in the order they were added.
    func forEachKey(_ body: (_ id: Int, _ key: String) -> Void) {
        for e in entries {
            if !e.keys.utf8.contains(Registry.keySeparatorByte) { body(e.id, e.keys); continue }
            for k in RegistryTable.split(e.keys) { body(e.id, k) }
        }
    }

    func contains(_ id: Int) -> Bool { index.contains(id) }

    /// The keys of `id`.
    func keys(of id: Int) -> [String]? { index.value(id).map { RegistryTable.split(entries[$0].keys) } }

    /// Whether `id` is registered with exactly `keys`, in this order; compared
    /// in place, since nearly every entity of a run has the keys it had. Keys
    /// never hold the separator (see `Registry.keySeparator`).
    func keys(of id: Int, are keys: [String]) -> Bool {
        guard let i = index.value(id), !keys.isEmpty else { return false }
        var joined = entries[i].keys.utf8[...]
        for (n, k) in keys.enumerated() {
            if n > 0 {
                guard joined.first == Registry.keySeparatorByte else { return false }
                joined = joined.dropFirst()
            }
            guard joined.starts(with: k.utf8) else { return false }
            joined = joined.dropFirst(k.utf8.count)
        }
        return joined.isEmpty
    }

    /// The last published row of `id`, made from its record in `file`.
    func row(of id: Int, in file: SourceTable?) -> Row? {
        guard let i = index.value(id), let file else { return nil }
        return Row(registry: file, record: entries[i].record, RegistryColumns(file))
    }

    func dictionary(_ file: SourceTable?) -> [Int: (keys: [String], row: Row)] {
        var out: [Int: (keys: [String], row: Row)] = [:]
        for e in entries { out[e.id] = (RegistryTable.split(e.keys), row(of: e.id, in: file)!) }
        return out
    }

    private static func split(_ joined: String) -> [String] {
        joined.split(separator: Registry.keySeparator).map(String.init)
    }
}

/// One kind's registered keys: each key's ID (the smallest ID that holds it)
/// and the highest ID ever registered. Made from the registry alone, so a run
/// makes it on the other core while it reads its sources; or, for a registry too
/// large to read beside them, only if an entity without a fixed ID asks (a native
/// master gives every entity its ID, and a million keys take a third of a second).
struct RegisteredKeys: Sendable {
    let maxID: Int
    private let made: [String: Int]?
    private let make: @Sendable () -> [String: Int]

    init<Row: RegistryRow>(_ registered: RegistryTable<Row>, now: Bool = true) {
        var maxID = registered.isEmpty ? 0 : Int.min
        for id in registered.ids { maxID = max(maxID, id) }
        self.maxID = maxID
        make = { RegisteredKeys.keyToID(registered) }
        made = now ? make() : nil
    }

    /// Each key's ID.
    func keyToID() -> [String: Int] { made ?? make() }

    /// Reads the registry's keys in place, in one pass and one hash per key: a
    /// key two IDs held goes to the smaller.
    private static func keyToID<Row: RegistryRow>(_ registered: RegistryTable<Row>) -> [String: Int] {
        var keyToID: [String: Int] = [:]
        keyToID.reserveCapacity(registered.count)
        registered.forEachKey { id, k in
            if let earlier = keyToID.updateValue(id, forKey: k), earlier < id { keyToID[k] = earlier }
        }
        return keyToID
    }

    /// All three kinds of `registry`.
    static func all(_ registry: Registry, now: Bool = true) -> (operators: RegisteredKeys, lines: RegisteredKeys, stations: RegisteredKeys) {
        (RegisteredKeys(registry._operators, now: now), RegisteredKeys(registry._lines, now: now), RegisteredKeys(registry._stations, now: now))
    }
}

/// Gives each merged entity its ID: a fixed ID from the native master first,
/// else the smallest registered ID among its keys not taken by another
/// entity this run, else a new ID above everything ever registered.
enum IDAssigner {
    /// `entities` are (keys, fixedID); returns IDs in the same order. `registered`
    /// is asked for only when some entity has no fixed ID, or one already taken.
    static func assign(registered: () throws -> RegisteredKeys, _ entities: [(keys: [String], fixedID: Int?)]) rethrows -> [Int] {
        var result = [Int](repeating: 0, count: entities.count)
        var taken = IDTable(capacity: entities.count)
        var maxFixed: Int?
        for (i, e) in entities.enumerated() {
            guard let f = e.fixedID else { continue }
            maxFixed = max(maxFixed ?? f, f)
            if taken.insertIfAbsent(f, value: i) == nil { result[i] = f }
        }
        // The rest in key order, so file order never decides who keeps an ID.
        let order = entities.indices.filter { result[$0] == 0 }.sorted { (entities[$0].keys.min() ?? "") < (entities[$1].keys.min() ?? "") }
        guard !order.isEmpty else { return result }
        let keys = try registered()
        var maxID = max(keys.maxID, maxFixed ?? 0)
        let keyToID = keys.keyToID()
        for i in order {
            let candidates = entities[i].keys.compactMap { keyToID[$0] }.filter { !taken.contains($0) }
            if let id = candidates.min() {
                result[i] = id
            } else {
                maxID += 1
                result[i] = maxID
            }
            _ = taken.insertIfAbsent(result[i], value: i)
        }
        return result
    }
}

/// What the registry keeps of a row: its ID, and how it is made from a record
/// of the file (whose fields `Registry.load` has already checked).
protocol RegistryRow: Equatable, Sendable {
    var registryID: Int { get }
    init(registry t: SourceTable, record i: Int, _ c: RegistryColumns)
    func appendRegistryLine(to text: inout RegistryText, keys: [String])
}

extension Operator: RegistryRow {
    var registryID: Int { id }
    func appendRegistryLine(to text: inout RegistryText, keys: [String]) { text.append(self, keys: keys) }
    init(registry t: SourceTable, record i: Int, _ c: RegistryColumns) {
        self.init(id: t.lenientInt(i, c.id)!, name: t.text(i, c.name), type: t.lenientInt(i, c.type)!, enabled: t.flag(i, c.enabled))
    }
}

extension Line: RegistryRow {
    var registryID: Int { id }
    func appendRegistryLine(to text: inout RegistryText, keys: [String]) { text.append(self, keys: keys) }
    init(registry t: SourceTable, record i: Int, _ c: RegistryColumns) {
        self.init(id: t.lenientInt(i, c.id)!, name: t.text(i, c.name), operatorID: t.lenientInt(i, c.operatorID)!,
                  enabled: t.flag(i, c.enabled), type: t.lenientInt(i, c.type))
    }
}

extension Station: RegistryRow {
    var registryID: Int { id }
    func appendRegistryLine(to text: inout RegistryText, keys: [String]) { text.append(self, keys: keys) }
    init(registry t: SourceTable, record i: Int, _ c: RegistryColumns) {
        self.init(id: t.lenientInt(i, c.id)!, name: t.text(i, c.name), yomi: t.text(i, c.yomi), wiki: t.text(i, c.wiki),
                  pref: t.lenientInt(i, c.pref)!, address: t.text(i, c.address), lat: t.lenientInt(i, c.lat)!, lng: t.lenientInt(i, c.lng)!,
                  operatorID: t.lenientInt(i, c.operatorID)!, enabled: t.flag(i, c.enabled))
    }
}

extension Registry.Kind {
    /// The kind a field's bytes name, without making a string of them (once per row of the registry).
    init?(utf8 b: UnsafeBufferPointer<UInt8>) {
        func named(_ s: StaticString) -> Bool { b.count == s.utf8CodeUnitCount && memcmp(b.baseAddress!, s.utf8Start, b.count) == 0 }
        if b.isEmpty { return nil }
        if named("station") { self = .station } else if named("line") { self = .line } else if named("operator") { self = .operator_ } else { return nil }
    }
}

private extension SourceTable {
    /// The keys of a registry row: the field split at `|`, empty pieces dropped.
    /// The keys field with no empty key in it, as `RegistryTable` keeps it:
    /// nearly always the field as it is.
    func registryKeys(_ record: Int, _ column: SourceColumn) -> String {
        withTrimmed(record, column) { b in
            let bar = Registry.keySeparatorByte
            var hasEmptyKey = b.first == bar || b.last == bar
            for j in b.indices.dropFirst() where b[j] == bar && b[j - 1] == bar { hasEmptyKey = true; break }
            guard hasEmptyKey else { return String(decoding: b, as: UTF8.self) }
            return b.split(separator: bar).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "|")
        }
    }

    /// A checked 0/1/true/false field; empty is true.
    func flag(_ record: Int, _ column: SourceColumn) -> Bool {
        var unused = DiagnosticCollector()
        return bool(record, column, default: true, &unused) ?? true
    }
}

/// The registry file's text, written row by row straight into bytes: at 100
/// times national it is a million rows, each once per run.
struct RegistryText: ~Copyable {
    private var out: ByteWriter

    /// `header: false` for a part that follows another.
    init(capacity: Int = 1 << 16, header: Bool = true) {
        out = ByteWriter(capacity: capacity)
        guard header else { return }
        for (i, c) in Registry.columns.enumerated() { if i > 0 { out.append(0x2C) }; out.append(utf8: c) }
        out.append(0x0A)
    }

    /// The text; the writer's memory goes with it.
    consuming func finish() -> [UInt8] { out.bytes }

    /// `n` empty fields.
    private mutating func empty(_ n: Int) { for _ in 0..<n { out.append(0x2C) } }

    private mutating func number(_ v: Int) { out.append(0x2C); out.append(decimal: v) }

    /// A comma, then a text field, quoted as CSVWriter would quote it.
    private mutating func text(_ s: String) {
        out.append(0x2C)
        var s = s
        s.withUTF8 { b in
            if CSVWriter.needsQuotes(b) {
                out.append(0x22)
                for c in b { out.append(c); if c == 0x22 { out.append(0x22) } }
                out.append(0x22)
            } else {
                out.append(b)
            }
        }
    }

    private mutating func keys(_ keys: [String]) {
        text(keys.count == 1 ? keys[0] : keys.joined(separator: String(Registry.keySeparator)))
    }

    private mutating func flag(_ v: Bool) { out.append(0x2C); out.append(v ? 0x31 : 0x30) }

    mutating func append(_ o: Operator, keys k: [String]) {
        out.append(utf8: "operator"); number(o.id); keys(k); text(o.name); empty(1)
        number(o.type); flag(o.enabled); empty(6); out.append(0x0A)
    }

    mutating func append(_ l: Line, keys k: [String]) {
        out.append(utf8: "line"); number(l.id); keys(k); text(l.name); number(l.operatorID)
        if let t = l.type { number(t) } else { empty(1) }
        flag(l.enabled); empty(6); out.append(0x0A)
    }

    mutating func append(_ s: Station, keys k: [String]) {
        out.append(utf8: "station"); number(s.id); keys(k); text(s.name); number(s.operatorID); empty(1)
        flag(s.enabled); text(s.yomi); text(s.wiki); number(s.pref); text(s.address); number(s.lat); number(s.lng); out.append(0x0A)
    }
}

/// Each ID's keys in the current sources.
struct EntityKeys: Sendable {
    /// Each ID's entity: IDs count up from 1, so this is IDTable's direct array.
    private let entityOf: IDTable
    private let currentKeys: [[String]]
    private let ids: [Int]

    init(ids: [Int], currentKeys: [[String]]) {
        entityOf = IDTable(set: ids)
        self.currentKeys = currentKeys
        self.ids = ids
    }

    /// The keys of `id` now, sorted; empty for an ID no entity holds.
    func keys(of id: Int) -> [String] {
        guard let entity = entityOf.value(id) else { return [] }
        // Most entities have one key: sorting those would only copy a million small arrays.
        let keys = currentKeys[entity]
        return zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 } ? keys : keys.sorted()
    }

    /// Which ID holds each key now.
    func owners() -> [String: Int] {
        var o: [String: Int] = [:]
        for (i, id) in ids.enumerated() { for k in currentKeys[i] { o[k] = id } }
        return o
    }
}
