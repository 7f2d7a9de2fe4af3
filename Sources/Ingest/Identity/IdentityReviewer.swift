import StationCore

/// The review of what a run does to every s_id (IdentityReview), with the linker's evidence
/// model over the linker's sides: the registry (every s_id ever published, as last published)
/// and the run's network as the fixes leave it, the sources' keys included. Whatever gave an
/// s_id its station (the linker, a native master, a fix, a decision), the same pair weighs
/// the same here as it did there.
struct IdentityReviewer {
    let model: IdentityModel
    let registry: Registry
    let registered: IdentityLinker.Registered
    let network: RailNetwork
    let ids: IdentityLinker.IDs
    /// The s_ids raw/fixes.csv changes by s_id: their station is the maintainer's, not the one its keys vouch for.
    let fixTargets: Set<Int>
    let decisions: [IdentityDecision]
    /// The network's stations as the evidence reads them, with each s_id's keys as the sources give them this run.
    let new: IdentitySide
    let sides: IdentitySides
    let at: [Int: Int]
    let operators: [Int: String]

    init(model: IdentityModel, registry: Registry, registered: IdentityLinker.Registered, network: RailNetwork, keys: [Int: [String]],
         ids: IdentityLinker.IDs, fixTargets: Set<Int>, decisions: [IdentityDecision]) {
        (self.model, self.registry, self.registered, self.network, self.ids) = (model, registry, registered, network, ids)
        (self.fixTargets, self.decisions) = (fixTargets, decisions)
        let shinkansen = network.shinkansenStations(), served = LinesOfStations(network)
        let lineIndex = Dictionary(uniqueKeysWithValues: network.lines.map(\.id).sorted().enumerated().map { ($1, $0) })
        at = Dictionary(uniqueKeysWithValues: network.stations.enumerated().map { ($1.id, $0) })
        // A station no source gives any more is as the registry last had it.
        let given = Set(ids.stations)
        new = IdentitySide(network.stations.map { s in
            IdentityStation(name: s.name, yomi: s.yomi, lat: s.lat, lng: s.lng, operatorID: s.operatorID,
                            shinkansen: given.contains(s.id) ? shinkansen.contains(s.id) : registry.isShinkansen(station: s.id),
                            enabled: s.enabled, keys: keys[s.id] ?? [], lines: (served.lines(of: s.id) ?? []).compactMap { lineIndex[$0] })
        })
        sides = IdentitySides(old: registered.side, new: new)
        operators = Dictionary(network.operators.map { ($0.id, $0.name) }) { a, _ in a }
    }

    func label(_ s: IdentityStation, old: Bool) -> String {
        "\(s.name) (\(old ? registry.name(.operator_, s.operatorID) : operators[s.operatorID] ?? "o_id \(s.operatorID)"))"
    }
    func place(_ s: IdentityStation, old: Bool) -> String { "\(label(s, old: old)) \(MicroDegrees.format(s.lat)) \(MicroDegrees.format(s.lng))" }
    func weigh(_ r: Int, _ n: Int) -> IdentityModel.Weight { model.weigh(sides, r, n, keys: !fixTargets.contains(registered.ids[r])) }

