import StationCore

/// What a new version does to identities, s_id by s_id, against the published one: the
/// apps keep users' records by s_id, so the question for every s_id is whether it still
/// names the station it named. Worked out from the two bundles themselves (what the apps
/// see), whatever made the new one: ingest's linkage, a native master's own s_ids, a fix.
///
/// - **kept**: the same station, as it was; **renamed** where it stands (within 300 m),
///   **moved** under its name, or **transferred** to another operator (a line passed to
///   a third-sector company): the same station still;
/// - **new**: an s_id never published before; **retired**: live before, disabled now;
/// - **contested**, refused by the guards with no `--force` past them until the
///   maintainer decides it in raw/identity.csv (IdentityDecisions): an s_id that would
///   name a station with another name more than 300 m away; renamed where another station
///   of its operator now stands nearer to where it stood; taking the name or the place of
///   an s_id of its operator that retires in the same version; a station of another
///   operator while its own still runs a station of its kind there; flipping between
///   Shinkansen and conventional; a closed s_id passed to another operator (to be
///   re-enabled there, now or later);
/// - **orphaned**: a retired s_id whose station lives on under a new one: the same name
///   within a kilometre, its operator's station within 300 m, another operator's within
///   100 m where its own runs none of its kind any more, or the station its source id now
///   names (StagingMeta.unproven), of its kind. A retirement is no move: `--force` passes
///   it as it passes removed stations, and the plan lists it, with the decision that would
///   keep the s_id.
package struct IdentityReview: Sendable, Codable, Equatable {
    package enum Kind: String, Sendable, Codable, CaseIterable {
        case renamed, moved, transferred, new, retired, contested, orphaned
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
        /// An orphan's station, live under this new s_id.
        package var successor: Int?
        /// The decision of raw/identity.csv that applies ("same", "new"), if one does.
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

    /// How far a station renamed where it stands may have moved.
    package static let samePlaceMetres = 300.0
    /// How far a station may move under its name.
    package static let sameNameMetres = 1_000.0

    /// The review of `difference` (OLD the published bundle at `oldPath`, NEW the candidate
    /// at `newPath`); `same` and `new` are the s_ids raw/identity.csv decides, each with the
    /// `expect` the station it concerns must meet (StagingMeta.decided).
    package static func make(_ difference: BundleDifference, oldPath: String, newPath: String, same: [Int: String], new decidedNew: [Int: String],
                            unproven: [Int: Int] = [:]) throws -> IdentityReview {
        guard let stations = difference[BundleSchema.stations.name] else { return IdentityReview(kept: 0, entries: []) }
        return try BundleDifference.namingDamage(oldPath: oldPath, newPath: newPath) {
            let db = try BundleDifference.attach(oldPath: oldPath, newPath: newPath)
            defer { db.close() }
            return try review(stations, db: db, same: same, new: decidedNew, unproven: unproven)
        }
    }

    struct Row {
        var id: Int, name: String, pref: Int, lat: Int, lng: Int, operatorID: Int, enabled: Bool
        init(_ shape: BundleSchema.Table, _ row: [SQLValue]) {
            func value(_ column: String) -> SQLValue { row[shape.columns.firstIndex(of: column)!] }
            id = value("s_id").intValue ?? 0
            name = value("station").textValue ?? ""
            pref = value("pref").intValue ?? 0
            lat = value("lat").intValue ?? 0
            lng = value("lng").intValue ?? 0
            operatorID = value("o_id").intValue ?? 0
            enabled = value("enabled").intValue == 1
        }
    }

    static func review(_ stations: TableDiff, db: SQLiteDatabase, same: [Int: String], new decidedNew: [Int: String],
                       unproven: [Int: Int]) throws -> IdentityReview {
        func ids(_ sql: String) throws -> Set<Int> { Set(try db.query(sql).compactMap { $0.first?.intValue }) }
        let shinkansen = (old: try ids(Self.shinkansenQuery("old_bundle")), new: try ids(Self.shinkansenQuery("new_bundle")))
        let onLines = (old: try ids("SELECT DISTINCT s_id FROM old_bundle.stations_lines"), new: try ids("SELECT DISTINCT s_id FROM new_bundle.stations_lines"))
        var operators: [Int: String] = [:]
        for row in try db.query("SELECT o_id, operator FROM new_bundle.operators UNION SELECT o_id, operator FROM old_bundle.operators") {
            if let id = row[0].intValue, operators[id] == nil { operators[id] = row[1].textValue ?? "" }
        }
        func label(_ r: Row) -> String { "\(r.name) (\(operators[r.operatorID] ?? "o_id \(r.operatorID)"))" }
        func place(_ r: Row) -> String { "\(label(r)) \(MicroDegrees.format(r.lat)) \(MicroDegrees.format(r.lng))" }
        let shape = stations.shape
        var entries: [Entry] = []
        // Those live before and disabled now, looked at first: an s_id may not take their name or place.
        let retired = stations.changed.map { (Row(shape, $0.old), Row(shape, $0.new)) }.filter { $0.0.enabled && !$0.1.enabled }.map(\.0)
        for change in stations.changed {
            let old = Row(shape, change.old), new = Row(shape, change.new)
            let metres = MicroDegrees.distanceMetres(lat1: old.lat, lng1: old.lng, lat2: new.lat, lng2: new.lng)
            var entry = Entry(stationID: new.id, kind: .renamed, name: label(new), was: place(old), now: place(new),
                              metres: metres > 0 ? metres : nil)
            if old.enabled && !new.enabled {
                entry.kind = .retired
                entry.name = label(old)
                entries.append(entry)
                continue
            }
            var reasons: [String] = []
            let kind = shinkansen.new.contains(new.id)
            func sameKind(_ r: Row) -> Bool { r.operatorID == old.operatorID && shinkansen.old.contains(r.id) == shinkansen.old.contains(old.id) }
            if old.operatorID != new.operatorID && !old.enabled {
                reasons.append("closed under \(operators[old.operatorID] ?? "o_id \(old.operatorID)"), passed to another operator")
            }
            if new.enabled {
                let renamed = StationName.base(old.name) != StationName.base(new.name)
                if renamed && metres > samePlaceMetres {
                    reasons.append("another name \(Int(metres.rounded())) m away")
                } else if renamed, metres > 0,
                          let nearer = try otherStation(of: old.operatorID, shinkansen: kind, near: old, within: metres, nearer: true, except: new.id, db: db,
                                                        shinkansenStations: shinkansen.new) {
                    reasons.append("renamed, while s_id \(nearer.id) \(nearer.name) now stands nearer where it stood (\(Int(nearer.metres.rounded())) m)")
                }
                if renamed, let heir = retired.first(where: {
                    sameKind($0) && StationName.base($0.name) == StationName.base(new.name)
                        && MicroDegrees.distanceMetres(lat1: $0.lat, lng1: $0.lng, lat2: new.lat, lng2: new.lng) <= sameNameMetres
                }) {
                    reasons.append("takes the name of s_id \(heir.id) \(label(heir)), which retires")
                } else if metres > samePlaceMetres, let heir = retired.first(where: {
                    sameKind($0) && MicroDegrees.distanceMetres(lat1: $0.lat, lng1: $0.lng, lat2: new.lat, lng2: new.lng) <= samePlaceMetres
                }) {
                    reasons.append("moves \(Int(metres.rounded())) m onto the place of s_id \(heir.id) \(label(heir)), which retires")
                }
                if onLines.old.contains(new.id) && onLines.new.contains(new.id) && shinkansen.old.contains(new.id) != shinkansen.new.contains(new.id) {
                    reasons.append(shinkansen.old.contains(new.id) ? "a Shinkansen station would become a conventional one" : "a conventional station would become a Shinkansen one")
                }
                if old.operatorID != new.operatorID, old.enabled,
                   try otherStation(of: old.operatorID, shinkansen: kind, near: new, within: sameNameMetres, except: new.id, db: db,
                                    shinkansenStations: shinkansen.new) != nil {
                    reasons.append("another operator's station, while \(operators[old.operatorID] ?? "o_id \(old.operatorID)") still runs one there")
                }
            }
            if !reasons.isEmpty {
                entry.reason = reasons.joined(separator: "; ")
                let pref = new.pref
                if let text = same[new.id], let expect = StationExpectation(text),
                   expect.isMet(name: new.name, operatorID: new.operatorID, pref: pref, enabled: new.enabled) {
                    entry.decided = IdentityDecisionText.same
                } else {
                    entry.kind = .contested
                    entry.decision = IdentityDecisionText.row(new.id, .same, station: new.name, note: "the same station (\(entry.reason!))")
                    entries.append(entry)
                    continue
                }
            }
            if old.name != new.name {
                entry.kind = .renamed
            } else if metres > 0 {
                entry.kind = .moved
            } else if old.operatorID != new.operatorID {
                entry.kind = .transferred
            } else if entry.decided != nil {
                entry.kind = .moved   // a flip or a re-enabling the maintainer consented to: its reason says which
            } else {
                continue   // another column changed: the same station
            }
            entries.append(entry)
        }
        var added: [Row] = []
        for row in stations.added {
            let r = Row(shape, row)
            added.append(r)
            entries.append(Entry(stationID: r.id, kind: .new, name: label(r), now: place(r)))
        }
        // Orphans: a retired s_id whose station lives on under a new one.
        let liveAdded = added.filter(\.enabled)
        for (k, old) in entries.enumerated() where old.kind == .retired {
            guard let was = retired.first(where: { $0.id == old.stationID }) else { continue }
            let wasShinkansen = shinkansen.old.contains(was.id)
            var heirs: [(Row, Double)] = []
            for a in liveAdded where shinkansen.new.contains(a.id) == wasShinkansen || unproven[was.id] == a.id {
                let metres = MicroDegrees.distanceMetres(lat1: was.lat, lng1: was.lng, lat2: a.lat, lng2: a.lng)
                var like = (StationName.base(a.name) == StationName.base(was.name) && metres <= sameNameMetres)
                    || (a.operatorID == was.operatorID && metres <= samePlaceMetres) || unproven[was.id] == a.id
                if !like, metres <= transferMetres {
                    like = try otherStation(of: was.operatorID, shinkansen: wasShinkansen, near: a, within: sameNameMetres, except: a.id, db: db,
                                            shinkansenStations: shinkansen.new) == nil
                }
                if like { heirs.append((a, metres)) }
            }
            guard let (heir, metres) = heirs.sorted(by: { ($0.1, $0.0.id) < ($1.1, $1.0.id) }).first else { continue }
            if decidedNew[was.id] != nil {
                entries[k].decided = IdentityDecisionText.new
                continue
            }
            entries[k].kind = .orphaned
            entries[k].successor = heir.id
            entries[k].reason = "lives on as s_id \(heir.id) \(label(heir)), \(Int(metres.rounded())) m away"
                + (unproven[was.id] == heir.id ? ": the source's id names it" : "")
            entries[k].decision = IdentityDecisionText.row(was.id, .same, station: heir.name, note: "keep the s_id: the same station as s_id \(heir.id)")
        }
        let order = Dictionary(uniqueKeysWithValues: Kind.allCases.enumerated().map { ($1, $0) })
        entries.sort { (order[$0.kind]!, $0.stationID) < (order[$1.kind]!, $1.stationID) }
        return IdentityReview(kept: stations.oldCount - stations.removed.count - entries.count { $0.kind != .new }, entries: entries)
    }

    static func shinkansenQuery(_ schema: String) -> String {
        "SELECT DISTINCT s_id FROM \(schema).stations_lines JOIN \(schema).lines USING (l_id) WHERE l_type = \(LineType.shinkansen)"
    }

    /// How near another operator's new station must stand to be a retired one's heir when its
    /// own operator runs none of its kind there any more (a line passed on and renamed).
    static let transferMetres = 100.0

    /// The nearest live station of operator `o`, of this kind, in the new version, within
    /// `metres` of `r`'s place (`nearer`: strictly) (`except` aside); nil for none.
    static func otherStation(of o: Int, shinkansen: Bool, near r: Row, within metres: Double, nearer: Bool = false, except: Int, db: SQLiteDatabase,
                             shinkansenStations: Set<Int>) throws -> (id: Int, name: String, metres: Double)? {
        // A degree of latitude is 111 km; of longitude at least 75 km in Japan.
        let dLat = Int(metres / 111_000 * 1_000_000) + 1, dLng = Int(metres / 75_000 * 1_000_000) + 1
        var best: (id: Int, name: String, metres: Double)?
        for row in try db.query("""
            SELECT s_id, station, lat, lng FROM new_bundle.stations WHERE o_id = ? AND enabled = 1 AND s_id != ?
            AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ? ORDER BY s_id
            """, [.integer(Int64(o)), .integer(Int64(except)), .integer(Int64(r.lat - dLat)), .integer(Int64(r.lat + dLat)),
                  .integer(Int64(r.lng - dLng)), .integer(Int64(r.lng + dLng))]) {
            let id = row[0].intValue ?? 0
            let d = MicroDegrees.distanceMetres(lat1: row[2].intValue ?? 0, lng1: row[3].intValue ?? 0, lat2: r.lat, lng2: r.lng)
            if shinkansenStations.contains(id) == shinkansen, nearer ? d < metres : d <= metres, best.map({ d < $0.metres }) ?? true {
                best = (id, row[1].textValue ?? "", d)
            }
        }
        return best
    }
}

/// How raw/identity.csv's rows are written, for the plan to show the one that settles a case.
package enum IdentityDecisionText {
    package static let same = "same", new = "new"
    package enum Kind: String { case same, new }

    /// "1274,same,station=新橋,the same station (...)", quoted where CSV needs it.
    package static func row(_ id: Int, _ kind: Kind, station: String, note: String) -> String {
        String(CSVWriter.line([String(id), kind.rawValue, "station=\(station)", note]).dropLast())
    }
}
