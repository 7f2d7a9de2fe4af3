import StationCore

/// Who is who: this run's operators, lines and stations linked to the IDs the registry
/// remembers, so that an ID once published keeps naming the same thing (users' records
/// are keyed by s_id). Record linkage over the whole network at once:
///
/// - **Operators** keep their o_id by a source's key, else by their formal name (the
///   upstream's `name_formal` is what masters write: 東海旅客鉄道 is JR東海), else by
///   the stations they run (the stations both sources name alike, within a kilometre).
/// - **Lines** keep their l_id by a key, else by the stations they serve, whatever their
///   name (JR高山本線 is 高山本線), else by their name under the same operator.
/// - **Stations**: a native master's s_id is its own; a maintainer's decision in
///   raw/identity.csv comes next (IdentityDecisions); then a station whose key, name,
///   operator and kind all agree with the row registered under that key, within 300 m,
///   is that row. Every other station is weighed against every registered row the
///   evidence points at (a key, the same name within a kilometre, a place within
///   300 m), and the pairs are chosen one to one by the best total evidence
///   (`score`), never first come. A pair is only ever made when it is proven
///   (`admissible`, `evidence`): the same name within a kilometre, or renamed where it
///   stands, with no other stop near enough to be it instead; never a Shinkansen station
///   with a conventional one; never another operator's station while the s_id's own
///   operator still runs one of its kind there; never a closed s_id passed to another
///   operator. A source's key, even the upstream's `id`, is evidence, not proof: when its
///   station now has another name and place, and another station has them, the s_id
///   follows the station. Two pairings as good as each other are no proof either.
/// - What is left gets a new ID above every ID ever registered; what the registry had
///   and no station took is published disabled, as last seen. Whether such a
///   retirement left a station behind under a new s_id is for the guards to show
///   (IdentityReview) and the maintainer to decide.
enum IdentityLinker {
    /// How far a station renamed where it stands may have moved, and a key may reach.
    static let samePlaceMetres = 300.0
    /// How far a same-named station may lie and still be the same one.
    static let sameNameMetres = nameMatchDistanceMetres
    /// How far a maintainer's `same` looks for the station it names.
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
    }

    /// `fixed`: the s_ids raw/fixes.csv changes by s_id, whose registered name and place are
    /// the maintainer's, not the sources': a source's key is their evidence.
    static func link(_ input: Input, registry: Registry, decisions: [IdentityDecision], fixed: Set<Int> = []) throws -> IDs {
        let run = Run(input, registry: registry)
        let operators = run.linkOperators()
        let lines = run.linkLines(operators: operators)
        let stations = try run.linkStations(operators: operators, lines: lines, decisions: decisions, fixed: fixed)
        return IDs(operators: operators, lines: lines, stations: stations)
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
        /// Each station a Shinkansen one: its key says so, or it is on a Shinkansen line.
        lazy var shinkansen: [Bool] = input.stations.indices.map { i in
            ShinkansenKey.marks(input.stations[i].keys) || linesOfStation[i].contains { input.lines[$0].type == LineType.shinkansen }
        }

        init(_ input: Input, registry: Registry) {
            self.input = input
            self.registry = registry
        }

        // MARK: - The registered stations, as values, when a run needs them

        struct Registered {
            var id: Int
            var name: String
            var lat: Int, lng: Int
            var operatorID: Int
            var enabled: Bool
            var shinkansen: Bool
            var lines: Set<Int>
        }

        private var registeredCache: [Int: Registered] = [:]
        private var registeredBase: [Int: String] = [:]

        func registered(_ id: Int) -> Registered? {
            if let r = registeredCache[id] { return r }
            guard let row = registry.row(station: id) else { return nil }
            let r = Registered(id: id, name: row.name, lat: row.lat, lng: row.lng, operatorID: row.operatorID,
                               enabled: row.enabled, shinkansen: registry.isShinkansen(station: id), lines: Set(registry.lines(station: id)))
            registeredCache[id] = r
            return r
        }

        /// A registered station's name as `base(_:)` gives a station's, worked out when first asked.
        func base(of r: Registered) -> String {
            if let b = registeredBase[r.id] { return b }
            let b = StationName.base(r.name)
            registeredBase[r.id] = b
            return b
        }

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
            MicroDegrees.distanceMetres(lat1: input.stations[i].lat, lng1: input.stations[i].lng, lat2: r.lat, lng2: r.lng)
        }

        // MARK: - Name and place alone: the votes operators and lines are linked by

        private var votesCache: [(station: Int, id: Int, weight: Double)]?

        /// Each station of this run paired with the registered stations of its kind and base
        /// name within a kilometre, each pairing weighed 1/k among its k: who runs and serves
        /// which stations, whatever the operators and lines are called.
        func nameVotes() -> [(station: Int, id: Int, weight: Double)] {
            if let votesCache { return votesCache }
            var byName: [String: [Int]] = [:]
            for id in registry.ids(.station) { if let r = registered(id) { byName[base(of: r), default: []].append(id) } }
            var out: [(station: Int, id: Int, weight: Double)] = []
            for i in input.stations.indices {
                let near = (byName[base(i)] ?? []).filter {
                    let r = registered($0)!
                    return r.shinkansen == shinkansen[i] && metres(i, r) <= sameNameMetres
                }
                for id in near { out.append((i, id, 1 / Double(near.count))) }
            }
            votesCache = out
            return out
        }

        // MARK: - Operators

        func linkOperators() -> [Int] {
            let ops = input.operators
            var linking = Linking(.operator_, registry: registry, keys: ops.map(\.keys), fixedIDs: ops.map(\.fixedID))
            linking.pairByKeys(ops.map(\.keys))
            // The formal name, one registered operator to one.
            var byName: [String: [Int]] = [:]
            for id in registry.ids(.operator_) where !linking.taken.contains(id) {
                byName[OperatorName.formal(registry.name(.operator_, id)), default: []].append(id)
            }
            for i in linking.left {
                let names = Set(([ops[i].name] + ops[i].otherNames).map(OperatorName.formal))
                let ids = Set(names.flatMap { byName[$0] ?? [] }).filter { !linking.taken.contains($0) }
                if ids.count == 1, let id = ids.first { linking.pair(i, id) }
            }
            // The stations it runs: most of them, by name and place.
            let left = linking.left
            if !left.isEmpty, registry.ids(.operator_).contains(where: { !linking.taken.contains($0) }) {
                let operatorOf = input.stations.map(\.operatorIndex)
                var votes: [Int: [Int: Double]] = [:]
                let wanted = Set(left)
                for v in nameVotes() where wanted.contains(operatorOf[v.station]) {
                    guard let r = registered(v.id), !linking.taken.contains(r.operatorID) else { continue }
                    votes[operatorOf[v.station], default: [:]][r.operatorID, default: 0] += v.weight
                }
                for (i, id) in Self.bestPairs(votes, accept: { total, best in best >= 1 && best * 2 >= total }) where !linking.taken.contains(id) {
                    linking.pair(i, id)
                }
            }
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
                    let own = ids.filter { registered($0)?.operatorID == operatorIDs[input.stations[station].operatorIndex] }
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

            /// Each entity still without an ID takes the smallest registered ID of its keys not taken:
            /// an operator's or a line's code is not handed on as a station's is.
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

        func linkStations(operators operatorIDs: [Int], lines lineIDs: [Int], decisions: [IdentityDecision], fixed: Set<Int>) throws -> [Int] {
            let stations = input.stations
            var linking = Linking(.station, registry: registry, keys: stations.map(\.keys), fixedIDs: stations.map(\.fixedID))
            // A native master's run: every s_id its own.
            if linking.order.isEmpty && decisions.isEmpty { return linking.numbered() }
            let keyToID = linking.keyToID
            let operatorOf = stations.map { operatorIDs[$0.operatorIndex] }
            // Where this run's stations stand, worked out only for a run that weighs pairs.
            var built: Context?
            func context() -> Context {
                if let built { return built }
                built = Context(run: self, operatorOf: operatorOf, lineSets: linesOfStation.map { Set($0.map { lineIDs[$0] }) }, keyToID: keyToID)
                return built!
            }

            // The maintainer's decisions.
            var retired = Set<Int>()
            if !decisions.isEmpty {
                try decide(decisions, context: context(), linking: &linking, retired: &retired)
            }

            // A key whose registered row agrees in everything: that row.
            for i in linking.left {
                let s = stations[i]
                let ids = Set(s.keys.compactMap { keyToID[$0] }).filter { !linking.taken.contains($0) && !retired.contains($0) }
                for id in ids.sorted() {
                    guard let r = registered(id), r.shinkansen == shinkansen[i], r.operatorID == operatorOf[i],
                          fixed.contains(id) || (metres(i, r) <= samePlaceMetres && (r.name == s.name || base(of: r) == base(i))) else { continue }
                    linking.pair(i, id)
                    break
                }
            }

            // The rest, weighed against every registered row the evidence points at.
            let open = linking.left
            if !open.isEmpty {
                let rows = registry.ids(.station).filter { !linking.taken.contains($0) && !retired.contains($0) }.compactMap { registered($0) }
                if !rows.isEmpty {
                    for (i, id) in context().match(open, rows: rows, keyToID: keyToID) { linking.pair(i, id) }
                }
            }
            return linking.numbered()
        }

        /// Applies raw/identity.csv: `same` pairs an s_id with the station its `expect`
        /// describes among those the evidence points at; `new` retires it.
        func decide(_ decisions: [IdentityDecision], context: Context, linking: inout Linking, retired: inout Set<Int>) throws {
            var problems = DiagnosticCollector()
            var idsOfEntity: [Int: Set<Int>] = [:]
            for i in input.stations.indices { for k in input.stations[i].keys { if let id = linking.keyToID[k] { idsOfEntity[i, default: []].insert(id) } } }
            for d in decisions.sorted(by: { ($0.location.line ?? 0) < ($1.location.line ?? 0) }) {
                let here = SourceLocation(file: d.location.file, line: d.location.line, field: "s_id")
                guard let r = registered(d.stationID) else {
                    problems.add(here, "s_id \(d.stationID) was never published (raw/registry.csv has no such station); correct the s_id")
                    continue
                }
                // A native master's s_ids are its own: a decision can only consent to what it says.
                if let i = input.stations.indices.first(where: { input.stations[$0].fixedID == r.id }) {
                    let s = input.stations[i]
                    if d.kind == .new {
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "decision"),
                                     "s_id \(r.id) is \(shown(s.name)) in \(s.origin.file), whose s_ids are its own: give the station another s_id there, not here")
                    } else if !d.expect.isMet(name: s.name, operatorID: context.operatorOf[i], pref: s.pref, enabled: s.enabled ?? true) {
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "expect"),
                                     "s_id \(r.id) is \(shown(s.name)) (o_id \(context.operatorOf[i])) in \(s.origin.file), not \(d.expect): check the s_id (a mistyped one?)")
                    }
                    continue
                }
                switch d.kind {
                case .new:
                    guard d.expect.isMet(name: r.name, operatorID: r.operatorID, pref: registry.row(station: r.id)?.pref, enabled: r.enabled) else {
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "expect"),
                                     "s_id \(r.id) was published as \(shown(r.name)) (o_id \(r.operatorID)), not \(d.expect): check the s_id (a mistyped one?)")
                        continue
                    }
                    retired.insert(r.id)
                case .same:
                    let s = input.stations
                    func meets(_ i: Int) -> Bool {
                        d.expect.isMet(name: s[i].name, operatorID: context.operatorOf[i], pref: s[i].pref, enabled: s[i].enabled ?? true)
                    }
                    // The station carrying the s_id's keys is the one it names, as the fixes leave
                    // it: the guards check `expect` against the version.
                    let keyed = input.stations.indices.filter { linking.result[$0] == nil && idsOfEntity[$0]?.contains(r.id) == true }
                    if let i = keyed.first(where: meets) {
                        linking.pair(i, r.id)
                        continue
                    }
                    if !keyed.isEmpty { continue }
                    // Else one the evidence points at, best first, that no other s_id's keys claim.
                    var candidates: [(i: Int, score: Double)] = []
                    for i in input.stations.indices where linking.result[i] == nil && (idsOfEntity[i] ?? []).isEmpty {
                        let distance = metres(i, r)
                        guard (base(i) == base(of: r) && distance <= decisionReachMetres) || distance <= sameNameMetres else { continue }
                        candidates.append((i, context.evidence(i, r, keyed: false).score))
                    }
                    candidates.sort { ($1.score, $0.i) < ($0.score, $1.i) }
                    guard let chosen = candidates.first(where: { meets($0.i) }) else {
                        let near = candidates.prefix(5).map { "\(shown(s[$0.i].name)) (o_id \(context.operatorOf[$0.i]))" }
                        problems.add(SourceLocation(file: d.location.file, line: d.location.line, field: "expect"),
                                     "no station of this run near s_id \(r.id) (\(shown(r.name))) that no other s_id claims is \(d.expect)"
                                     + (near.isEmpty ? "; there is none near it" : "; the nearest are \(near.joined(separator: ", "))"))
                        continue
                    }
                    linking.pair(chosen.i, r.id)
                }
            }
            try problems.check()
        }
    }

    /// What the pairs of stations are weighed with: each station's operator and lines as
    /// linked this run, and where the live stations of this run stand.
    struct Context {
        let run: Run
        let operatorOf: [Int]
        let lineSets: [Set<Int>]
        /// Each registered key's s_id: whether a station is claimed by another s_id's key.
        let keyToID: [String: Int]
        /// This run's stations in cells of 0.015 degrees (over a kilometre each way in Japan).
        let cells: [Cell: [Int]]

        struct Cell: Hashable { var row: Int, column: Int }
        static let cellSize = 15_000

        init(run: Run, operatorOf: [Int], lineSets: [Set<Int>], keyToID: [String: Int]) {
            self.run = run
            self.operatorOf = operatorOf
            self.lineSets = lineSets
            self.keyToID = keyToID
            var cells: [Cell: [Int]] = [:]
            for (i, s) in run.input.stations.enumerated() { cells[Self.cell(s.lat, s.lng), default: []].append(i) }
            self.cells = cells
        }

        static func cell(_ lat: Int, _ lng: Int) -> Cell { Cell(row: lat / cellSize, column: lng / cellSize) }

        /// This run's stations within about a kilometre of a point (the cells around it).
        func near(_ lat: Int, _ lng: Int) -> [Int] {
            let c = Self.cell(lat, lng)
            var out: [Int] = []
            for dr in -1...1 { for dc in -1...1 { out += cells[Cell(row: c.row + dr, column: c.column + dc)] ?? [] } }
            return out
        }

        struct Evidence {
            var admissible: Bool
            var score: Double
            /// Renamed where it stands with nothing but its place for it: it holds only if no other
            /// registered stop stands near the station either (`match` looks).
            var byPlaceAlone = false
            var metres = 0.0
        }

        /// How far another stop must stand for a station `metres` from a registered one to be
        /// that one by its place alone: twice as far, and 50 m more. Tram stops 100 m apart,
        /// shifted together, prove nothing.
        static func clearance(_ metres: Double) -> Double { max(2 * metres, metres + 50) }

        /// How much says that station `i` is the registered station `r`, and whether it is
        /// proven (docs/maintaining.md, "Identities: how a station keeps its s_id").
        func evidence(_ i: Int, _ r: Run.Registered, keyed: Bool) -> Evidence {
            let s = run.input.stations[i]
            let d = run.metres(i, r)
            let sameName = run.base(i) == run.base(of: r)
            let identity = keyed && s.identityKeys.contains { run.registry.keys(.station, r.id)?.contains($0) ?? false }
            let sameOperator = operatorOf[i] == r.operatorID
            let enabled = s.enabled ?? true
            let shared = lineSets[i].intersection(r.lines)
            var score = 0.0
            if sameName { score += 100 }
            if keyed { score += identity ? 40 : 15 }
            if sameOperator { score += 20 }
            if enabled == r.enabled { score += 30 }
            if !lineSets[i].isEmpty, !r.lines.isEmpty { score += 10 * Double(shared.count) / Double(lineSets[i].union(r.lines).count) }
            score += 30 * max(0, 1 - d / sameNameMetres)

            // Another s_id's key on this station: the source says it is that one.
            let claimed = s.identityKeys.contains { keyToID[$0].map { $0 != r.id } ?? false }
            var admissible = run.shinkansen[i] == r.shinkansen
            var byPlaceAlone = false
            if !sameOperator {
                // A closed s_id never passes to another operator (to be re-enabled there later);
                // nor is an s_id handed to another operator while its own runs a station of its kind there.
                if !r.enabled { admissible = false }
                if admissible, operatorRuns(r.operatorID, shinkansen: r.shinkansen, near: r, except: i) { admissible = false }
            }
            if admissible, !sameName {
                // Renamed where it stands: within 300 m, and no other stop of its lines nearer. With
                // the source's id for it, that is enough; without, both live, of one operator, on a
                // line in common, claimed by no other s_id's key, every other stop well clear.
                if identity {
                    admissible = d <= IdentityLinker.samePlaceMetres && noOtherStop(than: i, to: r, within: d)
                } else {
                    byPlaceAlone = true
                    admissible = d <= IdentityLinker.samePlaceMetres && !claimed && sameOperator && enabled && r.enabled
                        && (lineSets[i].isEmpty || r.lines.isEmpty || !shared.isEmpty) && noOtherStop(than: i, to: r, within: Self.clearance(d))
                }
            } else if admissible {
                // The same name; within 300 m when the source's id says it is another s_id's station.
                admissible = d <= (claimed ? IdentityLinker.samePlaceMetres : IdentityLinker.sameNameMetres)
            }
            return Evidence(admissible: admissible, score: score, byPlaceAlone: byPlaceAlone, metres: d)
        }

        /// Whether operator `o` runs a live station of this kind within a kilometre of `r` this run.
        func operatorRuns(_ o: Int, shinkansen: Bool, near r: Run.Registered, except i: Int) -> Bool {
            near(r.lat, r.lng).contains { j in
                j != i && operatorOf[j] == o && (run.input.stations[j].enabled ?? true) && run.shinkansen[j] == shinkansen
                    && MicroDegrees.distanceMetres(lat1: run.input.stations[j].lat, lng1: run.input.stations[j].lng, lat2: r.lat, lng2: r.lng)
                        <= IdentityLinker.sameNameMetres
            }
        }

        /// Whether no other station of this run on a line of station `i` (of its operator,
        /// when it is on none) lies within `metres` of `r`: tram stops 250 m apart are two.
        func noOtherStop(than i: Int, to r: Run.Registered, within metres: Double) -> Bool {
            !near(r.lat, r.lng).contains { j in
                guard j != i else { return false }
                let neighbour = lineSets[i].isEmpty ? operatorOf[j] == operatorOf[i] : !lineSets[j].isDisjoint(with: lineSets[i])
                return neighbour && MicroDegrees.distanceMetres(lat1: run.input.stations[j].lat, lng1: run.input.stations[j].lng,
                                                                lat2: r.lat, lng2: r.lng) < metres
            }
        }

        /// The proven pairs of `open` stations and `rows`, one to one, with the best total evidence.
        func match(_ open: [Int], rows: [Run.Registered], keyToID: [String: Int]) -> [(Int, Int)] {
            var rowIndex: [Int: Int] = [:]
            var byName: [String: [Int]] = [:]
            var rowCells: [Cell: [Int]] = [:]
            for (k, r) in rows.enumerated() {
                rowIndex[r.id] = k
                byName[run.base(of: r), default: []].append(k)
                rowCells[Self.cell(r.lat, r.lng), default: []].append(k)
            }
            // Every admissible pair, with its score; those by place alone apart.
            var edges: [(station: Int, row: Int, score: Double)] = []
            var byPlace: [(station: Int, row: Int, score: Double)] = []
            for i in open {
                let s = run.input.stations[i]
                let keyed = Set(s.keys.compactMap { keyToID[$0] }.compactMap { rowIndex[$0] })
                var candidates = keyed.union(byName[run.base(i)] ?? [])
                let c = Self.cell(s.lat, s.lng)
                var near: [Int] = []
                for dr in -1...1 { for dc in -1...1 { near += rowCells[Cell(row: c.row + dr, column: c.column + dc)] ?? [] } }
                candidates.formUnion(near)
                for k in candidates.sorted() {
                    let e = evidence(i, rows[k], keyed: keyed.contains(k))
                    guard e.admissible else { continue }
                    // By its place alone: no other registered stop of its operator near the station either.
                    if e.byPlaceAlone, near.contains(where: { m in
                        m != k && rows[m].operatorID == rows[k].operatorID && rows[m].shinkansen == rows[k].shinkansen
                            && MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: rows[m].lat, lng2: rows[m].lng) < Self.clearance(e.metres)
                    }) { continue }
                    if e.byPlaceAlone { byPlace.append((i, k, e.score)) } else { edges.append((i, k, e.score)) }
                }
            }
            // One stop renamed where it stands is plausible; beside other stops of its line that
            // nothing names (a line renamed and shifted together, a new stop) its place proves nothing.
            let otherwise = Set(edges.map(\.station))
            let unnamed = Set(open).subtracting(otherwise)
            let placeOnly = Set(byPlace.map(\.station)).subtracting(otherwise)
            let crowded = Set(placeOnly.filter { i in
                let s = run.input.stations[i]
                return near(s.lat, s.lng).contains { j in
                    j != i && unnamed.contains(j) && (lineSets[i].isEmpty ? operatorOf[j] == operatorOf[i] : !lineSets[j].isDisjoint(with: lineSets[i]))
                        && MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: run.input.stations[j].lat, lng2: run.input.stations[j].lng)
                            <= IdentityLinker.sameNameMetres
                }
            })
            edges += byPlace.filter { !crowded.contains($0.station) }
            return Assignment.best(edges).map { ($0.station, rows[$0.row].id) }
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
