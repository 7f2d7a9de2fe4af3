import StationCore

/// Who is who: this run's operators, lines and stations linked to the IDs the registry
/// remembers (every ID ever published, with its last name, place, operator, kind and lines),
/// so that an ID once published keeps naming the same thing (users' records are
/// keyed by s_id). Record linkage over the whole network and its whole history at once:
///
/// - **Operators** by what they are: the stations they run, their formal name (the
///   upstream's `name_formal` is what masters write) and, last, their code: two codes
///   swapped while every station stays with its named company change nothing.
/// - **Lines** by a key, else by the stations they serve, whatever their name, else by
///   their name under the same operator.
/// - **Stations**: a native master's s_ids are its own; a maintainer's decision in
///   raw/identity.csv comes next (IdentityDecisions). Every other station is weighed by the one
///   evidence model (IdentityModel) against every registered s_id the evidence points at, live
///   or retired, and paired one to one by the greatest total weight (Assignment). A pair is made
///   only when it links and no free candidate comes within the margin of it, on either side.
///   A registered s_id left without a station whose station plainly lives on as another s_id's
///   (a line handed to another operator a release early, two operators folded into one) merges
///   into it: the bundle carries its users' records there (renumbered_stations). Two candidates
///   that compete leave it for the maintainer.
/// - What is left gets a new ID above every ID ever registered; what the registry had and
///   no station took is published disabled, as last seen.
enum IdentityLinker {
    /// How far a maintainer's decision looks for the station it names.
    static let decisionReachMetres = 5_000.0

    struct Input {
        var operators: [MergedOperator]
        var lines: [MergedLine]
        var stations: [MergedStation]
        var stationLines: [MergedStationLine]
    }

    struct IDs {
        var operators: [Int]
        var lines: [Int]
        var stations: [Int]
        /// Registered s_ids retired into another station, by a decision or by the evidence.
        var merged: [Renumbering] = []
        /// The decisions this run applied (an s_id the evidence alone would not have given that way).
        var applied: [IdentityDecision] = []
        /// Registered s_ids no station took because two candidates compete: the stations (run indexes).
        var ambiguous: [Int: [Int]] = [:]
    }

    /// `fixed`: the s_ids raw/fixes.csv changes by s_id, whose registered name and place are
    /// the maintainer's, not the sources': a source's key is their evidence.
    static func link(_ input: Input, registry: Registry, decisions: [IdentityDecision], fixed: Set<Int> = [],
                     model: IdentityModel = .estimated, registered: Registered? = nil) throws -> IDs {
        let run = Run(input, registry: registry, registered: registered)
        let operators = run.linkOperators()
        let lines = run.linkLines(operators: operators)
        return try run.linkStations(operators: operators, lines: lines, decisions: decisions, fixed: fixed, model: model)
    }

    /// The registry's stations as the evidence reads them: one side, with each one's s_id, and
    /// each of its lines' l_id.
    struct Registered: Sendable {
        let side: IdentitySide
        let ids: [Int]
        let index: [Int: Int]
        let lineIDs: [Int]

        /// The registry's stations, or nil when it has none (a first version: nothing to review).
        static func of(_ registry: Registry) -> Registered? { registry.contains(anyOf: .station) ? Registered(registry) : nil }

        init(_ registry: Registry) {
            ids = registry.ids(.station)
            lineIDs = registry.ids(.line)
            let lineIndex = Dictionary(uniqueKeysWithValues: lineIDs.enumerated().map { ($1, $0) })
            side = IdentitySide(registry.identityStations(ids, lineIndex: lineIndex))
            index = Dictionary(uniqueKeysWithValues: ids.enumerated().map { ($1, $0) })
        }
    }

