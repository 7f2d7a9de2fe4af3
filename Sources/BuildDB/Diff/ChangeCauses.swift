import StationCore

/// Why a version changes what it changes, for the reports to say beside each change: the
/// line of raw/fixes.csv that set a value, the upstream release that brought the rest, the
/// hand weights of raw/weights.csv, or the machine weights that follow the other changes
/// (a station closes, and its neighbours' weights are drawn again around the gap).
///
/// Worked out from what the staging file records (the fixes' changes, the sources' digests
/// and releases) against what the baseline's latest.json records (its sources' digests and
/// releases), so a plan, a publish's summary.txt and the preview give the same cause.
package struct ChangeCauses: Sendable {
    package static let handWeights = "raw/weights.csv"
    /// Hand weights that only moved between levels 1..10: a re-tier, listed as one group.
    package static let retiered = "raw/weights.csv (re-tiered)"
    package static let machineWeights = "machine weights"
    /// Machine weights that changed with no other change to follow: another seed, method or stationdb.
    package static let redrawnWeights = "machine weights (another SEED, METHOD or stationdb)"
    package static let renumbered = "raw/renumbered.csv"

    struct Row: Hashable {
        var table: String
        var id: Int
    }

    /// The fixes of raw/fixes.csv by the row they changed, each with its columns.
    var fixes: [Row: [(columns: Set<String>, fix: String)]] = [:]
    /// What the sources changed since the baseline: "upstream v20260227 -> v20260529", "raw/ekidata".
    package var sources: String?
    /// What changed when no source did.
    package var otherwise: String

    /// `meta`: the staging file's facts; `baseline`: the version it is compared with.
    package init(meta: [String: String], baseline: PublishedBundle) {
        for value in FixedValue.parse(meta[StagingMeta.fixes]) {
            fixes[Row(table: value.table, id: value.id), default: []].append((Set(value.columns), value.fix))
        }
        let current = StagingMeta.sources(in: meta)
        let changedFiles = Set(current.keys).union(baseline.sources.keys).filter { current[$0] != baseline.sources[$0] }
        let ownFiles: Set<String> = ["fixes.csv", "identity.csv", "CREDITS.md"]
        let releases = SourceRelease.list(previous: baseline.releases, current: StagingMeta.releases(in: meta))
        var parts: [String] = []
        var covered = Set<String>()
        for release in releases where changedFiles.contains(where: { $0.hasPrefix(release.source + "/") }) {
            parts.append("upstream " + (releases.count > 1 ? "\(release.source) " : "") + release.transition)
            covered.insert(release.source)
        }
        // Other sources, by the folder (or file) of raw/ that changed.
        let others = Set(changedFiles.filter { !ownFiles.contains($0) }.map { String($0.split(separator: "/").first ?? Substring($0)) })
            .subtracting(covered)
        parts += others.sorted().map { "raw/" + $0 }
        sources = parts.isEmpty ? nil : parts.joined(separator: ", ")
        if changedFiles.contains("fixes.csv") {
            otherwise = "raw/fixes.csv (a fix removed or changed)"
        } else if changedFiles.contains("identity.csv") {
            otherwise = "raw/identity.csv"
        } else {
            otherwise = "no source or fix changed: raw/registry.csv or stationdb"
        }
    }

    /// The cause of a change of `columns` of a row: the fixes that set them, and the sources
    /// for the columns no fix set (a row added or removed: the sources alone).
    func cause(_ table: String, _ id: Int, _ columns: Set<String>) -> String {
        let setting = (fixes[Row(table: table, id: id)] ?? []).filter { !$0.columns.isDisjoint(with: columns) }
        var parts = setting.map(\.fix)
        if parts.isEmpty || !columns.subtracting(setting.reduce(into: Set<String>()) { $0.formUnion($1.columns) }).isEmpty {
            parts.append(sources ?? otherwise)
        }
        return parts.joined(separator: ", ")
    }

    /// A weight `old` -> `new`: a hand weight's (1..10 on either side) is raw/weights.csv's, grouped
    /// when it only moved between levels; a machine weight's follows the other changes when there are any.
    static func weight(old: Int?, new: Int?, othersChanged: Bool) -> (cause: String, follows: Bool) {
        let hand = HandWeights.range
        if let old, let new, !hand.contains(old), !hand.contains(new) {
            return othersChanged ? (machineWeights, true) : (redrawnWeights, false)
        }
        if let old, let new, hand.contains(old), hand.contains(new) { return (retiered, true) }
        return (handWeights, false)
    }
}
