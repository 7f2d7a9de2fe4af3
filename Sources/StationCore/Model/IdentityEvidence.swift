// Whether two station records are one station: the one evidence model that every identity
// decision goes through. Ingest links a run's stations to the registered s_ids with it
// (IdentityLinker), and the build reviews every s_id of a new version against the
// published one with it (IdentityReview), so what links and what is refused are the same
// judgement. As record linkage states match weights (Fellegi and Sunter; splink), each
// comparison falls in a level and adds that level's weight, roughly log2 of how much more
// often the level is seen for the same station than for two; their sum is the pair's
// weight. docs/maintaining.md ("Identities") shows the table `table` prints.

/// One side of a pair: a station as registered or published (old) or as this run gives it (new).
package struct StationRecord: Sendable {
    package let name: String
    /// The name as pairs compare it (StationName.base), when the caller made it once for a
    /// record it weighs against several (normalising is most of a weighing's time); nil, it
    /// is made at each weighing.
    package var base: String?
    package var lat: Int
    package var lng: Int
    package var operatorID: Int
    package var shinkansen: Bool
    package var enabled: Bool

    package init(name: String, base: String? = nil, lat: Int, lng: Int, operatorID: Int, shinkansen: Bool, enabled: Bool) {
        self.name = name; self.base = base; self.lat = lat; self.lng = lng; self.operatorID = operatorID; self.shinkansen = shinkansen; self.enabled = enabled
    }
}

/// What is known of a pair beyond its two records.
package struct PairContext: Sendable {
    /// What the source's keys say: the new station carries the old s_id's id (the upstream's
    /// `id`), another key of it (a code), a key of another s_id's, or none registered.
    package enum Key: Sendable { case id, code, another, none }
    package var key: Key = .none
    /// The share of the new station's neighbours along its lines that were on the old
    /// station's lines: its line continues, whoever runs it now; nil when either has none.
    package var continuity: Double?
    /// The old station's operator still runs one of its lines within a kilometre of it,
    /// at another station than the new one (then an s_id passed to another operator would
    /// leave its line behind: the 東京 Shinkansen case).
    package var ownOperatorStaysThere = false

    package init(key: Key = .none, continuity: Double? = nil, ownOperatorStaysThere: Bool = false) {
        self.key = key; self.continuity = continuity; self.ownOperatorStaysThere = ownOperatorStaysThere
    }
}