    /// One run's linkage: the sources' entities, the registry, and what is worked out once.
    final class Run {
        let input: Input
        let registry: Registry
        /// Each station's lines (indexes into input.lines), and each line's stations.
        lazy var linesOfStation: [[Int]] = {
            var out = [[Int]](repeating: [], count: input.stations.count)
            for x in input.stationLines { out[x.stationIndex].append(x.lineIndex) }
            return out
        }()
        lazy var stationsOfLine: [[Int]] = {
            var out = [[Int]](repeating: [], count: input.lines.count)
            for x in input.stationLines { out[x.lineIndex].append(x.stationIndex) }
            return out
        }()
        // Ingest's, made beside the sources; made here when a caller gives none.
        private var given: Registered?
        lazy var registered: Registered = given ?? Registered(registry)
        /// This run's stations as the evidence reads them (operators filled in once linked).
        lazy var side = IdentitySide(input.stations.indices.map { i in
            let s = input.stations[i]
            return IdentityStation(name: s.name, yomi: s.yomi ?? "", lat: s.lat, lng: s.lng, operatorID: -1,
                                   shinkansen: ShinkansenKey.marks(s.keys) || linesOfStation[i].contains { input.lines[$0].type == LineType.shinkansen },
                                   enabled: s.enabled ?? true, keys: s.identityKeys, lines: linesOfStation[i])
        })

        init(_ input: Input, registry: Registry, registered: Registered?) {
            self.input = input
            self.registry = registry
            given = registered
        }

        func metres(_ i: Int, _ r: Int) -> Double {
            MicroDegrees.distanceMetres(lat1: side.stations[i].lat, lng1: side.stations[i].lng,
                                        lat2: registered.side.stations[r].lat, lng2: registered.side.stations[r].lng)
        }

        // MARK: - Name and place alone: what operators and lines are linked by

        private var votesCache: [(station: Int, id: Int, weight: Double)]?

        /// Each station of this run paired with the registered stations of its kind and base
        /// name within a kilometre, each pairing weighed 1/k among its k: who runs and serves
        /// which stations, whatever the operators and lines are called.
        func nameVotes() -> [(station: Int, id: Int, weight: Double)] {
            if let votesCache { return votesCache }
            var out: [(station: Int, id: Int, weight: Double)] = []
            for i in input.stations.indices {
                let s = side.stations[i]
                let near = registered.side.candidates(for: s).filter {
                    let r = registered.side.stations[$0]
                    return r.base == s.base && r.shinkansen == s.shinkansen && metres(i, $0) <= 1_000
                }
                for r in near { out.append((i, registered.ids[r], 1 / Double(near.count))) }
            }
            votesCache = out
            return out
        }

        func registered(id: Int) -> IdentityStation? { registered.index[id].map { registered.side.stations[$0] } }

        // MARK: - Operators

        /// Each operator weighed against every registered one by the stations it runs (the share
        /// of them that name that one's stations, up to 8), its formal name (6) and its code
        /// (3), paired best first: a code is the weakest evidence, since sources swap them.
        func linkOperators() -> [Int] {
            let ops = input.operators
            var linking = Linking(.operator_, registry: registry, keys: ops.map(\.keys), fixedIDs: ops.map(\.fixedID))
            let left = linking.left
            guard !left.isEmpty else { return linking.numbered() }
            var weights: [Int: [Int: Double]] = [:]
            for i in left { for k in ops[i].keys { if let id = linking.keyToID[k], !linking.taken.contains(id) { weights[i, default: [:]][id, default: 0] += 3 } } }
            var byName: [String: [Int]] = [:]
            for id in registry.ids(.operator_) where !linking.taken.contains(id) {
                byName[OperatorName.formal(registry.name(.operator_, id)), default: []].append(id)
            }
            for i in left {
                let names = Set(([ops[i].name] + ops[i].otherNames).map(OperatorName.formal))
                for id in Set(names.flatMap { byName[$0] ?? [] }) { weights[i, default: [:]][id, default: 0] += 6 }
            }
            let wanted = Set(left)
            var runs: [Int: Double] = [:], votes: [Int: [Int: Double]] = [:]
            for i in input.stations.indices where wanted.contains(input.stations[i].operatorIndex) { runs[input.stations[i].operatorIndex, default: 0] += 1 }
            for v in nameVotes() where wanted.contains(input.stations[v.station].operatorIndex) {
                guard let r = registered(id: v.id), !linking.taken.contains(r.operatorID) else { continue }
                votes[input.stations[v.station].operatorIndex, default: [:]][r.operatorID, default: 0] += v.weight
            }
            for (i, byID) in votes { for (id, v) in byID { weights[i, default: [:]][id, default: 0] += 8 * v / runs[i]! } }
            for (i, id) in Self.bestPairs(weights, accept: { _, best in best >= 3 }) where !linking.taken.contains(id) { linking.pair(i, id) }
            return linking.numbered()
        }

