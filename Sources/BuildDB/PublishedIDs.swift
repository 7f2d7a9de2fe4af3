import StationIO
import StationModel

/// An s_id, l_id or o_id once published stays, under the same keys: users' records
/// hang on it. A station that vanishes from the sources is published disabled, and
/// one whose ID truly changes is declared in renumbered.csv. Anything else means the
/// registry lost a line or a key (a bad merge does that): the station behind it
/// would come back under a new s_id and the records for the old one would be lost.
/// That is bad input, checked before weights are drawn or anything is written, and
/// --force does not pass it.
public enum PublishedIDs {
    /// Checks `network` against the published version `baseline`: every ID of its bundle
    /// must be in the network (stations renumbered away excepted), and every key that
    /// version's registry gave an ID must still be in `registry`.
    public static func check(_ network: RailNetwork, renumbered: Set<Int>, registry: Registry?, registryLabel: String, baseline: Baseline?) throws {
        guard let baseline else { return }
        let previous = baseline.bundle, bundlePath = baseline.databasePath
        var problems = DiagnosticCollector()
        // Each version keeps the registry it was made with: the surest source of a lost line,
        // also when a run was stopped after publishing and before it updated the registry.
        let earlierPath = baseline.registryPath ?? ""
        let restore = baseline.registryPath != nil
            ? "take the line back from \(earlierPath), the registry version \(previous.version) was published with (if that version is the last change, copy it over \(registryLabel)), or declare a truly changed s_id in renumbered.csv"
            : "restore it from version control (e.g. `git checkout \(registryLabel)`), or declare a truly changed s_id in renumbered.csv"
        let database = try SQLiteDatabase(path: bundlePath)
        let present = [("operators", "o_id", "operator", Set(network.operators.map(\.id))), ("lines", "l_id", "line", Set(network.lines.map(\.id))),
                       ("stations", "s_id", "station", Set(network.stations.map(\.id)).union(renumbered))]
        for (table, id, name, ids) in present {
            for row in try database.query("SELECT \(id), \(name) FROM \(table) ORDER BY \(id)") {
                guard let value = row[0].intValue, !ids.contains(value) else { continue }
                problems.add(SourceLocation(file: registryLabel, field: "\(id) \(value)"),
                             "\(name) \(value) (\(shown(row[1].textValue ?? ""))), published in version \(previous.version), is missing from this build: the registry lost its line; \(restore)")
            }
        }
        if let registry, baseline.registryPath != nil {
            for lost in registry.lostKeys(since: try Registry.load(path: earlierPath)) {
                problems.add(SourceLocation(file: registryLabel, field: "\(lost.kind.rawValue) \(lost.id)"),
                             "\(lost.kind.rawValue) \(lost.id) (\(shown(lost.name))) had the key \(lost.key) in version \(previous.version) and no longer has it: "
                             + "the registry lost it, and what it named would get a new ID; \(restore)")
            }
        }
        try problems.check()
    }
}
