import Foundation
import StationModel

// The ID registry (raw/registry.csv) is what keeps s_id, l_id and o_id
// meaning the same thing across runs: clients key users' records by s_id.
// It maps every external key a source ever used to our ID, and keeps the last
// published row of each ID so that an entity that vanishes from the sources
// can still be published, disabled, under its old ID. IDs are never reused:
// a new entity gets one above every ID the registry has ever held.

public struct Registry: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable { case operator_ = "operator", line, station }

    public var operators: [Int: (keys: [String], row: Operator)] { get { _operators } }
    public var lines: [Int: (keys: [String], row: Line)] { get { _lines } }
    public var stations: [Int: (keys: [String], row: Station)] { get { _stations } }

    var _operators: [Int: (keys: [String], row: Operator)] = [:]
    var _lines: [Int: (keys: [String], row: Line)] = [:]
    var _stations: [Int: (keys: [String], row: Station)] = [:]

    public init() {}

    public static let fileName = "registry.csv"
    static let columns = ["kind", "id", "keys", "name", "o_id", "type", "enabled", "yomi", "wiki", "pref", "address", "lat", "lng"]
    /// Keys are joined with this; sources' keys never contain it.
    static let keySeparator: Character = "|"

    public static func == (a: Registry, b: Registry) -> Bool { a.csvText() == b.csvText() }

    public var isEmpty: Bool { _operators.isEmpty && _lines.isEmpty && _stations.isEmpty }

    public static func load(path: String) throws -> Registry {
        guard FileManager.default.fileExists(atPath: path) else { return Registry() }
        let table = try CSVReader.read(path: path)
        try table.require(columns)
        var r = Registry()
        var problems = DiagnosticCollector()
        for row in table.rows() {
            guard let id = row.int("id", &problems) else { continue }
            let keys = row.string("keys").split(separator: keySeparator).map(String.init)
            let enabled = row.bool("enabled", default: true, &problems)
            switch row.string("kind") {
            case Kind.operator_.rawValue:
                guard let type = row.int("type", &problems) else { continue }
                if r._operators[id] != nil { problems.add(row.location("id"), "duplicate operator id \(id)") }
                r._operators[id] = (keys, Operator(id: id, name: row.string("name"), type: type, enabled: enabled))
            case Kind.line.rawValue:
                guard let o = row.int("o_id", &problems) else { continue }
                if r._lines[id] != nil { problems.add(row.location("id"), "duplicate line id \(id)") }
                r._lines[id] = (keys, Line(id: id, name: row.string("name"), operatorID: o, enabled: enabled, type: row.optionalInt("type", &problems)))
            case Kind.station.rawValue:
                guard let o = row.int("o_id", &problems), let pref = row.int("pref", &problems),
                      let lat = row.int("lat", &problems), let lng = row.int("lng", &problems) else { continue }
                if r._stations[id] != nil { problems.add(row.location("id"), "duplicate station id \(id)") }
                r._stations[id] = (keys, Station(id: id, name: row.string("name"), yomi: row.string("yomi"), wiki: row.string("wiki"),
                                                 pref: pref, address: row.string("address"), lat: lat, lng: lng, operatorID: o, enabled: enabled))
            case let k:
                problems.add(row.location("kind"), "expected operator, line or station, found '\(k)'")
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
    public func write(path: String) throws {
        let text = csvText()
        if let old = FileManager.default.contents(atPath: path), old == Data(text.utf8) { return }
        try AtomicFile.write(text, to: path)
    }
}

/// Gives each merged entity its ID: a fixed ID from the native master first,
/// else the smallest registered ID among its keys not taken by another
/// entity this run, else a new ID above everything ever registered.
struct IDAssigner {
    var keyToID: [String: Int]
    var maxID: Int

    init(registered: [Int: [String]], fixedIDs: [Int]) {
        var map: [String: Int] = [:]
        for id in registered.keys.sorted() {
            for k in registered[id]! where map[k] == nil { map[k] = id }
        }
        keyToID = map
        maxID = max(registered.keys.max() ?? 0, fixedIDs.max() ?? 0)
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
