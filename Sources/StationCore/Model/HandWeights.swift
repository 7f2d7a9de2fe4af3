
// The maintainers' picks (raw/weights.csv: s_id, weight 1..10, optional note):
// Shinkansen stations, line ends, junctions, town gateways. They outrank every
// machine weight, so a wrong row changes what every user sees: refuse it.

package enum HandWeights {
    package static let range = 1...10
    /// Where `stationdb priority` looks when no hand file is named.
    package static let fileName = "weights.csv"

    /// Reads and checks the hand weights against the network. Every problem is
    /// reported at once (exit 2): a malformed or unknown s_id, a weight outside
    /// 1..10, a station listed twice. A weight on a disabled station is kept but
    /// warned about, since a maintainer may be preparing its return.
    /// `label` is the name messages use (e.g. "raw/weights.csv").
    /// `merged`: the s_ids this run retired into other stations (StagingIdentity.merged), so
    /// that a pick left on one says where its station went.
    package static func read(path: String, label: String? = nil, network: RailNetwork, merged: [Int: [Int]] = [:]) throws -> (weights: [HandWeight], warnings: [Diagnostic]) {
        try check(CSVReader.read(path: path, displayName: label ?? path), network: network, merged: merged)
    }

    package static func parse(_ text: String, label: String, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [Diagnostic]) {
        try check(CSVReader.parse(text, file: label), network: network)
    }

    static func check(_ table: CSVTable, network: RailNetwork, merged: [Int: [Int]] = [:]) throws -> (weights: [HandWeight], warnings: [Diagnostic]) {
        if table.header.isEmpty { return ([], []) }   // an empty file: no picks yet
        try table.require(CSVColumns(required: ["s_id", "weight"], optional: ["note"]))
        let enabled = Dictionary(network.stations.map { ($0.id, $0.enabled) }, uniquingKeysWith: { first, _ in first })
        let cID = table.column("s_id"), cWeight = table.column("weight"), cNote = table.column("note")
        var problems = DiagnosticCollector()
        var warnings: [Diagnostic] = []
        var firstLine: [Int: Int] = [:]
        var weights: [HandWeight] = []
        for r in table.records {
            let id = table.int(r, cID, &problems)
            let weight = table.int(r, cWeight, range: range, &problems)
            guard let id else { continue }
            if let first = firstLine[id] {
                problems.add(table.location(r, cID), "station \(id) is listed twice (first on line \(first))")
                continue
            }
            firstLine[id] = table.line(r)
            guard let isEnabled = enabled[id] else {
                if let into = merged[id], !into.isEmpty {
                    let survivors = into.map { heir in "s_id \(heir)" + (network.stations.first { $0.id == heir }.map { " (\($0.name))" } ?? "") }
                    problems.add(table.location(r, cID), "s_id \(id) was merged into \(survivors.joined(separator: " and ")), where its records go: "
                                 + "move its hand weight to \(into.count == 1 ? "that s_id" : "one of them"), or remove the row")
                } else {
                    problems.add(table.location(r, cID), "no station with s_id \(id) in the network")
                }
                continue
            }
            guard let weight else { continue }
            if !isEnabled {
                warnings.append(Diagnostic(table.location(r, cID), "station \(id) is disabled; its hand weight \(weight) is kept but not shown"))
            }
            weights.append(HandWeight(stationID: id, weight: weight, note: table.string(r, cNote), location: table.location(r)))
        }
        try problems.check()
        weights.sort { $0.stationID < $1.stationID }
        return (weights, warnings)
    }

    /// A publish that loses more than this share of the published version's hand weights
    /// is refused like a guard (`lossViolation`).
    package static let maxLostPercent = 10.0

    /// A bundle's hand weights: its stations with weight 1..10 (every machine weight is
    /// 11..13), so a published version tells its own without the file it was made from.
    package static func count(inBundle path: String) throws -> Int {
        try SQLiteDatabase(path: path).scalarInt("SELECT count(*) FROM stations WHERE weight BETWEEN \(range.lowerBound) AND \(range.upperBound)") ?? 0
    }

    /// Why a candidate with `candidate` hand weights must not replace version `version`,
    /// which had `published`; nil when it keeps enough of them. An emptied, header-only or
    /// cut weights.csv turns every lost pick into a machine weight: hundreds of changed
    /// weights, yet under the weight-churn guard on a national bundle. A pick or two
    /// dropped is an ordinary edit; a tenth of them gone at once is what a broken file
    /// looks like, so it is refused unless forced, as the guards are.
    package static func lossViolation(published: Int, candidate: Int, version: Int) -> String? {
        guard published > 0, candidate < published else { return nil }
        let lost = published - candidate, percent = Double(lost) * 100 / Double(published)
        guard percent > maxLostPercent else { return nil }
        return "\(lost) of the \(published) hand weights (stations with weight 1..10) of version \(version) are gone, \(candidate) left "
            + "(\(fixed(percent, decimals: 2))%), more than the limit of \(fixed(maxLostPercent, decimals: 2))%: is weights.csv emptied or cut short?"
    }

    /// The hand weights file a command uses: the one named (which must exist); without
    /// one, RAW/weights.csv when present, and none otherwise (with a note).
    package static func file(_ path: String?, raw: String) -> String? {
        if let path { return path }
        let inRaw = joinPath(raw, fileName)
        guard Files.exists(inRaw) else {
            Events.send(NoHandWeights(path: inRaw))
            return nil
        }
        return inRaw
    }

    package static func resolve(_ path: String?, raw: String, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [Diagnostic]) {
        try file(path, raw: raw).map { try read(path: $0, network: network) } ?? ([], [])
    }
}

/// Weights are drawn without hand weights: the default file is not there.
package struct NoHandWeights: Event, Equatable {
    package var path: String
    package var description: String { "priority: no \(path); assigning without hand weights" }
}
