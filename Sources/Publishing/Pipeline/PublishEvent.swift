import StationCore

/// What the maintainer's loop tells while it runs (publish, plan, and the stages run by
/// hand): each a value a test can match, and the sentence `stationdb` says for it.
package enum PublishEvent: Event, Equatable {
    /// A stage runs because what it reads changed (`reason`), or is up to date (nil).
    case stage(String, reason: String?)
    /// Ingest's counts; `staging` nil when it only checked (`stationdb ingest --check`).
    case ingested(summary: String, staging: String?)
    /// New IDs that `registry` takes when the version is published.
    case newIDs(Int, registry: String)
    case linted(summary: String, raw: String, count: Int)
    case weighed(counts: String, path: String)
    case registryUpdated(path: String, newIDs: Int)
    /// raw/registry.csv was missing: a publish restores it from the published version's copy, a plan reads that copy.
    case registryRestored(path: String, from: String, version: Int)
    case registryBorrowed(path: String, from: String, version: Int)
    /// The published version is out, but `registry` could not take its registry (exit 5).
    case registryNotUpdated(version: Int, dist: String, registry: String, kept: String, error: String)
    /// The version a plan prepared is published as it is, or made again (and why).
    case candidateTaken(version: Int, folder: String)
    case candidateRedone(folder: String, changes: [String])
    /// The bundle equals the published version: nothing to publish.
    case unchanged(version: Int)
    /// `undecided`: an identity needs the maintainer's decision, which no --force replaces.
    case refused(reasons: [String], dist: String, undecided: Bool = false)
    case forced(reasons: [String])
    case published(version: Int, counts: String, changes: String, lintWarnings: Int?)
    case recordNotWritten(String)
    /// A change a reviewer looks at first, said as it is published.
    case lookAtThis(String)
    /// The last word of a publish, for a cron job to look for.
    case publishedInto(version: Int, dist: String)
    case nothingChanged(dist: String, version: Int?)
    case preview(path: String)
    case noPreview(String)
    case readingBaseline(url: String)
    case baselineRead(version: Int, url: String, sha256: String)
    /// plan --against: the local dist holds `versions`, published after the served one and not deployed.
    case distAhead(dist: String, versions: [Int], url: String, served: Int)
    /// plan --against: the served version is not on the local dist's line (it is behind, or
    /// another publication); a deploy of the next version would be refused.
    case distOffProduction(dist: String, version: Int, url: String, served: Int, next: Int)
    /// plan --against with no version in the local dist (CI's clone, or a second machine):
    /// the plan is what a dist copied from the server would publish, not a publish here.
    case distEmpty(dist: String, url: String, served: Int)
    /// plan --against, the local dist not the served one: the candidate against the local version.
    case againstDist(dist: String, version: Int, next: Int, changes: String, violations: [String])

    package var description: String {
        switch self {
        case .stage(let name, let reason?): "\(name): running (\(reason))"
        case .stage(let name, nil): "\(name): up to date (nothing it reads has changed)"
        case .ingested(let summary, let staging?): "\(summary) -> \(staging)"
        case .ingested(let summary, nil): "\(summary) (checked; nothing written)"
        case .newIDs(let n, let registry): "ingest: \(n) new IDs; \(registry) takes them when the version is published"
        case .linted(let summary, let raw, let count): "lint: \(summary) in \(raw)" + (count > 0 ? "; `make lint` lists them" : "")
        case .weighed(let counts, let path): "priority: \(counts); wrote \(path)"
        case .registryUpdated(let path, let n):
            "build: \(path) updated (\(n > 0 ? "\(n) new IDs" : "rows as now published")); commit it with the source change that caused it"
        case .registryRestored(let path, let from, let version):
            "warning: \(path) was missing; restored it from \(from), the registry version \(version) was published with; commit it"
        case .registryBorrowed(let path, let from, let version):
            "warning: \(path) is missing; this plan reads \(from), the registry version \(version) was published with (a publish restores it)"
        case .registryNotUpdated(let version, let dist, let registry, let kept, let error):
            "error: version \(version) is published into \(dist), but \(registry) could not be updated: \(error)\n"
                + "copy \(kept) (the registry version \(version) was published with) over \(registry) and commit it"
        case .candidateTaken(let version, let folder):
            "build: taking version \(version) as it was prepared (\(folder)): nothing it is made from has changed since"
        case .candidateRedone(let folder, let changes):
            "build: the version prepared before (\(folder)) is not what would be published now (\(changes.joined(separator: ", "))); preparing it again"
        case .unchanged(let version): "build: the bundle equals the published version \(version); nothing published"
        case .refused(let reasons, let dist, let undecided):
            StationError.refused(reasons).description + "\nnothing was published (\(dist) is as it was); "
                + (undecided ? "no FORCE_PUBLISH publishes an s_id that would name another station: decide each in raw/identity.csv, "
                               + "with the row `make plan` shows for it (docs/maintaining.md, \"Identities\")"
                             : "if this change is intended, run the same make again with FORCE_PUBLISH=1 (stationdb build --force)")
        case .forced(let reasons): reasons.map { "publishing anyway (--force): \($0)" }.joined(separator: "\n")
        case .published(let version, let counts, let changes, let warnings):
            "published version \(version): \(counts); \(changes)" + (warnings.map { "; \($0) lint warning\($0 == 1 ? "" : "s")" } ?? "")
        case .recordNotWritten(let error): "warning: \(error); the next publish will compare the bundle with the published one again"
        case .lookAtThis(let line): "look at this: \(printable(line))"
        case .publishedInto(let version, let dist): "stationdb: published version \(version) into \(dist)"
        case .nothingChanged(let dist, let version):
            // One wording for every run that publishes nothing, for a cron job to look for.
            "stationdb: nothing changed; \(dist) is up to date (version \(version.map(String.init) ?? "none"))"
        case .preview(let path): "plan: wrote \(path), the map the apps would show; open it in a browser"
        case .noPreview(let error): "warning: no preview written: \(error)"
        case .readingBaseline(let url): "plan: reading the version published at \(url)"
        case .baselineRead(let version, let url, let sha256): "plan: version \(version) of \(url), checked (sha256 \(sha256.prefix(12))...)"
        case .distAhead(let dist, let versions, let url, let served):
            "plan: \(dist) is ahead of \(url): version\(versions.count == 1 ? "" : "s") \(versions.map(String.init).joined(separator: ", ")) "
                + "published here after the served \(served), not deployed yet; the report compares with \(served), what the apps have"
        case .distOffProduction(let dist, let version, let url, let served, let next):
            "warning: \(url) serves version \(served), which is not on the line of \(dist) (at \(version)): the next publish here makes "
                + "version \(next) after \(version), and a deploy of it would be refused. Copy the served dist into \(dist) first (docs/hosting.md)"
        case .distEmpty(let dist, let url, let served):
            "warning: \(dist) holds no version while \(url) serves version \(served): this plan is what a dist copied from it would "
                + "publish; a publish here would make version 1, and a deploy of it would be refused. Copy the served dist into \(dist) "
                + "first (docs/hosting.md)"
        case .againstDist(let dist, let version, let next, let changes, let violations):
            "plan: against version \(version) of \(dist), which the publish compares with, version \(next) changes \(changes); guards: "
                + (violations.isEmpty ? "passed" : "would refuse (\(violations.count) reason\(violations.count == 1 ? "" : "s"), in the report)")
        }
    }
}