        // MARK: - Lines

        func linkLines(operators operatorIDs: [Int]) -> [Int] {
            let lines = input.lines
            var linking = Linking(.line, registry: registry, keys: lines.map(\.keys), fixedIDs: lines.map(\.fixedID))
            linking.pairByKeys(lines.map(\.keys))
            // The stations it serves, whatever its name: at least half of both lines' stations in common.
            var left = linking.left
            if !left.isEmpty, registry.ids(.line).contains(where: { !linking.taken.contains($0) }) {
                var registeredSize: [Int: Int] = [:]
                for id in registry.ids(.station) { for l in registry.lines(station: id) { registeredSize[l, default: 0] += 1 } }
                let wanted = Set(left)
                // Each station's votes go to the registered stations of its own operator, now that
                // operators are linked, when it has any among them (近鉄's closed 内部線 and
                // あすなろう's serve the same places).
                var votesOf: [Int: [Int]] = [:]
                for v in nameVotes() { votesOf[v.station, default: []].append(v.id) }
                var shared: [Int: [Int: Double]] = [:]
                for station in votesOf.keys.sorted() {
                    let ids = votesOf[station]!
                    let ons = linesOfStation[station].filter { wanted.contains($0) }
                    guard !ons.isEmpty else { continue }
                    let own = ids.filter { registered(id: $0)?.operatorID == operatorIDs[input.stations[station].operatorIndex] }
                    let voters = own.isEmpty ? ids : own
                    for id in voters {
                        let served = registered.side.stations[registered.index[id]!].lines.map { registered.lineIDs[$0] }
                        for l in ons { for m in served where !linking.taken.contains(m) { shared[l, default: [:]][m, default: 0] += 1 / Double(voters.count) } }
                    }
                }
                // Dice's coefficient of the two lines' stations.
                var dice: [Int: [Int: Double]] = [:]
                for (l, byLine) in shared {
                    for (m, common) in byLine { dice[l, default: [:]][m] = 2 * common / Double(stationsOfLine[l].count + (registeredSize[m] ?? 0)) }
                }
                for (i, id) in Self.bestPairs(dice, accept: { _, best in best >= 0.5 }) where !linking.taken.contains(id) {
                    linking.pair(i, id)
                }
                left = linking.left
            }
            // Its name under the same operator, one to one.
            if !left.isEmpty {
                var byName: [String: [Int]] = [:]
                for id in registry.ids(.line) where !linking.taken.contains(id) {
                    if let row = registry.row(line: id) { byName["\(row.operatorID)|" + OperatorName.normalized(row.name), default: []].append(id) }
                }
                for i in left {
                    let names = Set(([lines[i].name] + lines[i].otherNames).map { "\(operatorIDs[lines[i].operatorIndex])|" + OperatorName.normalized($0) })
                    let ids = Set(names.flatMap { byName[$0] ?? [] }).filter { !linking.taken.contains($0) }
                    if ids.count == 1, let id = ids.first { linking.pair(i, id) }
                }
            }
            return linking.numbered()
        }

        /// From each entity's weights for registered IDs, one to one: the best weights first
        /// (then entity and ID order), each entity's best only when `accept(total, best)`.
        static func bestPairs(_ weights: [Int: [Int: Double]], accept: (Double, Double) -> Bool) -> [(Int, Int)] {
            var pairs: [(entity: Int, id: Int, weight: Double)] = []
            for (entity, byID) in weights {
                let total = byID.values.sorted().reduce(0, +)
                for (id, w) in byID where accept(total, w) { pairs.append((entity, id, w)) }
            }
            pairs.sort { ($1.weight, $0.entity, $0.id) < ($0.weight, $1.entity, $1.id) }
            var doneEntities = Set<Int>(), doneIDs = Set<Int>(), out: [(Int, Int)] = []
            for p in pairs where !doneEntities.contains(p.entity) && !doneIDs.contains(p.id) {
                doneEntities.insert(p.entity)
                doneIDs.insert(p.id)
                out.append((p.entity, p.id))
            }
            return out
        }