    func review() -> IdentityReview {
        let old = registered.side
        let decided = Dictionary(decisions.map { ($0.stationID, $0) }) { a, _ in a }
        let merged = Dictionary(grouping: ids.merged, by: \.oldID).mapValues { $0.map(\.newID) }, sources = Set(ids.stations)
        func expect(_ s: IdentityStation) -> String { "station=\(s.name);o_id=\(s.operatorID)" }

        var entries: [IdentityReview.Entry] = [], kept = 0, named = Set<Int>()
        /// The live station a registered s_id may live on as: the best the evidence names (or
        /// its source's key), never its own.
        func survivor(of r: Int) -> (n: Int, weight: IdentityModel.Weight)? {
            let a = old.stations[r]
            return new.candidates(for: a).filter { new.stations[$0].enabled && network.stations[$0].id != registered.ids[r] }
                .map { ($0, weigh(r, $0)) }
                .filter { $0.1.total >= model.possible || new.stations[$0.0].keys.contains(where: a.keys.contains) || oneStation(a, new.stations[$0.0]) }
                .max { ($0.1.total, -$0.0) < ($1.1.total, -$1.0) }
        }
        /// Rows of one station: its name at its place (another operator's row, one kept for two).
        func oneStation(_ a: IdentityStation, _ b: IdentityStation) -> Bool {
            a.base == b.base && a.shinkansen == b.shinkansen && StationCore.metres(a, b) <= 100
        }
        /// Names s_id `r`, retired, as an orphan of station `n`, with the row that keeps its records.
        func orphan(_ r: Int, _ n: Int, _ w: IdentityModel.Weight, closed: Bool) {
            let a = old.stations[r], b = new.stations[n], id = registered.ids[r], heir = network.stations[n].id
            let published = registered.index[heir] != nil, keyed = b.keys.contains(where: a.keys.contains)
            var entry = IdentityReview.Entry(stationID: id, kind: .orphaned, name: label(a, old: true), was: place(a, old: true), now: place(b, old: false),
                                             metres: w.metres, successor: heir, weight: w)
            entry.reason = "lives on as s_id \(heir) \(label(b, old: false)), \(Int(w.metres.rounded())) m away" + (keyed ? ": the source's id names it" : "")
            // A station the source still keeps as a record of its own is no `same`: only a merge, of rows at one place.
            if (model.links(w) && w.metres <= IdentityModel.samePlaceMetres || oneStation(a, b)) && (published || closed) {
                entry.decision = IdentityDecisionText.row(id, .merge, expect: expect(b), note: "one station: its records go to s_id \(heir)")
            } else if !published && !closed {
                entry.decision = IdentityDecisionText.row(id, .same, expect: expect(b), note: "keep the s_id: the same station as s_id \(heir)")
            }
            named.insert(id)
            entries.append(entry)
        }

        for (r, id) in registered.ids.enumerated() {
            let a = old.stations[r]
            guard let n = at[id] else {
                for heir in merged[id] ?? [] where registry.merged(station: id).isEmpty {
                    guard let n = at[heir] else { continue }
                    entries.append(IdentityReview.Entry(stationID: id, kind: .merged, name: label(a, old: true), was: place(a, old: true),
                                                        now: place(new.stations[n], old: false), successor: heir, decided: decided[id]?.kind.rawValue,
                                                        weight: weigh(r, n)))
                }
                continue
            }
            let b = new.stations[n]
            if let competing = ids.ambiguous[id] {
                let ranked = competing.compactMap { i in at[ids.stations[i]] }.map { ($0, weigh(r, $0)) }.sorted { ($1.1.total, $0.0) < ($0.1.total, $1.0) }
                var entry = IdentityReview.Entry(stationID: id, kind: .contested, name: label(a, old: true), was: place(a, old: true),
                                                 reason: "\(ranked.count) stations compete for it: "
                                                 + ranked.map { "s_id \(network.stations[$0.0].id) \(label(new.stations[$0.0], old: false))" }.joined(separator: ", "),
                                                 weight: ranked.first?.1)
                if let best = ranked.first {
                    entry.now = place(new.stations[best.0], old: false)
                    entry.decision = IdentityDecisionText.row(id, .same, expect: expect(new.stations[best.0]), note: "the same station as before")
                    if ranked.count > 1 { entry.rival = .init(label: "s_id \(network.stations[ranked[1].0].id) \(label(new.stations[ranked[1].0], old: false))", weight: ranked[1].1) }
                }
                named.insert(id)
                entries.append(entry)
                continue
            }
            if a.enabled && !b.enabled {
                if decided[id]?.kind == .new {
                    entries.append(IdentityReview.Entry(stationID: id, kind: .retired, name: label(a, old: true), was: place(a, old: true), decided: "new"))
                } else if let heir = survivor(of: r) {
                    orphan(r, heir.n, heir.weight, closed: sources.contains(id))
                } else {
                    entries.append(IdentityReview.Entry(stationID: id, kind: .retired, name: label(a, old: true), was: place(a, old: true), now: place(b, old: false)))
                }
                continue
            }
            let metres = MicroDegrees.distanceMetres(lat1: a.lat, lng1: a.lng, lat2: b.lat, lng2: b.lng)
            guard a.name != b.name || metres > 0 || a.operatorID != b.operatorID || a.shinkansen != b.shinkansen else {
                if a.enabled { kept += 1 }
                continue
            }
            let w = weigh(r, n)
            var entry = IdentityReview.Entry(stationID: id, kind: a.name != b.name ? .renamed : metres > 0 || a.shinkansen != b.shinkansen ? .moved : .transferred,
                                             name: label(b, old: false), was: place(a, old: true), now: place(b, old: false), metres: metres > 0 ? metres : nil,
                                             decided: decided[id]?.kind.rawValue, weight: w)
            if let (reason, rival) = contest(r, n, w) {
                (entry.reason, entry.rival) = (reason, rival)
                if decided[id]?.kind != .same {
                    entry.kind = .contested
                    entry.decision = IdentityDecisionText.row(id, .same, expect: expect(b), note: "the same station (\(reason))")
                }
            }
            entries.append(entry)
        }
        // s_ids never published: a retired s_id the evidence says it may be is named (a station back after a gap).
        for (n, s) in network.stations.enumerated() where registered.index[s.id] == nil {
            let b = new.stations[n]
            entries.append(IdentityReview.Entry(stationID: s.id, kind: .new, name: label(b, old: false), now: place(b, old: false)))
            guard b.enabled else { continue }
            let gone = old.candidates(for: b).filter { r in !named.contains(registered.ids[r]) && merged[registered.ids[r]] == nil
                && at[registered.ids[r]].map { !new.stations[$0].enabled && !sources.contains(registered.ids[r]) } ?? false }
            // Weighed as it was while it was live: the question is whether it is the station the s_id named then.
            func asLive(_ r: Int) -> IdentityModel.Weight {
                var a = old.stations[r]
                a.enabled = true
                return model.weigh(a, b, sides, keys: !fixTargets.contains(registered.ids[r]))
            }
            let best = gone.map { ($0, asLive($0)) }.filter { $0.1.total >= model.possible || b.keys.contains(where: old.stations[$0.0].keys.contains) }
                .max { ($0.1.total, -$0.0) < ($1.1.total, -$1.0) }
            if let best, decided[registered.ids[best.0]]?.kind != .new { orphan(best.0, n, best.1, closed: false) }
        }
        let order = Dictionary(uniqueKeysWithValues: IdentityReview.Kind.allCases.enumerated().map { ($1, $0) })
        entries.sort { (order[$0.kind]!, $0.stationID) < (order[$1.kind]!, $1.stationID) }
        return IdentityReview(kept: kept, entries: entries)
    }

