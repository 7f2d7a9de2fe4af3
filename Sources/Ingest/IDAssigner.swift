import StationModel

/// Gives each merged entity its ID, so that an ID once published keeps naming
/// the same thing (users' records are keyed by s_id):
/// 1. its fixed ID from the native master;
/// 2. else the smallest registered ID among its keys that no other entity took
///    this run. A source's code is not an identity: ekidata's and N02's station
///    codes are handed to other stations between releases. So a station's code
///    key counts only while the registered row still is that station, by name or
///    within `samePlaceMetres`; the upstream's own `id` counts alone;
/// 3. else a registered ID that nothing took this run, of the same entity by
///    what it is rather than by a key (`matchByLikeness`): this keeps every s_id
///    when raw/ moves to a source whose keys the registry has never seen;
/// 4. else a new ID above everything ever registered.
enum IDAssigner {
    /// How far apart two records of one station may be (the 300 m).
    static let samePlaceMetres = 300.0

    struct Entity {
        var keys: [String]
        var fixedID: Int?
        /// Its name and any other the source gives (normalised when compared).
        var names: [String]
        var operatorID: Int?
        var place: (lat: Int, lng: Int)?
        var enabled = true
        /// Its keys that name it for good: every key of an operator or a line (their codes
        /// are not handed on), a station's only when its source says so (the upstream's `id`).
        var identityKeys: [String] = []
        /// A Shinkansen station (its key says so: ShinkansenKey), never the twin of a conventional one.
        var shinkansen = false
    }

    /// Returns IDs in the order of `entities`.
    static func assign(_ kind: Registry.Kind, registered: Registry, _ entities: [Entity]) -> [Int] {
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
        for i in order {
            let e = entities[i]
            // The smallest ID among the keys', each ID looked at once (N02's and ekidata's
            // stations carry several codes of one ID).
            var byID: [Int: Bool] = [:]
            for key in e.keys { if let id = keyToID[key], !taken.contains(id) { byID[id] = (byID[id] ?? false) || isIdentity(key, kind, e) } }
            if let id = byID.keys.sorted().first(where: { byID[$0]! || sameEntity(e, registered, $0) }) {
                result[i] = id
                taken.insert(id)
            }
        }
        let unmatched = order.filter { result[$0] == 0 }
        if !unmatched.isEmpty {
            for (i, id) in matchByLikeness(kind, unmatched, entities, registered, taken: taken) {
                result[i] = id
                taken.insert(id)
            }
        }
        var maxID = max(maxRegistered, maxFixed)
        for i in order where result[i] == 0 {
            maxID += 1
            result[i] = maxID
        }
        return result
    }

    static func isIdentity(_ key: String, _ kind: Registry.Kind, _ entity: Entity) -> Bool {
        kind != .station || entity.identityKeys.contains(key)
    }

    /// Whether the registered station `id` is still `entity`: a Shinkansen station or not
    /// alike, and the same name or place.
    static func sameEntity(_ entity: Entity, _ registry: Registry, _ id: Int) -> Bool {
        guard let row = registry.row(station: id), ShinkansenKey.marks(registry.keys(.station, id) ?? []) == entity.shinkansen else { return false }
        return entity.names.contains { StationName.base($0) == StationName.base(row.name) }
            || entity.place.map { MicroDegrees.distanceMetres(lat1: $0.lat, lng1: $0.lng, lat2: row.lat, lng2: row.lng) <= samePlaceMetres } ?? false
    }

