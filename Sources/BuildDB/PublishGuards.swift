import StationCore

/// Every rule that refuses a version unless it is forced, in one place: plan, publish and
/// build check each candidate against its baseline with `violations`, and verify checks
/// every bundle for what is wrong with it whatever it is compared with (`emptyLines`).
package enum PublishGuards {
    /// The candidate against the published `baseline` (nil for a first version): the limits
    /// on what one version may change (`guards`), a live line with no live station, and the
    /// hand weights it lost (HandWeights.lossViolation). One sentence per rule broken.
    package static func violations(of candidate: Candidate, against baseline: Baseline?, guards: DiffGuards) throws -> [String] {
        var reasons = candidate.difference.map { guards.violations(of: DiffSummary(difference: $0)) } ?? []
        let empty = try emptyLines(in: candidate.database)
        if !empty.isEmpty {
            let shown = empty.prefix(12).map { "\($0.name) (l_id \($0.id))" }.joined(separator: ", ")
            let more = empty.count > 12 ? ", and \(empty.count - 12) more" : ""
            let them = empty.count == 1 ? "it" : "them"
            reasons.append("\(empty.count) live line\(empty.count == 1 ? " has" : "s have") no live station: \(shown)\(more); "
                           + "give \(them) stations or disable \(them) (a disable row in fixes.csv), as a real master does")
        }
        if let baseline, let lost = HandWeights.lossViolation(published: try HandWeights.count(inBundle: baseline.databasePath),
                                                             candidate: try HandWeights.count(inBundle: candidate.database),
                                                             version: baseline.bundle.version) {
            reasons.append(lost)
        }
        return reasons
    }

    /// The s_ids the candidate would hand to another station with no decision of the
    /// maintainer's (IdentityReview's contested ones): one sentence, empty when there are
    /// none. No `--force` passes it: users' records would move to a station they never saw.
    package static func undecided(_ candidate: Candidate) -> [String] {
        guard let contested = candidate.identity?.undecided, !contested.isEmpty else { return [] }
        let shown = contested.prefix(8).map { "s_id \($0.stationID) \($0.was ?? "") -> \($0.now ?? "") (\($0.reason ?? ""))" }.joined(separator: "; ")
        let more = contested.count > 8 ? "; and \(contested.count - 8) more" : ""
        return ["\(contested.count) s_id\(contested.count == 1 ? "" : "s") would name another station, or two compete for \(contested.count == 1 ? "it" : "them"): \(shown)\(more); "
                + "FORCE_PUBLISH does not pass this: decide each in raw/identity.csv, `same` when it is the same station, `new` to give the station a new s_id "
                + "(the plan shows each row; docs/maintaining.md)"]
    }

    /// The live lines on which no live station lies, in l_id order: the apps would list them empty.
    package static func emptyLines(in database: String) throws -> [(id: Int, name: String)] {
        try SQLiteDatabase(path: database).query("""
            SELECT l_id, line FROM lines WHERE enabled = 1 AND l_id NOT IN
                (SELECT l_id FROM stations_lines JOIN stations USING (s_id) WHERE stations.enabled = 1) ORDER BY l_id
            """).map { (Int($0[0].intValue ?? 0), $0[1].textValue ?? "") }
    }
}

/// A dead publish's version folder is skipped, its number never reused.
package struct SkippedVersion: Event, Equatable {
    package var folder: Int
    package var version: Int
    package var description: String {
        "dist/\(folder) was never named by latest.json (a publish that died, or a rollback); its number is not reused: building \(version)"
    }
}
