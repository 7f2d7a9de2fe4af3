/// What a new version does to identities, s_id by s_id, against the registry (every s_id ever
/// published, as last published): the apps keep users' records by s_id, so the question for
/// every s_id is whether it still names the station it named. Ingest works it out with the
/// same evidence model and the same two sides the linker uses (IdentityReviewer), whatever
/// made the s_ids (the linker, a native master's own, a fix):
///
/// - **kept**: the same station, as it was; **renamed**, **moved** or **transferred** to
///   another operator: the same station still;
/// - **new**: an s_id never published before; **retired**: live before, disabled now;
///   **merged**: retired into another station (renumbered_stations), by the evidence or a
///   `merge` decision: its users' records go there;
/// - **contested**, refused by the guards with no `--force` past them until the maintainer
///   decides it in raw/identity.csv: an s_id whose two stations the evidence says are two
///   (what looks like a typo: a jump to another name far away, two rows swapped), or one two
///   candidates compete for;
/// - **orphaned**: a retired s_id whose station may live on as another (its survivor named,
///   with the row that keeps its records): published, for the maintainer to look at.
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
        /// The evidence: the pair's terms (the s_id as published against its station now, or
        /// its survivor), and the best rival's.
        package var weight: IdentityModel.Weight?
        package var rival: Rival?

        enum CodingKeys: String, CodingKey {
            case stationID = "s_id", kind, name, was, now, metres, reason, successor, decided, decision, weight, rival
        }

        package init(stationID: Int, kind: Kind, name: String, was: String? = nil, now: String? = nil, metres: Double? = nil, reason: String? = nil,
                    successor: Int? = nil, decided: String? = nil, decision: String? = nil, weight: IdentityModel.Weight? = nil) {
            self.stationID = stationID; self.kind = kind; self.name = name; self.was = was; self.now = now; self.metres = metres
            self.reason = reason; self.successor = successor; self.decided = decided; self.decision = decision; self.weight = weight
        }
    }

    /// Another pairing the evidence weighs: "s_id 1318 浜松町 (JR東日本)" and its terms.
    package struct Rival: Sendable, Codable, Equatable {
        package var label: String
        package var weight: IdentityModel.Weight
        package init(label: String, weight: IdentityModel.Weight) { self.label = label; self.weight = weight }
    }

    /// Stations published before and now whose name, place, operator and kind are as they were.
    package var kept: Int
    package var entries: [Entry]

    package init(kept: Int, entries: [Entry]) { self.kept = kept; self.entries = entries }

    /// The review, when it names an s_id.
    package var nonEmpty: IdentityReview? { entries.isEmpty ? nil : self }

    /// What the guards refuse whatever `--force` says: a decision is missing.
    package var undecided: [Entry] { entries.filter { $0.kind == .contested } }
    package var orphans: [Entry] { entries.filter { $0.kind == .orphaned } }
}

/// How raw/identity.csv's rows are written, for the plan to show the one that settles a case.
package enum IdentityDecisionText {
    package enum Kind: String { case same, new, merge }

    /// "1274,same,station=新橋;o_id=5,the same station (...)", quoted where CSV needs it.
    package static func row(_ id: Int, _ kind: Kind, expect: String, note: String) -> String {
        String(CSVWriter.line([String(id), kind.rawValue, expect, note]).dropLast())
    }
}
