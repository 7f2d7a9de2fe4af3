import StationIO
import StationModel

// The ID registry (raw/registry.csv) is what keeps s_id, l_id and o_id
// meaning the same thing across runs: clients key users' records by s_id.
// It maps every external key a source ever used to our ID, and keeps the last
// published row of each ID so that an entity that vanishes from the sources
// can still be published, disabled, under its old ID. IDs are never reused:
// a new entity gets one above every ID the registry has ever held.

public struct Registry: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case operator_ = "operator", line, station }

    /// One ID's keys (sorted) and its row as last published.
    public struct Entry<Row: Hashable & Sendable>: Hashable, Sendable {
        public var keys: [String]
        public var row: Row

        public init(keys: [String], row: Row) { self.keys = keys; self.row = row }
    }

    public var operators: [Int: Entry<Operator>] = [:]
    public var lines: [Int: Entry<Line>] = [:]
    public var stations: [Int: Entry<Station>] = [:]

    public init() {}

    public static let fileName = "registry.csv"
    static let columns = ["kind", "id", "keys", "name", "o_id", "type", "enabled", "yomi", "wiki", "pref", "address", "lat", "lng"]
    /// Keys are joined with this; sources' keys never contain it.
    static let keySeparator: Character = "|"

    public var isEmpty: Bool { operators.isEmpty && lines.isEmpty && stations.isEmpty }

    public static func load(path: String) throws -> Registry {
        guard Files.exists(path) else { return Registry() }
        return try parse(CSVReader.read(path: path))
    }

    /// The registry in a CSV table (the file, or the text `text()` made).
    static func parse(_ t: CSVTable) throws -> Registry {
        try t.require(columns)
        var problems = DiagnosticCollector()
        var r = Registry()
        let c = (kind: t.column("kind"), id: t.column("id"), keys: t.column("keys"), name: t.column("name"), operatorID: t.column("o_id"),
                 type: t.column("type"), enabled: t.column("enabled"), yomi: t.column("yomi"), wiki: t.column("wiki"),
                 pref: t.column("pref"), address: t.column("address"), lat: t.column("lat"), lng: t.column("lng"))
        r.stations.reserveCapacity(t.count)
        for i in t.records {
            guard let id = t.int(i, c.id, &problems), let enabled = t.bool(i, c.enabled, default: true, &problems) else { continue }
            let keys = t.bytes(i, c.keys).split(separator: UInt8(ascii: "|")).map { String(decoding: $0, as: UTF8.self) }
            func duplicate(_ kind: String) { problems.add(t.location(i, c.id), "duplicate \(kind) id \(id)") }
            switch t.string(i, c.kind) {
            case Kind.operator_.rawValue:
                guard let type = t.int(i, c.type, &problems) else { continue }
                let row = Operator(id: id, name: t.string(i, c.name), type: type, enabled: enabled)
                if r.operators.updateValue(Entry(keys: keys, row: row), forKey: id) != nil { duplicate("operator") }
            case Kind.line.rawValue:
                guard let operatorID = t.int(i, c.operatorID, &problems), let type = t.optionalInt(i, c.type, &problems) else { continue }
                let row = Line(id: id, name: t.string(i, c.name), operatorID: operatorID, enabled: enabled, type: type)
                if r.lines.updateValue(Entry(keys: keys, row: row), forKey: id) != nil { duplicate("line") }
            case Kind.station.rawValue:
                guard let operatorID = t.int(i, c.operatorID, &problems), let pref = t.int(i, c.pref, &problems),
                      let lat = t.int(i, c.lat, &problems), let lng = t.int(i, c.lng, &problems) else { continue }
                let row = Station(id: id, name: t.string(i, c.name), yomi: t.string(i, c.yomi), wiki: t.string(i, c.wiki), pref: pref,
                                  address: t.string(i, c.address), lat: lat, lng: lng, operatorID: operatorID, enabled: enabled)
                if r.stations.updateValue(Entry(keys: keys, row: row), forKey: id) != nil { duplicate("station") }
            case let kind:
                problems.add(t.location(i, c.kind), "expected operator, line or station, found '\(shown(kind))'")
            }
        }
        try problems.check()
        return r
    }

    /// The registry as its file: the header, then operators, lines and stations, each by ID.
    /// Text fields are quoted when they must be, so every value reads back as it was.
    public func text() -> [UInt8] {
        var out: [UInt8] = []
        CSVWriter.append(Self.columns, to: &out)
        func keys(_ k: [String]) -> String { k.joined(separator: String(Self.keySeparator)) }
        func flag(_ v: Bool) -> String { v ? "1" : "0" }
        for id in operators.keys.sorted() {
            let e = operators[id]!, o = e.row
            CSVWriter.append(["operator", String(o.id), keys(e.keys), o.name, "", String(o.type), flag(o.enabled), "", "", "", "", "", ""], to: &out)
        }
        for id in lines.keys.sorted() {
            let e = lines[id]!, l = e.row
            CSVWriter.append(["line", String(l.id), keys(e.keys), l.name, String(l.operatorID), l.type.map(String.init) ?? "", flag(l.enabled),
                              "", "", "", "", "", ""], to: &out)
        }
        for id in stations.keys.sorted() {
            let e = stations[id]!, s = e.row
            CSVWriter.append(["station", String(s.id), keys(e.keys), s.name, String(s.operatorID), "", flag(s.enabled), s.yomi, s.wiki,
                              String(s.pref), s.address, String(s.lat), String(s.lng)], to: &out)
        }
        return out
    }

    /// Writes the file, unless it already holds this registry: a run with nothing new changes nothing in raw/.
    public func write(path: String) throws {
        let text = text()
        if Files.exists(path), let old = try? Files.read(path), old == text { return }
        try AtomicFile.write(text, to: path)
    }

    /// Each registered key's ID (a key two IDs held goes to the smaller) and the highest ID ever given.
    static func keyToID<Row>(_ entries: [Int: Entry<Row>]) -> (ids: [String: Int], maxID: Int) {
        var ids: [String: Int] = [:]
        for (id, entry) in entries {
            for key in entry.keys where ids[key].map({ id < $0 }) ?? true { ids[key] = id }
        }
        return (ids, entries.keys.max() ?? 0)
    }
}

/// Gives each merged entity its ID: a fixed ID from the native master first,
/// else the smallest registered ID among its keys not taken by another
/// entity this run, else a new ID above everything ever registered.
enum IDAssigner {
    /// `entities` are (keys, fixedID); returns IDs in the same order.
    static func assign<Row>(registered: [Int: Registry.Entry<Row>], _ entities: [(keys: [String], fixedID: Int?)]) -> [Int] {
        var result = [Int](repeating: 0, count: entities.count)
        var taken = Set<Int>()
        var maxFixed = 0
        for (i, e) in entities.enumerated() {
            guard let f = e.fixedID else { continue }
            maxFixed = max(maxFixed, f)
            if taken.insert(f).inserted { result[i] = f }
        }
        // The rest in key order, so file order never decides who keeps an ID.
        let firstKey = entities.map { $0.keys.min() ?? "" }
        let order = entities.indices.filter { result[$0] == 0 }.sorted { firstKey[$0] < firstKey[$1] }
        guard !order.isEmpty else { return result }
        let (keyToID, maxRegistered) = Registry.keyToID(registered)
        var maxID = max(maxRegistered, maxFixed)
        for i in order {
            if let id = entities[i].keys.compactMap({ keyToID[$0] }).filter({ !taken.contains($0) }).min() {
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