    /// Why s_id `registered.ids[r]`, live now as station `n`, may name another station than it
    /// did (what looks like a typo): it jumped to another name, and the evidence says its two
    /// records are two stations (below `possible`), or its station is clearly (by the margin)
    /// another old s_id's, or its old station clearly another new s_id's. Nil when nothing says so.
    func contest(_ r: Int, _ n: Int, _ w: IdentityModel.Weight) -> (String, IdentityReview.Rival?)? {
        let old = registered.side, a = old.stations[r], b = new.stations[n]
        if w.total < model.possible, IdentityModel.NameAgreement(a, b) != .same {
            return ("another name \(Int(w.metres.rounded())) m away", nil)
        }
        let bar = w.total + model.margin
        for o in old.candidates(for: b) where o != r && old.stations[o].enabled {
            let v = model.weigh(sides, o, n)
            if model.links(v), v.total >= bar {
                let rival = "s_id \(registered.ids[o]) \(label(old.stations[o], old: true))"
                return ("its station looks more like \(rival)'s", .init(label: rival, weight: v))
            }
        }
        for m in new.candidates(for: a) where m != n {
            let v = model.weigh(sides, r, m)
            guard model.links(v), v.total >= bar else { continue }
            // Unless that station is as clearly its own s_id's.
            if let own = registered.index[network.stations[m].id], model.weigh(sides, own, m).total >= v.total { continue }
            let rival = "s_id \(network.stations[m].id) \(label(new.stations[m], old: false))"
            return ("\(rival) now stands where it stood", .init(label: rival, weight: v))
        }
        return nil
    }
}