package enum IdentityEvidence {
    /// A pair at or above this weight, with no contradiction, is the same station.
    package static let link = 7
    /// A pair must beat the next best by this much to be proven: two nearly as good prove nothing.
    package static let margin = 4
    /// A retired s_id whose station another holds at this weight or more is listed (an orphan, or a merge).
    package static let possible = 3

    /// Why a pair can never be the same station on its weight alone: what looks like a typo
    /// or a careless source, which only the maintainer's decision overrules.
    package enum Contradiction: String, Sendable, Equatable {
        case kind = "a Shinkansen station and a conventional one"
        case farName = "another name far away"
        case lineLeftBehind = "its operator still runs its line there"
    }

    package struct Term: Sendable, Equatable {
        package var evidence: String
        package var level: String
        package var weight: Int
    }

    package struct Weight: Sendable, Equatable {
        package var terms: [Term]
        package var contradiction: Contradiction?
        package var metres: Double
        package var total: Int { terms.reduce(0) { $0 + $1.weight } }
        /// The same station, by the evidence alone.
        package var links: Bool { contradiction == nil && total >= IdentityEvidence.link }
        /// The operator changed, with the line continuing under the new one.
        package var transferred: Bool { terms.contains { $0.level == Level.transferred.name } }
    }

    /// Each comparison's levels and weights, in the order the table lists them.
    struct Level: Sendable {
        var evidence: String, name: String, weight: Int
        static let sameName = Level(evidence: "name", name: "the same", weight: 6)
        static let variant = Level(evidence: "name", name: "a variant: a character added or dropped at the end", weight: 3)
        static let otherName = Level(evidence: "name", name: "another", weight: -4)
        static let within100 = Level(evidence: "distance", name: "up to 100 m", weight: 5)
        static let within300 = Level(evidence: "distance", name: "up to 300 m", weight: 3)
        static let within1000 = Level(evidence: "distance", name: "up to 1 km", weight: 0)
        static let within5000 = Level(evidence: "distance", name: "up to 5 km", weight: -4)
        static let farther = Level(evidence: "distance", name: "farther", weight: -10)
        static let sameOperator = Level(evidence: "operator", name: "the same", weight: 2)
        static let transferred = Level(evidence: "operator", name: "another, its line continuing (a transfer)", weight: -2)
        static let otherOperator = Level(evidence: "operator", name: "another", weight: -4)
        static let continues = Level(evidence: "line", name: "continues: half its neighbours or more were on its lines", weight: 4)
        static let partly = Level(evidence: "line", name: "partly: some of them", weight: 1)
        static let breaks = Level(evidence: "line", name: "breaks: none of them", weight: -3)
        static let reopened = Level(evidence: "status", name: "closed, now live", weight: -5)
        static let closed = Level(evidence: "status", name: "live, now closed", weight: -5)
        static let ownKey = Level(evidence: "key", name: "the source's id for it", weight: 6)
        static let ownCode = Level(evidence: "key", name: "a code the source gave it", weight: 4)
        static let anotherKey = Level(evidence: "key", name: "another s_id's", weight: -4)

        static let all: [Level] = [sameName, variant, otherName, within100, within300, within1000, within5000, farther,
                                   sameOperator, transferred, otherOperator, continues, partly, breaks, reopened, closed,
                                   ownKey, ownCode, anotherKey]
        var term: Term { Term(evidence: evidence, level: name, weight: weight) }
    }

    /// How far a station renamed may stand from where it stood before its new name is a typo's.
    package static let renamedReachMetres = 300.0

    /// The weight of `old` and `new` being one station.
    package static func weigh(_ old: StationRecord, _ new: StationRecord, _ context: PairContext) -> Weight {
        let metres = MicroDegrees.distanceMetres(lat1: old.lat, lng1: old.lng, lat2: new.lat, lng2: new.lng)
        var levels: [Level] = []
        let name = NameAgreement(base: old.base ?? StationName.base(old.name), new.base ?? StationName.base(new.name))
        levels.append(name == .same ? .sameName : name == .variant ? .variant : .otherName)
        levels.append(metres <= 100 ? .within100 : metres <= 300 ? .within300 : metres <= 1_000 ? .within1000 : metres <= 5_000 ? .within5000 : .farther)
        let continuity = context.continuity
        if old.operatorID == new.operatorID {
            levels.append(.sameOperator)
        } else {
            levels.append((continuity ?? 0) >= 0.5 && !context.ownOperatorStaysThere ? .transferred : .otherOperator)
        }
        if let continuity { levels.append(continuity >= 0.5 ? .continues : continuity > 0 ? .partly : .breaks) }
        if old.enabled != new.enabled { levels.append(new.enabled ? .reopened : .closed) }
        switch context.key {
        case .id: levels.append(.ownKey)
        case .code: levels.append(.ownCode)
        case .another: levels.append(.anotherKey)
        case .none: break
        }
        var contradiction: Contradiction?
        if old.shinkansen != new.shinkansen {
            contradiction = .kind
        } else if name == .other && metres > renamedReachMetres {
            contradiction = .farName
        } else if old.operatorID != new.operatorID && context.ownOperatorStaysThere {
            contradiction = .lineLeftBehind
        }
        return Weight(terms: levels.map(\.term), contradiction: contradiction, metres: metres)
    }

    /// How two names compare once normalised (StationName.base): the same, a variant (a
    /// character added or dropped at the end: 観光通 and 観光通り), or another name (one
    /// character changed is another station as often as not: 白石 and 白井, 駅60 and 駅61;
    /// one added at the start too: 新赤迫 is not 赤迫).
    package enum NameAgreement: Sendable, Equatable {
        case same, variant, other
        package init(base a: String, _ b: String) {
            if a == b { self = .same; return }
            let x = Array(a), y = Array(b)
            let (short, long) = x.count <= y.count ? (x, y) : (y, x)
            self = short.count >= 2 && long.count == short.count + 1 && long.starts(with: short) ? .variant : .other
        }
    }

    /// The evidence table as docs/maintaining.md shows it (a test holds the two together).
    package static var table: String {
        var out = "| evidence | level | weight |\n|---|---|---|\n"
        for l in Level.all { out += "| \(l.evidence) | \(l.name) | \(l.weight > 0 ? "+" : "")\(l.weight) |\n" }
        out += "| kind | a Shinkansen station and a conventional one | contradiction |\n"
        out += "| name and distance | another name beyond \(Int(renamedReachMetres)) m | contradiction |\n"
        out += "| operator | another, while the s_id's own still runs its line within 1 km | contradiction |\n"
        return out
    }
}
