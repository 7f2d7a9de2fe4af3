import BuildDB
import Ingest
import StationCore

/// What a publish or a plan did or would do, for a person (text, markdown) and for CI
/// (JSON, `--json`): published or not, the version, row counts, changes per kind, the
/// guards' verdict and the lint count. A plan's report also lists every change.
package struct RunReport: Codable, Sendable {
    package enum Outcome: String, Codable, Sendable {
        /// publish: a new version is in dist.
        case published
        /// Nothing changed: the tables equal the baseline's.
        case unchanged
        /// plan: a new version would be published.
        case wouldPublish = "would_publish"
        /// A guard refused it (publish), or would (plan).
        case refused
    }

    package struct GuardVerdict: Codable, Sendable {
        package var passed: Bool
        /// Published (or would be) although a guard was exceeded: --force.
        package var forced: Bool
        package var violations: [String]
        /// What no --force passes: s_ids that would name another station with no decision.
        package var undecided: [String] = []
    }

    package struct BaselineInfo: Codable, Sendable, Equatable {
        package var version: Int
        package var sha256: String
        /// The dist folder or URL it was read from.
        package var source: String
    }

    package var command: String
    package private(set) var outcome: Outcome = .unchanged
    /// outcome == .published, and the exit status's number: said in the JSON for CI.
    package private(set) var published = false
    private var exitCode = 0
    /// The version published or that would be; when nothing changed, the current one (null in the JSON when none).
    @Null package var version: Int? = nil
    @Null package var baseline: BaselineInfo?
    /// The upstream release each source holds, against the baseline's (latest.json's "releases").
    package var releases: [SourceRelease] = []
    /// Rows per table of that version.
    package var rows: [String: Int] = [:]
    /// Per table, the number of changes of each kind (ChangeList).
    package var changes: [String: [String: Int]] = [:]
    package var guards = GuardVerdict(passed: true, forced: false, violations: [])
    /// Lint's count, its `review` findings counted only for the stations this version changes.
    @Null package var lintWarnings: Int?
    /// Lint's findings on fixes that move a station over a kilometre or rename one, each
    /// at its line of fixes.csv (rule `review`): those of the stations this version moves
    /// or renames (a change published before is no news in the versions after it).
    package var review: [String] = []
    /// Every change (a plan's; a publish's report counts them, and the JSON leaves it out).
    package var entries: [ChangeList.Entry]?
    /// What the version does to identities, s_id by s_id (IdentityReview).
    package var identity: IdentityReview?
    /// Moves over a kilometre and station renames: what a reviewer looks at first.
    var notable: [ChangeList.Entry] = []

    /// The exit status the command gives: plan 0 nothing would change, 1 a new version
    /// would be published, 4 a guard would refuse; publish 0 or 4.
    package var exitStatus: ExitStatus {
        switch outcome {
        case .refused: .guardRefused
        case .wouldPublish: .differences
        case .published, .unchanged: .success
        }
    }

    enum CodingKeys: String, CodingKey {
        case command, outcome, published, version, baseline, releases, rows, changes, guards, entries, review, identity
        case lintWarnings = "lint_warnings", exitCode = "exit_status"
    }

    /// What `outcome` says, against `baseline`, with the lint report's count and the fixes it
    /// names that this version moves or renames a station with; `listingChanges` (a plan)
    /// lists every change too.
    init(_ outcome: BuildOutcome, command: String, baseline: Baseline?, lint: LintReport?, force: Bool, listingChanges: Bool = false) {
        defer { (published, exitCode) = (self.outcome == .published, Int(exitStatus.rawValue)) }
        self.command = command
        self.baseline = baseline.map { BaselineInfo(version: $0.bundle.version, sha256: $0.bundle.sha256, source: $0.label) }
        let reviewFindings = lint?.findings.filter { $0.rule == LintRule.review.rawValue } ?? []
        lintWarnings = lint.map { $0.count - reviewFindings.count }
        guard let candidate = outcome.candidate else {
            if case .unchanged(let version) = outcome { self.version = baseline == nil ? nil : version }
            rows = baseline?.bundle.rows ?? [:]
            releases = SourceRelease.list(previous: baseline?.bundle.releases, current: baseline?.bundle.releases ?? [:])
            return
        }
        releases = SourceRelease.list(previous: baseline?.bundle.releases, current: candidate.bundle.releases ?? [:])
        switch outcome {
        case .published: self.outcome = .published
        case .refused: self.outcome = .refused
        default: self.outcome = candidate.refused(force: force) ? .refused : .wouldPublish
        }
        identity = candidate.identity
        version = candidate.bundle.version
        rows = candidate.bundle.rows
        let forced = force && !candidate.violations.isEmpty && self.outcome != .refused
        guards = GuardVerdict(passed: candidate.violations.isEmpty && candidate.undecided.isEmpty, forced: forced, violations: candidate.violations,
                              undecided: candidate.undecided)
        if let list = candidate.changes {
            for table in ChangeList.tableOrder {
                let counts = list.counts(table)
                if !counts.isEmpty { changes[table] = Dictionary(uniqueKeysWithValues: counts.map { ($0.kind.rawValue, $0.count) }) }
            }
            if listingChanges { entries = list.entries }
            notable = list.notable
            let changed = Set(notable.map(\.id))
            review = reviewFindings.filter { changed.contains($0.stationID ?? -1) }.map { "\($0.location): \($0.message)" }
            lintWarnings = lintWarnings.map { $0 + review.count }
        }
    }

    /// The document `--json` prints: keys sorted, two-space indent.
    package func json() throws -> [UInt8] { try jsonDocument(self) }
}