/// The evidence on one s_id, as `stationdb explain` shows it: its pair (as last published,
/// against its station now, or its survivor) and the best rivals of each side, each with its
/// terms, and what the review made of it.
package struct IdentityExplanation: Sendable, Codable, Equatable {
    package struct Pairing: Sendable, Codable, Equatable {
        package var old: String
        package var new: String
        package var weight: IdentityModel.Weight
        package var total: Double
    }
    package var stationID: Int
    package var outcome: String
    package var pairs: [Pairing]
    package var link: Double, possible: Double, margin: Double

    enum CodingKeys: String, CodingKey { case stationID = "s_id", outcome, pairs, link, possible, margin }
}

extension IdentityReviewer {
    func explain(_ id: Int, review: IdentityReview?) -> IdentityExplanation {
        let old = registered.side, r = registered.index[id], n = at[id]
        func pairing(_ r: Int, _ n: Int) -> IdentityExplanation.Pairing {
            let w = weigh(r, n)
            return .init(old: "s_id \(registered.ids[r]) \(place(old.stations[r], old: true))", new: "s_id \(network.stations[n].id) \(place(new.stations[n], old: false))",
                         weight: w, total: w.total)
        }
        var pairs: [IdentityExplanation.Pairing] = []
        let heirs = ids.merged.filter { $0.oldID == id }.compactMap { at[$0.newID] }
        if let r { for m in (n.map { [$0] } ?? []) + heirs { pairs.append(pairing(r, m)) } }
        // The best rivals: other stations for the s_id as published, other s_ids for its station now.
        var rivals: [IdentityExplanation.Pairing] = []
        if let r { rivals += new.candidates(for: old.stations[r]).filter { $0 != n && !heirs.contains($0) }.map { pairing(r, $0) } }
        if let n { rivals += old.candidates(for: new.stations[n]).filter { $0 != r }.map { pairing($0, n) } }
        pairs += rivals.sorted { ($1.total, $0.new, $0.old) < ($0.total, $1.new, $1.old) }.prefix(3)
        let entry = review?.entries.first { $0.stationID == id }
        let outcome = entry.map { "\($0.kind.rawValue)" + ($0.reason.map { ": \($0)" } ?? "") + ($0.decided.map { " [decided: \($0)]" } ?? "") }
            ?? (r == nil ? "not published" : n.map { network.stations[$0].enabled ? "kept" : "retired" } ?? "retired")
        return IdentityExplanation(stationID: id, outcome: outcome, pairs: pairs, link: model.link, possible: model.possible, margin: model.margin)
    }
}

/// A pair the evidence weighs, as the weights' estimation counts it: a registered s_id, a
/// station of this run (its s_id now), and the pair's terms.
package struct IdentityPair: Sendable {
    package var old: Int, new: Int
    package var terms: [IdentityModel.Term]
}

extension IdentityReviewer {
    /// Every pair of a station of this run (not one only the registry still has) and a registered s_id the evidence points at.
    func pairs() -> [IdentityPair] {
        let sources = Set(ids.stations)
        return new.stations.indices.filter { sources.contains(network.stations[$0].id) }.flatMap { n in
            registered.side.candidates(for: new.stations[n]).map { IdentityPair(old: registered.ids[$0], new: network.stations[n].id, terms: weigh($0, n).terms) }
        }
    }
}
