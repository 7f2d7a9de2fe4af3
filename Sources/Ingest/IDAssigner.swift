import StationModel

/// Gives each merged entity its ID: a fixed ID from the native master first,
/// else the smallest registered ID among its keys not taken by another
/// entity this run, else a new ID above everything ever registered.
enum IDAssigner {
    /// `entities` are (keys, fixedID); returns IDs in the same order.
    static func assign(_ kind: Registry.Kind, registered: Registry, _ entities: [(keys: [String], fixedID: Int?)]) -> [Int] {
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
        let (keyToID, maxRegistered) = registered.keyToID(kind)
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