// MARK: - Text and markdown

extension RunReport {
    package enum Format: String, CaseIterable, Sendable {
        case text, markdown, json
    }

    /// `explain`: in text, each identity the review names shows its evidence as a waterfall
    /// (its pair's terms and its best rival's), as `stationdb explain` does; json always has it.
    package func render(_ format: Format, limit: Int = 50, preview: String? = nil, explain: Bool = false) throws -> String {
        switch format {
        case .json: return String(decoding: try json(), as: UTF8.self)
        case .text: return text(limit: limit, preview: preview, explain: explain)
        case .markdown: return markdown(limit: limit, preview: preview)
        }
    }

    package var headline: String {
        let against = baseline.map { "version \($0.version) of \($0.source)" } ?? "nothing published yet"
        switch outcome {
        case .unchanged: return "nothing would change: the bundle equals \(against)"
        case .wouldPublish: return "version \(version ?? 0) would be published (against \(against))" + (guards.forced ? ", past the guards (--force)" : "")
        case .refused: return "version \(version ?? 0) would be refused by a guard (against \(against))"
        case .published: return "version \(version ?? 0) was published (against \(against))"
        }
    }

    var countsLine: String {
        ChangeList.tableOrder.compactMap { table in rows[table].map { "\($0) \(table)" } }.joined(separator: ", ")
    }

    /// Those changes, then the fixes behind such changes at their line of fixes.csv.
    package var lookAtThese: [String] {
        notable.map { "\($0.kind.rawValue) \(ChangeList.withCause($0))" } + review
    }

    func text(limit: Int, preview: String?, explain: Bool = false) -> String {
        var out = "\(command): \(headline)\n"
        for release in releases { out += "upstream: \(release)\n" }
        if !rows.isEmpty { out += "rows: \(countsLine)\n" }
        if let entries, !entries.isEmpty {
            let notable = lookAtThese
            if !notable.isEmpty {
                out += "\nlook at these (moves over 1 km and renames, and the fixes that make them):\n"
                for line in notable { out += "  \(printable(line))\n" }
            }
            out += ChangeList(entries: entries).text(limit: limit)
        }
        if let identity { out += "\n" + Self.identityText(identity, limit: limit, explain: explain) }
        out += "\n" + guardsText + "\n"
        if let lintWarnings { out += "lint: \(lintWarnings) warning\(lintWarnings == 1 ? "" : "s") (`make lint` lists them)\n" }
        if let preview { out += "preview: \(preview) (open it in a browser)\n" }
        return out
    }

    var verdict: String {
        if !guards.undecided.isEmpty { return outcome == .published ? "exceeded" : "would refuse, FORCE_PUBLISH=1 too (an identity needs a decision)" }
        if guards.violations.isEmpty { return "passed" }
        if guards.forced { return outcome == .published ? "exceeded, published anyway (--force)" : "exceeded, would be published anyway (--force)" }
        return outcome == .published ? "exceeded" : "would refuse (FORCE_PUBLISH=1 publishes anyway)"
    }

    var guardsText: String {
        "guards: \(verdict)" + (guards.undecided + guards.violations).map { "\n  - \(printable($0))" }.joined()
    }

    /// "identities: 9512 kept, 3 renamed, ..." and each s_id that is not simply kept, with its evidence.
    static func identityCounts(_ identity: IdentityReview) -> String {
        "\(identity.kept) kept" + IdentityReview.Kind.allCases.compactMap { kind in
            let n = identity.entries.count { $0.kind == kind }
            return n == 0 ? nil : ", \(n) \(kind.rawValue)"
        }.joined()
    }

    static func describe(_ e: IdentityReview.Entry) -> String {
        var out = "s_id \(e.stationID) \(e.name)"
        switch e.kind {
        case .renamed, .moved, .transferred, .contested:
            out += ": \(e.was ?? "") -> \(e.now ?? "")" + (e.metres.map { " (\(Int($0.rounded())) m)" } ?? "")
        case .merged:
            // The pair the apps act on: every record a user keeps on the s_id moves to its survivor.
            if let heir = e.successor { out += " into s_id \(heir) \(e.now ?? ""): the apps move its users' records there" }
        case .orphaned, .new, .retired: break
        }
        if let reason = e.reason { out += "; \(reason)" }
        if let decided = e.decided { out += " [decided: \(decided), raw/identity.csv]" }
        return out
    }