        /// One kind's linking as it goes: the ID each entity has found, the IDs taken, and the
        /// order the rest are looked at in (by their keys, so file order never decides).
        struct Linking {
            var result: [Int?]
            var taken = Set<Int>()
            let order: [Int]
            let keyToID: [String: Int]
            /// New IDs go above every ID ever registered and every fixed one.
            let above: Int

            /// A native master's IDs first: they are its own (and when they are all, the registry's
            /// keys are not looked at).
            init(_ kind: Registry.Kind, registry: Registry, keys: [[String]], fixedIDs: [Int?]) {
                var result = [Int?](repeating: nil, count: keys.count)
                for (i, f) in fixedIDs.enumerated() { if let f, taken.insert(f).inserted { result[i] = f } }
                self.result = result
                order = keys.indices.filter { result[$0] == nil }.sorted { (keys[$0].min() ?? "") < (keys[$1].min() ?? "") }
                let (keyToID, maxRegistered) = order.isEmpty ? ([:], 0) : registry.keyToID(kind)
                self.keyToID = keyToID
                above = max(maxRegistered, fixedIDs.compactMap { $0 }.max() ?? 0)
            }

            var left: [Int] { order.filter { result[$0] == nil } }

            mutating func pair(_ i: Int, _ id: Int) {
                result[i] = id
                taken.insert(id)
            }

            /// Each entity still without an ID takes the smallest registered ID of its keys not taken.
            mutating func pairByKeys(_ keys: [[String]]) {
                for i in left { if let id = keys[i].compactMap({ keyToID[$0] }).filter({ !taken.contains($0) }).min() { pair(i, id) } }
            }

            /// The IDs found, and new ones for the rest, in order.
            func numbered() -> [Int] {
                var result = result, next = above
                for i in order where result[i] == nil {
                    next += 1
                    result[i] = next
                }
                return result.map { $0! }
            }
        }

        // MARK: - Stations

        func linkStations(operators operatorIDs: [Int], lines lineIDs: [Int], decisions: [IdentityDecision], fixed: Set<Int>,
                          model: IdentityModel) throws -> IDs {
            let stations = input.stations
            var linking = Linking(.station, registry: registry, keys: stations.map(\.keys), fixedIDs: stations.map(\.fixedID))
            // A native master's run: every s_id its own.
            if linking.order.isEmpty && decisions.isEmpty {
                return IDs(operators: operatorIDs, lines: lineIDs, stations: linking.numbered())
            }
            // Once, whole: each write through the lazy property would copy every station.
            var linked = side.stations
            for i in stations.indices { linked[i].operatorID = operatorIDs[stations[i].operatorIndex] }
            side.stations = linked
            let old = registered.side, sides = IdentitySides(old: old, new: side)
            // A fixed s_id's registered name and place are the fix's: its source's station is weighed as it comes.
            func weigh(_ r: Int, _ i: Int) -> IdentityModel.Weight {
                guard fixed.contains(registered.ids[r]) else { return model.weigh(sides, r, i) }
                var mended = old.stations[r]
                (mended.name, mended.base, mended.lat, mended.lng) = (side.stations[i].name, side.stations[i].base, side.stations[i].lat, side.stations[i].lng)
                return model.weigh(mended, side.stations[i], sides)
            }
            var retired = Set<Int>(), applied: [IdentityDecision] = []
            var ids = IDs(operators: operatorIDs, lines: lineIDs, stations: [])
            // An s_id a version merged into another stays merged: every version lists the pair.
            for id in registered.ids { for into in registry.merged(station: id) { retired.insert(id); ids.merged.append(Renumbering(newID: into, oldID: id, version: 0)) } }
            let merges = try decide(decisions, linking: &linking, retired: &retired, applied: &applied, fixed: fixed, weigh: weigh)
            // Every other station against the registered s_ids the evidence points at.
            let open = Set(linking.left)
            var edges: [(station: Int, row: Int, score: Double)] = []
            for i in open.sorted() {
                for r in old.candidates(for: side.stations[i]) where !linking.taken.contains(registered.ids[r]) && !retired.contains(registered.ids[r]) {
                    let w = weigh(r, i).total
                    if w >= model.link { edges.append((i, r, w)) }
                }
            }
            let (pairs, contested) = Assignment.best(edges, margin: model.margin)
            for p in pairs { linking.pair(p.station, registered.ids[p.row]) }
            for (r, competing) in contested where !linking.taken.contains(registered.ids[r]) { ids.ambiguous[registered.ids[r]] = competing }
            ids.stations = linking.numbered()
            // A registered s_id left without a station (a live one, not a native master's or decided)
            // merges into the station at its place it plainly lives on as, when that station has an s_id of its
            // own; into each, when several compete that all have (a station passed to two operators
            // at once, each running part of its line). A new station among them is the maintainer's to decide.
            let given = Set(ids.stations), fixedIDs = Set(stations.compactMap(\.fixedID)), paired = Set(pairs.map(\.station))
            for (r, id) in registered.ids.enumerated() where old.stations[r].enabled && !given.contains(id) && !retired.contains(id)
                && !fixedIDs.contains(id) && ids.ambiguous[id] == nil {
                let a = old.stations[r]
                let ranked = side.candidates(for: a).filter { side.stations[$0].enabled && StationCore.metres(a, side.stations[$0]) <= IdentityModel.samePlaceMetres }
                    .map { (i: $0, w: weigh(r, $0).total) }
                    .sorted { ($1.w, $0.i) < ($0.w, $1.i) }
                guard let best = ranked.first, best.w >= model.link else { continue }
                let heirs = ranked.filter { $0.w > best.w - model.margin }.map(\.i)
                if heirs.contains(where: { open.contains($0) && !paired.contains($0) }) {
                    ids.ambiguous[id] = heirs
                } else {
                    ids.merged += heirs.map { Renumbering(newID: ids.stations[$0], oldID: id, version: 0) }
                }
            }
            ids.merged += try survivors(of: merges, ids: ids.stations, retired: retired)
            ids.applied = applied
            return ids
        }

