import StationCore

/// Who is who: this run's operators, lines and stations linked to the IDs the registry
/// remembers (every ID ever published, with its last name, place, operator, kind and
/// lines), so that an ID once published keeps naming the same thing (users' records are
/// keyed by s_id). Record linkage over the whole network and its whole history at once:
///
/// - **Operators** by what they are: the stations they run, their formal name (the
///   upstream's `name_formal` is what masters write) and, last, their code: two codes
///   swapped while every station stays with its named company change nothing.
/// - **Lines** by a key, else by the stations they serve, whatever their name, else by
///   their name under the same operator.
/// - **Stations**: a native master's s_ids are its own (the build's review judges them,
///   IdentityReview); a maintainer's decision in raw/identity.csv comes next
///   (IdentityDecisions). Every other station is weighed against every registered s_id
///   the evidence points at (its keys, its name within 5 km, any within a kilometre that could link), live
///   or retired, by the one evidence model (IdentityEvidence), and paired one to one by the
///   greatest total weight (Assignment). A pair is made only when it links (at or above
///   the threshold, no contradiction) and clearly beats every free alternative, on either
///   side: what the evidence cannot prove gets a new s_id, and the registered one retires,
///   for the guards to show and the maintainer to decide.
/// - What is left gets a new ID above every ID ever registered; what the registry had and
///   no station took is published disabled, as last seen.
enum IdentityLinker {
    /// How far a maintainer's `same` looks for the station it names.
    static let decisionReachMetres = 5_000.0
    /// How far a same-named station may lie and be a candidate; any other within a kilometre is one.
    static let nameReachMetres = 5_000.0

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
        /// Registered s_ids a decision merges into another station: retired, never published again.
        var merged: [Renumbering] = []
        /// The decisions this run applied (an s_id the evidence alone would not have given that way).
        var applied: [IdentityDecision] = []
    }

    /// `fixed`: the s_ids raw/fixes.csv changes by s_id, whose registered name and place are
    /// the maintainer's, not the sources': a source's key is their evidence.
    static func link(_ input: Input, registry: Registry, decisions: [IdentityDecision], fixed: Set<Int> = []) throws -> IDs {
        let run = Run(input, registry: registry)
        let operators = run.linkOperators()
        let lines = run.linkLines(operators: operators)
        return try run.linkStations(operators: operators, lines: lines, decisions: decisions, fixed: fixed)
    }

    /// One run's linkage: the sources' entities, the registry, and what is worked out once.
    final class Run {
        let input: Input
        let registry: Registry
        // Worked out when first asked: a native master's run, its IDs all its own, needs none
        // of it (at 100 times national, a million arrays).
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
        /// Each station's neighbours along its lines (the stations before and after it).
        lazy var neighbours: [[Int]] = {
            var out = [[Int]](repeating: [], count: input.stations.count)
            var byLine = [[(sort: Int, station: Int)]](repeating: [], count: input.lines.count)
            for x in input.stationLines { byLine[x.lineIndex].append((x.sort, x.stationIndex)) }
            for var members in byLine {
                members.sort { ($0.sort, $0.station) < ($1.sort, $1.station) }
                for k in members.indices.dropFirst() where members[k - 1].station != members[k].station {
                    out[members[k].station].append(members[k - 1].station)
                    out[members[k - 1].station].append(members[k].station)
                }
            }
            return out
        }()
        /// Each station a Shinkansen one: its key says so, or it is on a Shinkansen line.
        lazy var shinkansen: [Bool] = input.stations.indices.map { i in
            ShinkansenKey.marks(input.stations[i].keys) || linesOfStation[i].contains { input.lines[$0].type == LineType.shinkansen }
        }

        init(_ input: Input, registry: Registry) {
            self.input = input
            self.registry = registry
        }

        // MARK: - The registered stations, as values, when a run needs them

        /// A registered station as the evidence reads it, made once (a class: each is looked
        /// up many times, and a value's copy would retain its every field each time).
        final class Registered {
            let id: Int
            let record: StationRecord
            let lines: Set<Int>
            /// The keys it is registered under.
            let keys: [String]
            var base: String { record.base! }

            init(id: Int, record: StationRecord, lines: Set<Int>, keys: [String]) {
                self.id = id; self.record = record; self.lines = lines; self.keys = keys
            }
        }

        /// Every registered station, in s_id order.
        private lazy var registeredList: [Registered] = registry.ids(.station).compactMap { id in
            registry.row(station: id).map { row in
                Registered(id: id, record: StationRecord(name: row.name, base: StationName.base(row.name), lat: row.lat, lng: row.lng, operatorID: row.operatorID,
                                                         shinkansen: registry.isShinkansen(station: id), enabled: row.enabled),
                           lines: Set(registry.lines(station: id)), keys: registry.keys(.station, id) ?? [])
            }
        }
        private lazy var registeredStations = Dictionary(uniqueKeysWithValues: registeredList.map { ($0.id, $0) })

        func registered(_ id: Int) -> Registered? { registeredStations[id] }

        private var baseCache: [String?]?
        /// A station's name without what brackets add, normalised (StationName.base).
        func base(_ i: Int) -> String {
            if baseCache == nil { baseCache = [String?](repeating: nil, count: input.stations.count) }
            if let b = baseCache![i] { return b }
            let b = StationName.base(input.stations[i].name)
            baseCache![i] = b
            return b
        }

        func metres(_ i: Int, _ r: Registered) -> Double {
            MicroDegrees.distanceMetres(lat1: input.stations[i].lat, lng1: input.stations[i].lng, lat2: r.record.lat, lng2: r.record.lng)
        }

        /// The registered stations by base name, and in cells of about a kilometre.
        private(set) lazy var registeredByName: [String: [Registered]] = Dictionary(grouping: registeredList, by: \.base)
        private(set) lazy var registeredCells = PointGrid(registeredList.map { ($0.record.lat, $0.record.lng) }, cellSize: Self.cellSize)
        static let cellSize = 15_000

        /// The registered stations within about a kilometre of a point (and some farther).
        func registeredNear(lat: Int, lng: Int) -> [Registered] {
            let c = registeredCells.cell(lat: lat, lng: lng)
            var out: [Registered] = []
            for dy in -1...1 {
                for dx in -1...1 { for p in registeredCells.points(row: c.row + dy, column: c.column + dx) { out.append(registeredList[Int(p)]) } }
            }
            return out
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
                let near = (registeredByName[base(i)] ?? []).filter { $0.record.shinkansen == shinkansen[i] && metres(i, $0) <= 1_000 }
                for r in near { out.append((i, r.id, 1 / Double(near.count))) }
            }
            votesCache = out
            return out
        }

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
                guard let r = registered(v.id), !linking.taken.contains(r.record.operatorID) else { continue }
                votes[input.stations[v.station].operatorIndex, default: [:]][r.record.operatorID, default: 0] += v.weight
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
                    let own = ids.filter { registered($0)?.record.operatorID == operatorIDs[input.stations[station].operatorIndex] }
                    let voters = own.isEmpty ? ids : own
                    for id in voters {
                        guard let r = registered(id) else { continue }
                        for l in ons { for m in r.lines where !linking.taken.contains(m) { shared[l, default: [:]][m, default: 0] += 1 / Double(voters.count) } }
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

        func linkStations(operators operatorIDs: [Int], lines lineIDs: [Int], decisions: [IdentityDecision], fixed: Set<Int>) throws -> IDs {
            let stations = input.stations
            var linking = Linking(.station, registry: registry, keys: stations.map(\.keys), fixedIDs: stations.map(\.fixedID))
            // A native master's run: every s_id its own.
            if linking.order.isEmpty && decisions.isEmpty {
                return IDs(operators: operatorIDs, lines: lineIDs, stations: linking.numbered())
            }
            let weigher = Weigher(run: self, operatorOf: stations.map { operatorIDs[$0.operatorIndex] },
                                  lineSets: linesOfStation.map { Set($0.map { lineIDs[$0] }) }, keyToID: linking.keyToID, fixed: fixed)

            // The maintainer's decisions, then every other station by the evidence.
            var retired = Set<Int>()
            var merged: [Renumbering] = [], applied: [IdentityDecision] = []
            let mergeDecisions = try decide(decisions, weigher: weigher, linking: &linking, retired: &retired, applied: &applied)
            let open = linking.left
            if !open.isEmpty {
                var edges: [(station: Int, row: Int, score: Double)] = []
                for i in open {
                    for id in weigher.candidates(i) where !linking.taken.contains(id) && !retired.contains(id) {
                        let w = weigher.weigh(i, id)
                        if w.links { edges.append((i, id, Double(w.total))) }
                    }
                }
                // A pair is proven only when no free station comes within the margin of it: two
                // stations nearly as like the s_id prove neither. Two s_ids for one station are a
                // merge: the better takes it, and the review names the other's survivor.
                let pairs = Assignment.best(edges)
                let pairedStations = Set(pairs.map(\.station))
                var byRow: [Int: [(station: Int, score: Double)]] = [:]
                for e in edges { byRow[e.row, default: []].append((e.station, e.score)) }
                for (i, id) in pairs {
                    let score = byRow[id]!.first { $0.station == i }!.score
                    // Another operator's row of the same station (its name, its place) is no rival.
                    let rival = byRow[id]!.contains { j, s in
                        j != i && !pairedStations.contains(j) && s > score - Double(IdentityEvidence.margin)
                            && (base(j) != base(i) || MicroDegrees.distanceMetres(lat1: stations[i].lat, lng1: stations[i].lng,
                                                                                 lat2: stations[j].lat, lng2: stations[j].lng) > 100)
                    }
                    if !rival { linking.pair(i, id) }
                }
            }
            var ids = IDs(operators: operatorIDs, lines: lineIDs, stations: linking.numbered())
            var problems = DiagnosticCollector()
            for d in mergeDecisions {
                let r = registered(d.stationID)!
                let survivors = stations.indices.filter { ids.stations[$0] != d.stationID && metres($0, r) <= decisionReachMetres && weigher.meets(d.expect, $0) }
                guard let i = survivors.min(by: { (metres($0, r), $0) < (metres($1, r), $1) }) else {
                    if registry.decision(station: d.stationID) != d.memory {
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "expect"),
                                     "no station of this run within 5 km of s_id \(d.stationID) (\(shown(r.record.name))) is \(d.expect), the station it merges into")
                    }
                    continue
                }
                merged.append(Renumbering(newID: ids.stations[i], oldID: d.stationID, version: 0))
            }
            try problems.check()
            ids.merged = merged
            ids.applied = applied
            return ids
        }

        /// Applies raw/identity.csv: `same` pairs an s_id with the station its `expect`
        /// describes among those the evidence points at; `new` retires it; `merge` retires it
        /// into the station its `expect` describes (returned: the survivor is found once every
        /// station has its s_id). A decision the evidence alone settles the same way is history
        /// (applied by a published version, or no longer needed): it is not applied, and its
        /// `expect` is held only against the registry's memory of the station.
        func decide(_ decisions: [IdentityDecision], weigher: Weigher, linking: inout Linking, retired: inout Set<Int>,
                    applied: inout [IdentityDecision]) throws -> [IdentityDecision] {
            var problems = DiagnosticCollector()
            var merges: [IdentityDecision] = []
            var idsOfEntity: [Int: Set<Int>] = [:]
            for i in input.stations.indices { for k in input.stations[i].keys { if let id = linking.keyToID[k] { idsOfEntity[i, default: []].insert(id) } } }
            for d in decisions.sorted(by: { ($0.location.line ?? 0) < ($1.location.line ?? 0) }) {
                let here = SourceLocation(file: d.location.file, line: d.location.line, field: "s_id")
                let atExpect = SourceLocation(file: d.location.file, line: d.location.line, field: "expect")
                guard let r = registered(d.stationID) else {
                    problems.add(here, "s_id \(d.stationID) was never published (raw/registry.csv has no such station); correct the s_id")
                    continue
                }
                let s = input.stations
                let remembered = registry.decision(station: r.id) == d.memory
                // A native master's s_ids are its own: a decision can only consent to what it says.
                if let i = s.indices.first(where: { s[$0].fixedID == r.id }) {
                    if d.kind != .same {
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "decision"),
                                     "s_id \(r.id) is \(shown(s[i].name)) in \(s[i].origin.file), whose s_ids are its own: give the station another s_id there, not here")
                    } else if !weigher.meets(d.expect, i) && !remembered {
                        problems.add(atExpect, "s_id \(r.id) is \(shown(s[i].name)) (o_id \(weigher.operatorOf[i])) in \(s[i].origin.file), not \(d.expect): check the s_id (a mistyped one?)")
                    } else {
                        applied.append(d)
                    }
                    continue
                }
                switch d.kind {
                case .new, .merge:
                    let row = registry.row(station: r.id)
                    guard d.kind == .merge || remembered || d.expect.isMet(name: r.record.name, operatorID: r.record.operatorID, pref: row?.pref, enabled: r.record.enabled) else {
                        problems.add(atExpect, "s_id \(r.id) was published as \(shown(r.record.name)) (o_id \(r.record.operatorID)), not \(d.expect): check the s_id (a mistyped one?)")
                        continue
                    }
                    retired.insert(r.id)
                    applied.append(d)
                    if d.kind == .merge { merges.append(d) }
                case .same:
                    // The station carrying the s_id's keys is the one it names, as the fixes leave it:
                    // the guards check `expect` against the version.
                    let keyed = s.indices.filter { linking.result[$0] == nil && idsOfEntity[$0]?.contains(r.id) == true }
                    if let i = keyed.first(where: { weigher.meets(d.expect, $0) }) {
                        linking.pair(i, r.id)
                        applied.append(d)
                        continue
                    }
                    // Else it stays with its keys: the check after the fixes holds it to `expect`.
                    if !keyed.isEmpty {
                        if !remembered { applied.append(d) }
                        continue
                    }
                    // Else one the evidence points at, best first, that no other s_id's keys claim.
                    var candidates: [(i: Int, score: Int)] = []
                    for i in s.indices where linking.result[i] == nil && (idsOfEntity[i] ?? []).isEmpty {
                        let distance = metres(i, r)
                        guard (base(i) == r.base && distance <= decisionReachMetres) || distance <= 1_000 else { continue }
                        candidates.append((i, weigher.weigh(i, r.id).total))
                    }
                    candidates.sort { ($1.score, $0.i) < ($0.score, $1.i) }
                    if let chosen = candidates.first(where: { weigher.meets(d.expect, $0.i) }) {
                        linking.pair(chosen.i, r.id)
                        applied.append(d)
                    } else if !remembered {
                        let near = candidates.prefix(5).map { "\(shown(s[$0.i].name)) (o_id \(weigher.operatorOf[$0.i]))" }
                        problems.add(atExpect, "no station of this run near s_id \(r.id) (\(shown(r.record.name))) that no other s_id claims is \(d.expect)"
                                     + (near.isEmpty ? "; there is none near it" : "; the nearest are \(near.joined(separator: ", "))"))
                    }
                }
            }
            try problems.check()
            return merges
        }
    }

    /// The evidence model (IdentityEvidence) over this run's stations and the registry: the
    /// candidates of a station and the weight of each pair.
    struct Weigher {
        let run: Run
        let operatorOf: [Int]
        /// Each station's lines as linked this run (l_ids).
        let lineSets: [Set<Int>]
        let keyToID: [String: Int]
        /// The s_ids raw/fixes.csv changes: their registered name and place are the maintainer's.
        let fixed: Set<Int>
        /// The registered s_ids each station names by its keys and by its name within a kilometre.
        let named: [[Int]]
        /// This run's live stations in cells of about a kilometre.
        let cells: PointGrid

        init(run: Run, operatorOf: [Int], lineSets: [Set<Int>], keyToID: [String: Int], fixed: Set<Int>) {
            self.run = run
            self.operatorOf = operatorOf
            self.lineSets = lineSets
            self.keyToID = keyToID
            self.fixed = fixed
            var named = [[Int]](repeating: [], count: run.input.stations.count)
            for (i, s) in run.input.stations.enumerated() { for k in s.keys { if let id = keyToID[k] { named[i].append(id) } } }
            for v in run.nameVotes() { named[v.station].append(v.id) }
            self.named = named
            cells = PointGrid(run.input.stations.map { ($0.lat, $0.lng) }, cellSize: Run.cellSize)
        }

        /// Whether station i, as this run gives it, is what a decision's `expect` describes.
        func meets(_ expect: StationExpectation, _ i: Int) -> Bool {
            let s = run.input.stations[i]
            return expect.isMet(name: s.name, operatorID: operatorOf[i], pref: s.pref, enabled: s.enabled ?? true)
        }

        /// The registered s_ids the evidence points at: its keys', its name's within 5 km, and
        /// any within a kilometre that could link at all (most in a city cannot, by name and
        /// distance alone, and are not weighed).
        func candidates(_ i: Int) -> [Int] {
            let s = run.input.stations[i]
            var out = Set(s.keys.compactMap { keyToID[$0] })
            for r in run.registeredByName[run.base(i)] ?? [] where run.metres(i, r) <= IdentityLinker.nameReachMetres { out.insert(r.id) }
            for r in run.registeredNear(lat: s.lat, lng: s.lng) where !out.contains(r.id) && run.metres(i, r) <= 1_000 && weigh(i, r, bound: true).links {
                out.insert(r.id)
            }
            return out.sorted()
        }

        func weigh(_ i: Int, _ id: Int) -> IdentityEvidence.Weight { weigh(i, run.registered(id)!, bound: false) }

        /// With `bound`, the most the pair could weigh: the comparisons that cost most to make
        /// (the line's continuity, whether the old operator stays) taken at their best, with
        /// the operator and status unchanged.
        private func weigh(_ i: Int, _ r: Run.Registered, bound: Bool) -> IdentityEvidence.Weight {
            let s = run.input.stations[i]
            var new = StationRecord(name: s.name, base: run.base(i), lat: s.lat, lng: s.lng, operatorID: operatorOf[i], shinkansen: run.shinkansen[i], enabled: s.enabled ?? true)
            var context = PairContext()
            if s.identityKeys.contains(where: r.keys.contains) {
                context.key = .id
            } else if s.keys.contains(where: r.keys.contains) {
                context.key = .code
            } else if s.identityKeys.contains(where: { keyToID[$0].map { $0 != r.id } ?? false }) {
                context.key = .another
            }
            if bound {
                (new.operatorID, new.enabled, context.continuity) = (r.record.operatorID, r.record.enabled, 1)
            } else {
                context.continuity = continuity(i, r)
                if operatorOf[i] != r.record.operatorID { context.ownOperatorStaysThere = stays(r, except: i) }
            }
            // A fixed s_id's registered record is the fix's: its place and name say nothing of the source's.
            if fixed.contains(r.id), context.key != .none, context.key != .another {
                let record = StationRecord(name: s.name, base: new.base, lat: s.lat, lng: s.lng, operatorID: r.record.operatorID,
                                           shinkansen: r.record.shinkansen, enabled: r.record.enabled)
                return IdentityEvidence.weigh(record, new, context)
            }
            return IdentityEvidence.weigh(r.record, new, context)
        }

        /// The share of station i's neighbours that name a registered station on one of r's lines.
        func continuity(_ i: Int, _ r: Run.Registered) -> Double? {
            let around = run.neighbours[i]
            guard !around.isEmpty, !r.lines.isEmpty else { return nil }
            let on = around.count { j in named[j].contains { $0 != r.id && !(run.registered($0)?.lines.isDisjoint(with: r.lines) ?? true) } }
            return Double(on) / Double(around.count)
        }

        /// Whether r's operator still runs, this run, a live station of r's kind on one of r's
        /// lines within a kilometre of r (station i aside).
        func stays(_ r: Run.Registered, except i: Int) -> Bool {
            let c = cells.cell(lat: r.record.lat, lng: r.record.lng)
            for dy in -1...1 {
                for dx in -1...1 {
                    for j in cells.points(row: c.row + dy, column: c.column + dx).map({ Int($0) }) where j != i {
                        let s = run.input.stations[j]
                        if operatorOf[j] == r.record.operatorID, s.enabled ?? true, run.shinkansen[j] == r.record.shinkansen, !lineSets[j].isDisjoint(with: r.lines),
                           MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: r.record.lat, lng2: r.record.lng) <= 1_000 { return true }
                    }
                }
            }
            return false
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