    static func identityText(_ identity: IdentityReview, limit: Int, explain: Bool = false) -> String {
        var out = "identities: \(identityCounts(identity))\n"
        let model = IdentityModel.estimated, indent = "".padded(to: 14)
        for kind in IdentityReview.Kind.allCases {
            let some = identity.entries.filter { $0.kind == kind }
            for e in some.prefix(limit) {
                out += "  \(kind.rawValue.padded(to: 9)) \(printable(describe(e)))\n"
                if let row = e.decision { out += "  \("".padded(to: 9)) decide in raw/identity.csv: \(printable(row))\n" }
                guard explain else { continue }
                // Line by line: the waterfall's own line ends, whatever a source put in a level.
                func lines(_ w: IdentityModel.Weight) -> String {
                    w.waterfall(model, indent: indent + "  ").split(separator: "\n").map { printable(String($0)) + "\n" }.joined()
                }
                if let w = e.weight { out += indent + "evidence:\n" + lines(w) }
                if let rival = e.rival { out += indent + "best rival, \(printable(rival.label)):\n" + lines(rival.weight) }
            }
            if some.count > limit { out += "  \(kind.rawValue.padded(to: 9)) ... and \(some.count - limit) more\n" }
        }
        return out
    }

    func markdown(limit: Int, preview: String?) -> String {
        func cell(_ s: String) -> String { s.markdownCell }
        var out = "### stationdb \(command): \(cell(headline))\n\n"
        for release in releases { out += "upstream: \(cell(release.description))\n\n" }
        if !rows.isEmpty { out += "\(countsLine)\n\n" }
        let kinds = ChangeList.Kind.allCases
        if !changes.isEmpty {
            out += "| table | " + kinds.map(\.rawValue).joined(separator: " | ") + " |\n|---|" + kinds.map { _ in "---:|" }.joined() + "\n"
            for table in ChangeList.tableOrder {
                guard let counts = changes[table] else { continue }
                out += "| \(table) | " + kinds.map { counts[$0.rawValue].map(String.init) ?? "" }.joined(separator: " | ") + " |\n"
            }
            out += "\n"
        }
        let notable = lookAtThese
        if !notable.isEmpty {
            out += "**Look at these** (moves over 1 km and renames, and the fixes that make them):\n\n"
            for line in notable { out += "- \(cell(line))\n" }
            out += "\n"
        }
        if let entries, !entries.isEmpty {
            for table in ChangeList.tableOrder {
                let rows = entries.filter { $0.table == table }
                if rows.isEmpty { continue }
                out += "<details><summary>\(table): \(rows.count) change\(rows.count == 1 ? "" : "s")</summary>\n\n| change | row | cause |\n|---|---|---|\n"
                for kind in kinds {
                    let some = rows.filter { $0.kind == kind && $0.follows != true }
                    for e in some.prefix(limit) { out += "| \(kind.rawValue) | \(cell(ChangeList.describe(e))) | \(cell(e.cause ?? "")) |\n" }
                    if some.count > limit { out += "| \(kind.rawValue) | … and \(some.count - limit) more | |\n" }
                }
                for group in ChangeList.groupedWeights(rows, limit: limit) { out += "| weight | \(cell(group.line)) | \(cell(group.cause)) |\n" }
                out += "\n</details>\n\n"
            }
        }
        if let identity {
            out += "**Identities:** \(Self.identityCounts(identity))\n\n"
            let listed = identity.entries.filter { $0.kind == .contested || $0.kind == .orphaned }
            if !listed.isEmpty {
                out += "| s_id | what | evidence | decide in raw/identity.csv |\n|---|---|---|---|\n"
                for e in listed.prefix(limit) {
                    out += "| \(e.stationID) | \(e.kind.rawValue) | \(cell(Self.describe(e))) | \(e.decision.map { "`\(cell($0))`" } ?? "") |\n"
                }
                if listed.count > limit { out += "| | … and \(listed.count - limit) more | | |\n" }
                out += "\n"
            }
            let rest = identity.entries.filter { $0.kind != .contested && $0.kind != .orphaned }
            if !rest.isEmpty {
                out += "<details><summary>identities: \(rest.count) renamed, moved, new or retired</summary>\n\n| s_id | what | station |\n|---|---|---|\n"
                for e in rest.prefix(limit) { out += "| \(e.stationID) | \(e.kind.rawValue) | \(cell(Self.describe(e))) |\n" }
                if rest.count > limit { out += "| | … and \(rest.count - limit) more | |\n" }
                out += "\n</details>\n\n"
            }
        }
        let refusals = guards.undecided + guards.violations
        out += "**Guards:** \(verdict)\n" + (refusals.isEmpty ? "" : "\n" + refusals.map { "- \(cell($0))" }.joined(separator: "\n") + "\n")
        if let lintWarnings { out += "\n**Lint:** \(lintWarnings) warning\(lintWarnings == 1 ? "" : "s") (`make lint` lists them)\n" }
        return out
    }
}