        /// Applies raw/identity.csv: `same` pairs an s_id with the station its `expect` describes
        /// among those the evidence points at, whatever the keys say; `new` retires it; `merge`
        /// retires it into the station its `expect` describes (returned: the survivor is found once
        /// every station has its s_id). A decision the evidence alone settles the same way is
        /// history (applied by a published version, or no longer needed): it is not applied, and
        /// its `expect` is held only against the registry's memory of the station. Every wrong row
        /// is an error at its line, all of them at once.
        func decide(_ decisions: [IdentityDecision], linking: inout Linking, retired: inout Set<Int>, applied: inout [IdentityDecision],
                    fixed: Set<Int>, weigh: (Int, Int) -> IdentityModel.Weight) throws -> [IdentityDecision] {
            var problems = DiagnosticCollector(limit: .max)
            var merges: [IdentityDecision] = []
            let s = input.stations
            func operatorOf(_ i: Int) -> Int { side.stations[i].operatorID }
            func meets(_ expect: StationExpectation, _ i: Int) -> Bool {
                expect.isMet(name: s[i].name, operatorID: operatorOf(i), pref: s[i].pref, enabled: s[i].enabled ?? true)
            }
            for d in decisions.sorted(by: { ($0.location.line ?? 0) < ($1.location.line ?? 0) }) {
                let at = { (field: String) in SourceLocation(file: d.location.file, line: d.location.line, field: field) }
                guard let r = registered.index[d.stationID] else {
                    problems.add(at("s_id"), "s_id \(d.stationID) was never published (raw/registry.csv has no such station); correct the s_id")
                    continue
                }
                let was = registered.side.stations[r]
                let remembered = registry.decision(station: d.stationID) == d.memory
                // A native master's s_ids are its own: a decision can only consent to what it says.
                if let i = s.indices.first(where: { s[$0].fixedID == d.stationID }) {
                    if d.kind != .same {
                        problems.add(at("decision"), "s_id \(d.stationID) is \(shown(s[i].name)) in \(s[i].origin.file), whose s_ids are its own: give the station another s_id there, not here")
                    } else if !meets(d.expect, i) && !remembered {
                        problems.add(at("expect"), "s_id \(d.stationID) is \(shown(s[i].name)) (o_id \(operatorOf(i))) in \(s[i].origin.file), not \(d.expect): check the s_id (a mistyped one?)")
                    } else {
                        applied.append(d)
                    }
                    continue
                }
                switch d.kind {
                case .new, .merge:
                    let row = registry.row(station: d.stationID)
                    guard d.kind == .merge || remembered || d.expect.isMet(name: was.name, operatorID: was.operatorID, pref: row?.pref, enabled: was.enabled) else {
                        problems.add(at("expect"), "s_id \(d.stationID) was published as \(shown(was.name)) (o_id \(was.operatorID)), not \(d.expect): check the s_id (a mistyped one?)")
                        continue
                    }
                    retired.insert(d.stationID)
                    applied.append(d)
                    if d.kind == .merge { merges.append(d) }
                case .same where fixed.contains(d.stationID):
                    // The fixes give it its name and place: `expect` is held against the station as they leave it.
                    applied.append(d)
                case .same:
                    // The station the maintainer names among those the evidence points at, whatever its keys say.
                    let named = side.candidates(for: was).filter { linking.result[$0] == nil && meets(d.expect, $0) && metres($0, r) <= decisionReachMetres }
                    if let i = named.max(by: { (weigh(r, $0).total, -$0) < (weigh(r, $1).total, -$1) }) {
                        linking.pair(i, d.stationID)
                        applied.append(d)
                    } else if !remembered {
                        let near = side.candidates(for: was).prefix(5).map { "\(shown(s[$0].name)) (o_id \(operatorOf($0)))" }
                        problems.add(at("expect"), "no station of this run near s_id \(d.stationID) (\(shown(was.name))) is \(d.expect)"
                                     + (near.isEmpty ? "; there is none near it" : "; the nearest are \(near.joined(separator: ", "))"))
                    }
                }
            }
            try problems.check()
            return merges
        }