    /// Step 3: each unmatched entity's registered twin among the IDs not taken, as (entity, ID)
    /// pairs. First by name: the same name (a station's without what brackets add, within
    /// `nameMatchDistanceMetres`: a station rebuilt down the road keeps its s_id). Then, for a
    /// live station still unmatched, a live registered one of its operator within
    /// `samePlaceMetres` under another name: a station renamed where it stands (仲木戸 ->
    /// 京急東神奈川). Either way of the same operator, or of one that no entity has this run
    /// (the operator was renamed); never a station of an operator still running, so a record
    /// never moves to another operator's station. Best pairs first: nearer, then entity and ID order.
    static func matchByLikeness(_ kind: Registry.Kind, _ unmatched: [Int], _ entities: [Entity], _ registry: Registry,
                                taken: Set<Int>) -> [(Int, Int)] {
        struct Row { var id: Int, name: String, operatorID: Int?, lat = 0, lng = 0, enabled = true, shinkansen = false }
        var rows: [Row] = []
        for id in registry.ids(kind) where !taken.contains(id) {
            switch kind {
            case .operator_: rows.append(Row(id: id, name: registry.name(kind, id), operatorID: nil))
            case .line: if let l = registry.row(line: id) { rows.append(Row(id: id, name: l.name, operatorID: l.operatorID)) }
            case .station:
                if let s = registry.row(station: id) {
                    rows.append(Row(id: id, name: s.name, operatorID: s.operatorID, lat: s.lat, lng: s.lng, enabled: s.enabled,
                                    shinkansen: ShinkansenKey.marks(registry.keys(kind, id) ?? [])))
                }
            }
        }
        if rows.isEmpty { return [] }
        func nameKey(_ name: String) -> String { kind == .station ? StationName.base(name) : OperatorName.normalized(name) }
        let operatorsNow = Set(entities.compactMap(\.operatorID))
        var matched: [(Int, Int)] = [], doneEntities = Set<Int>(), usedRows = Set<Int>()
        // A station of the entity's own operator before one of an operator gone this run.
        struct Pair { var otherOperator: Bool, metres: Double, rank: Int, entity: Int, row: Int }
        func order(_ p: Pair) -> (Int, Double, Int, Int) { (p.otherOperator ? 1 : 0, p.metres, p.rank, rows[p.row].id) }
        func take(_ pairs: [Pair]) {
            for p in pairs.sorted(by: { order($0) < order($1) })
            where !doneEntities.contains(p.entity) && !usedRows.contains(p.row) {
                doneEntities.insert(p.entity)
                usedRows.insert(p.row)
                matched.append((p.entity, rows[p.row].id))
            }
        }
        // The pair of an entity and a row it may take, or nil.
        func admissible(_ rank: Int, _ i: Int, _ r: Int, within limit: Double) -> Pair? {
            let e = entities[i], row = rows[r]
            let otherOperator = e.operatorID != row.operatorID
            guard !otherOperator || !operatorsNow.contains(row.operatorID ?? -1), e.shinkansen == row.shinkansen else { return nil }
            guard let p = e.place else { return Pair(otherOperator: otherOperator, metres: 0, rank: rank, entity: i, row: r) }
            let metres = MicroDegrees.distanceMetres(lat1: p.lat, lng1: p.lng, lat2: row.lat, lng2: row.lng)
            return metres <= limit ? Pair(otherOperator: otherOperator, metres: metres, rank: rank, entity: i, row: r) : nil
        }
        let rowsByName = Dictionary(grouping: rows.indices) { nameKey(rows[$0].name) }
        var byName: [Pair] = []
        for (rank, i) in unmatched.enumerated() {
            for r in Set(entities[i].names.map(nameKey)).sorted().flatMap({ rowsByName[$0] ?? [] }) {
                if let pair = admissible(rank, i, r, within: nameMatchDistanceMetres) { byName.append(pair) }
            }
        }
        take(byName)
        guard kind == .station else { return matched }
        let liveRows = rows.indices.filter { rows[$0].enabled && !usedRows.contains($0) }
        var renamed: [Pair] = []
        for (rank, i) in unmatched.enumerated() where entities[i].enabled && !doneEntities.contains(i) {
            for r in liveRows {
                if let pair = admissible(rank, i, r, within: samePlaceMetres) { renamed.append(pair) }
            }
        }
        take(renamed)
        return matched
    }
}
