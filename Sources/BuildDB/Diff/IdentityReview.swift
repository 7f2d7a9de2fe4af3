import StationCore
import Glibc

/// What a new version does to identities, s_id by s_id, against the published one: the
/// apps keep users' records by s_id, so the question for every s_id is whether it still
/// names the station it named. Worked out from the two bundles themselves (what the apps
/// see), whatever made the new one (ingest's linkage, a native master's own s_ids, a fix),
/// by the one evidence model ingest links with (IdentityEvidence):
///
/// - **kept**: the same station, as it was; **renamed**, **moved** or **transferred** to
///   another operator (its line continuing under it): the same station still;
/// - **new**: an s_id never published before; **retired**: live before, disabled now;
///   **merged**: retired into another station by a `merge` decision (renumbered_stations);
/// - **contested**, refused by the guards with no `--force` past them until the maintainer
///   decides it in raw/identity.csv: an s_id whose old and new stations contradict each
///   other (IdentityEvidence.Contradiction), or whose new station is clearly another old
///   s_id's, or whose old station is clearly another new s_id's (by the margin);
/// - **orphaned**: a retired s_id whose station lives on as another s_id (a new one, or one
///   that already was: a merge), at a weight the model calls possible, or that its source's
///   id names (StagingIdentity.unproven). A retirement is no move: `--force` passes it as it
///   passes removed stations, and the plan lists it with its survivor and the row that keeps
///   its records.
package struct IdentityReview: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable, CaseIterable {
        case renamed, moved, transferred, new, retired, merged, contested, orphaned
    }

    package struct Entry: Sendable, Codable, Equatable {
        package var stationID: Int
        package var kind: Kind
        /// The station as published now ("東京 (JR東日本)"), or as last published for a retired one.
        package var name: String
        /// How it was and is: "新橋 (JR東日本) 35.666195 139.758587".
        package var was: String?
        package var now: String?
        package var metres: Double?
        /// Why it is contested, or orphaned: the evidence.
        package var reason: String?
        /// The station a retired s_id lives on as (an orphan's, a merge's).
        package var successor: Int?
        /// The decision of raw/identity.csv that applies ("same", "new", "merge"), if one does.
        package var decided: String?
        /// The row of raw/identity.csv a maintainer would write to settle it.
        package var decision: String?

        enum CodingKeys: String, CodingKey {
            case stationID = "s_id", kind, name, was, now, metres, reason, successor, decided, decision
        }

        package init(stationID: Int, kind: Kind, name: String, was: String? = nil, now: String? = nil, metres: Double? = nil, reason: String? = nil,
                    successor: Int? = nil, decided: String? = nil, decision: String? = nil) {
            self.stationID = stationID; self.kind = kind; self.name = name; self.was = was; self.now = now; self.metres = metres
            self.reason = reason; self.successor = successor; self.decided = decided; self.decision = decision
        }
    }

    /// Stations in both versions whose name, place and operator are as they were (another
    /// column, a weight say, may have changed).
    package var kept: Int
    package var entries: [Entry]

    package init(kept: Int, entries: [Entry]) { self.kept = kept; self.entries = entries }

    /// What the guards refuse whatever `--force` says: a decision is missing.
    package var undecided: [Entry] { entries.filter { $0.kind == .contested } }
    package var orphans: [Entry] { entries.filter { $0.kind == .orphaned } }

    /// How far a station renamed where it stands may have moved (the guards' "moved far").
    package static let samePlaceMetres = IdentityEvidence.renamedReachMetres

    /// The review of `difference` (OLD the published bundle at `oldPath`, NEW the candidate
    /// at `newPath`), with what ingest settled (`facts`: the decisions in force, with the
    /// `expect` the station each concerns must meet; the unproven links; the merges).
    /// `published` is OLD as `read` read it, when the caller has (a plan reads it while it ingests).
    package static func make(_ difference: BundleDifference, oldPath: String, newPath: String, facts: StagingIdentity,
                             published: Version? = nil) async throws -> IdentityReview {
        guard let stations = difference[BundleSchema.stations.name] else { return IdentityReview(kept: 0, entries: []) }
        do {
            let db = try BundleDifference.attach(oldPath: oldPath, newPath: newPath)
            defer { db.close() }
            // The two versions are read side by side, each on a connection of its own: a plan
            // at 10x waited 2.7 s for them one after the other.
            async let read: Reviewer.Side? = published == nil ? Reviewer.Side.read(oldPath) : nil
            let new = try Reviewer.Side.read(newPath)
            let old: Reviewer.Side
            if let published { old = published.side } else { old = try await read! }
            return try Reviewer(old: old, new: new, db: db, facts: facts).review(stations)
        } catch let e as SQLiteError where e.isDamage {
            return try BundleDifference.namingDamage(oldPath: oldPath, newPath: newPath) { throw e }
        }
    }

    /// One version's stations as a review reads them.
    package struct Version: Sendable {
        let side: Reviewer.Side
        package static func read(_ path: String) throws -> Version { Version(side: try Reviewer.Side.read(path)) }
    }

    /// Both versions' stations, lines and operators, and the evidence model over them.
    struct Reviewer {
        struct Side {
            var rows: [Int: (record: StationRecord, pref: Int)] = [:]
            var lines: [Int: Set<Int>] = [:]
            var neighbours: [Int: [Int]] = [:]
            /// The live stations, and they in cells of about a kilometre.
            var live: [Int] = []
            var cells = PointGrid([], cellSize: 1_000_000)

            /// One version's side, read from its bundle.
            static func read(_ path: String) throws -> Side {
                let db = try SQLiteDatabase(path: path, mode: .readOnly)
                defer { db.close() }
                var side = Side()
                let shinkansen = Set(try db.query("""
                    SELECT DISTINCT s_id FROM stations_lines JOIN lines USING (l_id) WHERE l_type = \(LineType.shinkansen)
                    """).compactMap { $0[0].intValue })
                for row in try db.query("SELECT s_id, station, lat, lng, o_id, enabled, pref FROM stations") {
                    let id = row[0].intValue ?? 0
                    side.rows[id] = (StationRecord(name: row[1].textValue ?? "", lat: row[2].intValue ?? 0, lng: row[3].intValue ?? 0,
                                                   operatorID: row[4].intValue ?? 0, shinkansen: shinkansen.contains(id), enabled: row[5].intValue == 1),
                                     row[6].intValue ?? 0)
                }
                var previous: (line: Int, station: Int)?
                for row in try db.query("SELECT l_id, s_id FROM stations_lines ORDER BY l_id, s_sort, s_id") {
                    let line = row[0].intValue ?? 0, station = row[1].intValue ?? 0
                    side.lines[station, default: []].insert(line)
                    if let p = previous, p.line == line, p.station != station {
                        side.neighbours[station, default: []].append(p.station)
                        side.neighbours[p.station, default: []].append(station)
                    }
                    previous = (line, station)
                }
                side.live = side.rows.keys.filter { side.rows[$0]!.record.enabled }.sorted()
                side.cells = PointGrid(side.live.map { (side.rows[$0]!.record.lat, side.rows[$0]!.record.lng) }, cellSize: 15_000)
                return side
            }

            /// The live stations within about a kilometre of a point.
            func nearby(_ lat: Int, _ lng: Int) -> [Int] {
                let c = cells.cell(lat: lat, lng: lng)
                var out: [Int] = []
                for dy in -1...1 { for dx in -1...1 { out += cells.points(row: c.row + dy, column: c.column + dx).map { live[Int($0)] } } }
                return out
            }

            /// The live stations the evidence points at from a record: any within a kilometre,
            /// the same name within 5 km. The names are compared only around the record, each
            /// through ICU once (`bases`): every station's, up front, took most of a plan's review.
            func candidates(near r: StationRecord, _ bases: Bases) -> [Int] {
                var out = Set(nearby(r.lat, r.lng))
                let name = bases.base(r.name), c = cells.cell(lat: r.lat, lng: r.lng)
                // Cells to cover 5 km: a cell is cellSize micro-degrees each way, narrower east-west by the latitude.
                let metres = MicroDegrees.metresPerDegree * Double(cells.cellSize) / 1_000_000
                let dy = Int(5_000 / metres) + 1, dx = Int(5_000 / (metres * cos(MicroDegrees.degrees(r.lat) * .pi / 180))) + 1
                for row in (c.row - dy)...(c.row + dy) {
                    for column in (c.column - dx)...(c.column + dx) {
                        for id in cells.points(row: row, column: column).lazy.map({ live[Int($0)] }) {
                            let s = rows[id]!.record
                            guard MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: r.lat, lng2: r.lng) <= 5_000, bases.base(s.name) == name else { continue }
                            out.insert(id)
                        }
                    }
                }
                return out.sorted()
            }
        }
        let old: Side, new: Side
        let operators: [Int: String]
        let facts: StagingIdentity
        let bases = Bases()

        /// Names as compared (StationName.base), each worked out once per review.
        final class Bases {
            private var known: [String: String] = [:]
            func base(_ name: String) -> String {
                if let base = known[name] { return base }
                let base = StationName.base(name)
                known[name] = base
                return base
            }
        }

        init(old: Side, new: Side, db: SQLiteDatabase, facts: StagingIdentity) throws {
            (self.old, self.new) = (old, new)
            var operators: [Int: String] = [:]
            for row in try db.query("SELECT o_id, operator FROM new_bundle.operators UNION SELECT o_id, operator FROM old_bundle.operators") {
                if let id = row[0].intValue, operators[id] == nil { operators[id] = row[1].textValue ?? "" }
            }
            self.operators = operators
            self.facts = facts
        }

        func label(_ r: StationRecord) -> String { "\(r.name) (\(operators[r.operatorID] ?? "o_id \(r.operatorID)"))" }
        func place(_ r: StationRecord) -> String { "\(label(r)) \(MicroDegrees.format(r.lat)) \(MicroDegrees.format(r.lng))" }

        /// The weight of old s_id `o` being new s_id `n`'s station.
        func weigh(_ o: Int, _ n: Int, key: PairContext.Key = .none) -> IdentityEvidence.Weight {
            var was = old.rows[o]!.record, now = new.rows[n]!.record
            (was.base, now.base) = (bases.base(was.name), bases.base(now.name))
            var context = PairContext(key: key)
            let around = new.neighbours[n] ?? [], lines = old.lines[o] ?? []
            if !around.isEmpty, !lines.isEmpty {
                context.continuity = Double(around.count { $0 != o && !(old.lines[$0] ?? []).isDisjoint(with: lines) }) / Double(around.count)
            }
            if was.operatorID != now.operatorID {
                context.ownOperatorStaysThere = new.nearby(was.lat, was.lng).contains { j in
                    guard j != n, let r = new.rows[j]?.record else { return false }
                    return r.operatorID == was.operatorID && r.shinkansen == was.shinkansen && !(new.lines[j] ?? []).isDisjoint(with: lines)
                        && MicroDegrees.distanceMetres(lat1: r.lat, lng1: r.lng, lat2: was.lat, lng2: was.lng) <= 1_000
                }
            }
            return IdentityEvidence.weigh(was, now, context)
        }

        func review(_ stations: TableDiff) throws -> IdentityReview {
            let same = facts.decided[IdentityDecisionText.Kind.same.rawValue] ?? [:]
            let decidedNew = facts.decided[IdentityDecisionText.Kind.new.rawValue] ?? [:]
            var entries: [Entry] = []
            var retired: [Int] = []
            for change in stations.changed {
                let id = change.key[0].intValue ?? 0
                guard let was = old.rows[id]?.record, let now = new.rows[id]?.record else { continue }
                let metres = MicroDegrees.distanceMetres(lat1: was.lat, lng1: was.lng, lat2: now.lat, lng2: now.lng)
                var entry = Entry(stationID: id, kind: .renamed, name: label(now), was: place(was), now: place(now), metres: metres > 0 ? metres : nil)
                if was.enabled && !now.enabled {
                    retired.append(id)
                    continue
                }
                if now.enabled, let reason = contest(id) {
                    entry.reason = reason
                    if let expect = same[id].flatMap(StationExpectation.init),
                       expect.isMet(name: now.name, operatorID: now.operatorID, pref: new.rows[id]!.pref, enabled: true) {
                        entry.decided = IdentityDecisionText.Kind.same.rawValue
                    } else {
                        entry.kind = .contested
                        entry.decision = IdentityDecisionText.row(id, .same, expect: "station=\(now.name)", note: "the same station (\(reason))")
                        entries.append(entry)
                        continue
                    }
                }
                if was.name != now.name {
                    entry.kind = .renamed
                } else if metres > 0 {
                    entry.kind = .moved
                } else if was.operatorID != now.operatorID {
                    entry.kind = .transferred
                } else if entry.decided != nil || was.shinkansen != now.shinkansen {
                    entry.kind = .moved   // a flip the maintainer consented to: its reason says which
                } else {
                    continue   // another column changed, or it reopened: the same station
                }
                entries.append(entry)
            }
            for row in stations.added {
                let id = row[0].intValue ?? 0
                entries.append(Entry(stationID: id, kind: .new, name: label(new.rows[id]!.record), now: place(new.rows[id]!.record)))
            }
            for row in stations.removed {
                let id = row[0].intValue ?? 0
                guard let was = old.rows[id]?.record, let survivor = facts.merged[id] else { continue }
                entries.append(Entry(stationID: id, kind: .merged, name: label(was), was: place(was), now: new.rows[survivor].map { place($0.record) },
                                     successor: survivor, decided: IdentityDecisionText.Kind.merge.rawValue))
            }
            for id in retired {
                let was = old.rows[id]!.record
                var entry = Entry(stationID: id, kind: .retired, name: label(was), was: place(was), now: place(new.rows[id]!.record))
                if decidedNew[id] != nil {
                    entry.decided = IdentityDecisionText.Kind.new.rawValue
                } else if let heir = successor(of: id) {
                    let now = new.rows[heir.id]!.record
                    let merge = old.rows[heir.id]?.record.enabled == true
                    entry.kind = .orphaned
                    entry.successor = heir.id
                    entry.metres = heir.weight.metres
                    entry.reason = "lives on as s_id \(heir.id) \(label(now)), \(Int(heir.weight.metres.rounded())) m away"
                        + (heir.weight.contradiction.map { " (\($0.rawValue))" } ?? "")
                        + (facts.unproven[id] == heir.id ? ": the source's id names it" : merge ? ": a merge" : "")
                    entry.decision = merge
                        ? IdentityDecisionText.row(id, .merge, expect: "station=\(now.name);o_id=\(now.operatorID)", note: "one station: its records go to s_id \(heir.id)")
                        : IdentityDecisionText.row(id, .same, expect: "station=\(now.name)", note: "keep the s_id: the same station as s_id \(heir.id)")
                }
                entries.append(entry)
            }
            let order = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
            entries.sort { (order[$0.kind]!, $0.stationID) < (order[$1.kind]!, $1.stationID) }
            return IdentityReview(kept: stations.oldCount - stations.removed.count - entries.count { $0.kind != .new && $0.kind != .merged }, entries: entries)
        }

        /// Why s_id `id`, live now, may name another station than it did: its two records
        /// contradict each other, its station is clearly another old s_id's, or its old
        /// station is clearly another new s_id's. Nil when nothing says so.
        func contest(_ id: Int) -> String? {
            let own = weigh(id, id)
            if let c = own.contradiction { return c == .farName ? "another name \(Int(own.metres.rounded())) m away" : c.rawValue }
            let bar = own.total + IdentityEvidence.margin
            let now = new.rows[id]!.record, was = old.rows[id]!.record
            for o in old.candidates(near: now, bases) where o != id && old.rows[o]!.record.enabled {
                let w = weigh(o, id)
                if w.links, w.total >= bar { return "its station looks more like s_id \(o) \(label(old.rows[o]!.record))'s" }
            }
            for n in new.candidates(near: was, bases) where n != id {
                let w = weigh(id, n)
                guard w.links, w.total >= bar else { continue }
                // Unless that station is as clearly its own s_id's.
                if old.rows[n] != nil, weigh(n, n).total >= w.total { continue }
                return "s_id \(n) \(label(new.rows[n]!.record)) now stands where it stood"
            }
            return nil
        }

        /// The live station a retired s_id lives on as, if the evidence says it possibly may:
        /// the best weight at `possible` or above (a kind flip listed, not excluded), unless
        /// that station is clearly its own old s_id's.
        func successor(of id: Int) -> (id: Int, weight: IdentityEvidence.Weight)? {
            var best: (id: Int, weight: IdentityEvidence.Weight)?
            let named = facts.unproven[id]
            for n in Set(new.candidates(near: old.rows[id]!.record, bases) + (named.map { [$0] } ?? [])).sorted() where new.rows[n]?.record.enabled == true {
                let w = weigh(id, n, key: n == named ? .id : .none)
                guard w.contradiction != .farName || n == named, w.total >= IdentityEvidence.possible || n == named else { continue }
                // A station that already was is a merge: only where the evidence links the two.
                if old.rows[n]?.record.enabled == true, !w.links { continue }
                if best == nil || (w.total, -w.metres, -n) > (best!.weight.total, -best!.weight.metres, -best!.id) { best = (n, w) }
            }
            return best
        }
    }
}

/// How raw/identity.csv's rows are written, for the plan to show the one that settles a case.
package enum IdentityDecisionText {
    package enum Kind: String { case same, new, merge }

    /// "1274,same,station=新橋,the same station (...)", quoted where CSV needs it.
    package static func row(_ id: Int, _ kind: Kind, expect: String, note: String) -> String {
        String(CSVWriter.line([String(id), kind.rawValue, expect, note]).dropLast())
    }
}