        /// The station each `merge` retires its s_id into: the one live station of this run within
        /// 5 km that its `expect` describes, keeping an s_id of its own (no other decision retires
        /// it, and it is not the station the source still gives the merged s_id or another that a
        /// decision retires): no loop, no chain, no merge into itself.
        func survivors(of merges: [IdentityDecision], ids: [Int], retired: Set<Int>) throws -> [Renumbering] {
            var problems = DiagnosticCollector(limit: .max), out: [Renumbering] = []
            let s = input.stations
            var holder: [String: Int] = [:]
            for id in retired { for k in registered.side.stations[registered.index[id]!].keys { holder[k] = id } }
            for d in merges {
                let at = SourceLocation(file: d.location.file, line: d.location.line, field: "expect")
                let r = registered.index[d.stationID]!
                if let i = s.indices.first(where: { s[$0].identityKeys.contains { holder[$0] == d.stationID } }) {
                    problems.add(at, "the source still gives s_id \(d.stationID)'s station (\(shown(s[i].name)), o_id \(side.stations[i].operatorID)): "
                                 + "a merge would give it a new s_id; decide same for it, or new")
                    continue
                }
                let named = s.indices.filter {
                    (s[$0].enabled ?? true) && metres($0, r) <= decisionReachMetres
                        && d.expect.isMet(name: s[$0].name, operatorID: side.stations[$0].operatorID, pref: s[$0].pref, enabled: true)
                }
                guard named.count == 1, let i = named.first else {
                    if named.isEmpty, registry.decision(station: d.stationID) == d.memory { continue }
                    problems.add(at, named.isEmpty ? "no live station of this run within 5 km of s_id \(d.stationID) (\(shown(registered.side.stations[r].name))) is \(d.expect), the station it merges into"
                                 : "\(named.count) live stations within 5 km are \(d.expect): "
                                 + named.map { "\(shown(s[$0].name)) (o_id \(side.stations[$0].operatorID), s_id \(ids[$0]))" }.joined(separator: ", ") + "; name one, with o_id=")
                    continue
                }
                if let other = s[i].identityKeys.compactMap({ holder[$0] }).first {
                    problems.add(at, "\(shown(s[i].name)) is s_id \(other)'s own station, which a decision retires: a survivor keeps its own s_id (no chain, no loop)")
                    continue
                }
                out.append(Renumbering(newID: ids[i], oldID: d.stationID, version: 0))
            }
            try problems.check()
            return out
        }
    }
}

extension OperatorName {
    /// An operator's name as masters write it formally: no 株式会社 or its abbreviations.
    static func formal(_ name: String) -> String {
        var s = normalized(name)
        for legal in ["株式会社", "(株)", "有限会社", "(有)"] { s = s.replacing(legal, with: "") }
        return s
    }
}
