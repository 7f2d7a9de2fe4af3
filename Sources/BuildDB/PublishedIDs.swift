import StationCore

/// An s_id, l_id or o_id once published stays, under the same keys: users' records
/// hang on it. A station that vanishes from the sources is published disabled, and
/// one whose ID truly changes is declared in renumbered.csv. Anything else means the
/// registry lost a line or a key (a bad merge does that): the station behind it
/// would come back under a new s_id and the records for the old one would be lost.
/// That is bad input, checked before weights are drawn or anything is written, and
/// --force does not pass it.
package enum PublishedIDs {
    /// Checks `network` against the published version `baseline`: every ID of its bundle
    /// must be in the network (stations renumbered away excepted), and every key that
    /// version's registry gave an ID must still be in `registry`.
    package static func check(_ network: RailNetwork, renumbered: Set<Int>, registry: Registry?, registryLabel: String, baseline: Baseline?) throws {
        guard let baseline else { return }
        let previous = baseline.bundle, bundlePath = baseline.databasePath
        var problems = DiagnosticCollector()
        // Each version keeps the registry it was made with: the surest source of a lost line,
        // also when a run was stopped after publishing and before it updated the registry.
        let restore = Registry.restoreAdvice(label: registryLabel, version: previous.version, publishedPath: baseline.registryPath)
        let database = try SQLiteDatabase(path: bundlePath)
        let present: [(Registry.Kind, String, String, Set<Int>)] = [
            (.operator_, "operators", "o_id", Set(network.operators.map(\.id))), (.line, "lines", "l_id", Set(network.lines.map(\.id))),
            (.station, "stations", "s_id", Set(network.stations.map(\.id)).union(renumbered))]
        for (kind, table, id, ids) in present {
            for row in try database.query("SELECT \(id), \(kind.rawValue) FROM \(table) ORDER BY \(id)") {
                guard let value = row[0].intValue, !ids.contains(value) else { continue }
                let lost = Registry.lostLine(kind, value, name: row[1].textValue ?? "", version: previous.version, label: registryLabel, restore: restore)
                problems.add(lost.location, lost.message)
            }
        }
        if let registry, let earlierPath = baseline.registryPath {
            for lost in registry.lostKeys(since: try Registry.load(path: earlierPath)) {
                let d = Registry.lostKey(lost.kind, lost.id, key: lost.key, name: lost.name, version: previous.version, label: registryLabel, restore: restore)
                problems.add(d.location, d.message)
            }
        }
        try problems.check()
    }
}
