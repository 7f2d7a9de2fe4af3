import FoundationEssentials
import Glibc
import StationCore

// Sources are merged in precedence order. A later source's station joins an
// earlier one when they share a key (a station code both publish), or else
// when their normalised names match within a kilometre; its operator and
// lines join the earlier ones its stations lead to (names such as "JR東日本"
// and "東日本旅客鉄道" rarely match as text). The earlier source wins field by
// field; a later one only fills what is missing, and where they disagree the
// disagreement is kept for `stationdb ingest --report`.

package struct Disagreement: Hashable, Sendable {
    package enum Kind: String, Sendable { case name, coordinates, prefecture }
    package var kind: Kind
    /// Filled in once IDs are assigned.
    package var stationID: Int = 0
    package var stationName: String
    package var kept: String
    package var keptFrom: SourceLocation
    package var other: String
    package var otherFrom: SourceLocation
    package var detail: String

    package var description: String {
        "s_id \(stationID) \(stationName): \(kind.rawValue) \(kept) (\(keptFrom)) vs \(other) (\(otherFrom))\(detail.isEmpty ? "" : ", " + detail)"
    }
}

struct MergedOperator {
    var keys: [String]
    var fixedID: Int?
    var name: String
    var otherNames: [String]
    var type: Int?
    var enabled: Bool?
    var origin: SourceLocation
}

struct MergedLine {
    var keys: [String]
    var fixedID: Int?
    var name: String
    var otherNames: [String]
    var operatorIndex: Int
    var type: Int?
    var enabled: Bool?
    var origin: SourceLocation
}

struct MergedStation {
    var keys: [String]
    /// Those of `keys` the identity model weighs as the source's id for it: an identity key
    /// (SourceStation.keyIsIdentity) or a code (its matchKeys: ekidata's and N02's station codes).
    var identityKeys: [String] = []
    var fixedID: Int?
    var name: String
    var yomi: String?
    var wiki: String?
    var pref: Int?
    var address: String?
    var lat: Int
    var lng: Int
    var operatorIndex: Int
    var enabled: Bool?
    var origin: SourceLocation
}

struct MergedStationLine: Hashable {
    var lineIndex: Int
    var stationIndex: Int
    var sort: Int

    struct Pair: Hashable { var line: Int, station: Int }
}

/// Coordinates more than this far apart count as a disagreement (the issue's 300 m).
let disagreementDistanceMetres = 300.0
/// How far apart two same-named stations of different sources may be and still be one station.
let nameMatchDistanceMetres = 1_000.0

final class NetworkMerger {
    private(set) var operators: [MergedOperator] = []
    private(set) var lines: [MergedLine] = []
    private(set) var stations: [MergedStation] = []
    private(set) var stationLines: [MergedStationLine] = []
    private(set) var disagreements: [(stationIndex: Int, Disagreement)] = []

    init() {}

    private var operatorByKey: [String: Int] = [:]
    private var lineByKey: [String: Int] = [:]
    private var stationByKey: [String: Int] = [:]
    private var linesOfStation: [Int: [Int]] = [:]
    private var pairs: Set<MergedStationLine.Pair> = []
    private var maxSortOfLine: [Int: Int] = [:]

    /// Merges one source. The lookups by key that later sources match against are
    /// kept only while one is to come: for the last (or only) source they would be
    /// built and dropped unread, which at 100 times national is hundreds of MB.
    func add(_ source: SourceNetwork, last: Bool) {
        // Name matching only ever looks at what earlier sources brought: within
        // one source, two entities are two entities.
        let operatorsBefore = operators.count, linesBefore = lines.count, stationsBefore = stations.count

        // 1. Stations that earlier sources already know by a shared key.
        var stationMatch = stationsBefore == 0 ? [Int?](repeating: nil, count: source.stations.count) : source.stations.map(matchByKey)
        var sourceStationIndex: [String: Int] = [:]
        sourceStationIndex.reserveCapacity(source.stations.count)
        for (i, s) in source.stations.enumerated() { sourceStationIndex[s.key] = i }

        // 2. Operators: by key, else by the stations they run, else by name.
        var operatorIndex: [String: Int] = [:]
        var votesByOperator: [String: [Int: Int]] = [:]
        for (i, s) in source.stations.enumerated() {
            if let m = stationMatch[i] { votesByOperator[s.operatorKey, default: [:]][stations[m].operatorIndex, default: 0] += 1 }
        }
        var earlierOperatorByName: [String: Int]?
        for o in source.operators {
            var idx = operatorByKey[o.key] ?? majority(votesByOperator[o.key])
            if idx == nil, operatorsBefore > 0 {
                if earlierOperatorByName == nil {
                    var byName: [String: Int] = [:]
                    for i in (0..<operatorsBefore).reversed() { byName[OperatorName.normalized(operators[i].name)] = i }
                    earlierOperatorByName = byName
                }
                idx = earlierOperatorByName![OperatorName.normalized(o.name)]
            }
            if let idx {
                fill(operator: idx, from: o)
                operatorIndex[o.key] = idx
            } else {
                operators.append(MergedOperator(keys: [o.key], fixedID: o.fixedID, name: o.name, otherNames: o.otherNames, type: o.type,
                                                enabled: o.enabled, origin: o.origin))
                operatorIndex[o.key] = operators.count - 1
            }
            if !last { operatorByKey[o.key] = operatorIndex[o.key] }
        }

        // 3. Stations with no shared key: the same normalised name, the same
        // operator, within a kilometre.
        if stationsBefore > 0, stationMatch.contains(where: { $0 == nil }) {
            var byName: [String: [Int]] = [:]
            for m in 0..<stationsBefore { byName[StationName.normalized(stations[m].name), default: []].append(m) }
            for (i, s) in source.stations.enumerated() where stationMatch[i] == nil {
                guard let op = operatorIndex[s.operatorKey], op < operatorsBefore else { continue }
                var nearest: (Int, Double)?
                for m in byName[StationName.normalized(s.name)] ?? [] where stations[m].operatorIndex == op {
                    let d = MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: stations[m].lat, lng2: stations[m].lng)
                    if d <= nameMatchDistanceMetres, nearest == nil || d < nearest!.1 { nearest = (m, d) }
                }
                stationMatch[i] = nearest?.0
            }
        }

        // 4. Lines: by key, else by the stations on them (same operator), else by name.
        var lineIndex: [String: Int] = [:]
        var votesByLine: [String: [Int: Int]] = [:]
        // Only stations matched to earlier ones vote (none in a first source).
        if stationMatch.contains(where: { $0 != nil }) {
            for x in source.stationLines {
                guard let si = sourceStationIndex[x.stationKey], let m = stationMatch[si] else { continue }
                for l in linesOfStation[m] ?? [] { votesByLine[x.lineKey, default: [:]][l, default: 0] += 1 }
            }
        }
        var earlierLineByName: [String: Int]?
        for l in source.lines {
            let op = operatorIndex[l.operatorKey] ?? 0
            var idx = lineByKey[l.key] ?? majority(votesByLine[l.key]?.filter { lines[$0.key].operatorIndex == op })
            if idx == nil, linesBefore > 0 {
                if earlierLineByName == nil {
                    var byName: [String: Int] = [:]
                    for i in (0..<linesBefore).reversed() { byName["\(lines[i].operatorIndex)|" + OperatorName.normalized(lines[i].name)] = i }
                    earlierLineByName = byName
                }
                idx = earlierLineByName!["\(op)|" + OperatorName.normalized(l.name)]
            }
            if let idx {
                if lines[idx].type == nil { lines[idx].type = l.type }
                if lines[idx].enabled == nil { lines[idx].enabled = l.enabled }
                if lines[idx].fixedID == nil { lines[idx].fixedID = l.fixedID }
                lines[idx].otherNames += [l.name] + l.otherNames
                lines[idx].keys.append(l.key)
                lineIndex[l.key] = idx
            } else {
                lines.append(MergedLine(keys: [l.key], fixedID: l.fixedID, name: l.name, otherNames: l.otherNames, operatorIndex: op, type: l.type, enabled: l.enabled, origin: l.origin))
                lineIndex[l.key] = lines.count - 1
            }
            if !last { lineByKey[l.key] = lineIndex[l.key] }
        }

        // 5. Stations: fill matched ones field by field, add the rest.
        var stationIndex = [Int](repeating: 0, count: source.stations.count)
        // A match key may be shared by two of a source's stations. Its own keys are
        // unique, and sorted (sortByKey), so a repeated one would be the one before.
        var matchKeysHere = Set<String>()
        for (i, s) in source.stations.enumerated() {
            if let m = stationMatch[i] {
                fill(station: m, from: s)
                stationIndex[i] = m
            } else {
                stations.append(MergedStation(keys: [], fixedID: s.fixedID, name: s.name, yomi: s.yomi, wiki: s.wiki, pref: s.pref,
                                              address: s.address, lat: s.lat, lng: s.lng, operatorIndex: operatorIndex[s.operatorKey] ?? 0,
                                              enabled: s.enabled, origin: s.origin))
                stationIndex[i] = stations.count - 1
            }
            let m = stationIndex[i]
            if stationByKey[s.key] == nil, i == 0 || source.stations[i - 1].key != s.key {
                if !last { stationByKey[s.key] = m }
                stations[m].keys.append(s.key)
                if s.keyIsIdentity { stations[m].identityKeys.append(s.key) }
            }
            for k in s.matchKeys where stationByKey[k] == nil && matchKeysHere.insert(k).inserted {
                if !last { stationByKey[k] = m }
                stations[m].keys.append(k)
                stations[m].identityKeys.append(k)
            }
        }

        // 6. Station-line rows not yet known; a later source's additions to a
        // known line go after the stations it already has.
        var offsetOfLine: [Int: Int] = [:]
        pairs.reserveCapacity(pairs.count + source.stationLines.count)
        stationLines.reserveCapacity(stationLines.count + source.stationLines.count)
        for x in source.stationLines {
            guard let l = lineIndex[x.lineKey], let si = sourceStationIndex[x.stationKey] else { continue }
            let s = stationIndex[si]
            let pair = MergedStationLine.Pair(line: l, station: s)
            if pairs.contains(pair) { continue }
            let offset: Int
            if let o = offsetOfLine[l] { offset = o } else { offset = maxSortOfLine[l] ?? 0; offsetOfLine[l] = offset }
            let sort = offset + x.sort
            pairs.insert(pair)
            stationLines.append(MergedStationLine(lineIndex: l, stationIndex: s, sort: sort))
            if !last {
                linesOfStation[s, default: []].append(l)
                maxSortOfLine[l] = max(maxSortOfLine[l] ?? 0, sort)
            }
        }
        // What no source to come will look up (34 MB at 100 times national).
        if last { pairs = [] }
    }

    /// Hands the merged stations over and forgets them.
    func takeStations() -> [MergedStation] {
        defer { stations = [] }
        return stations
    }

    private func matchByKey(_ s: SourceStation) -> Int? {
        var best: Int?
        for k in [s.key] + s.matchKeys {
            if let m = stationByKey[k], best == nil || m < best! { best = m }
        }
        return best
    }

    private func majority(_ votes: [Int: Int]?) -> Int? {
        guard let votes, !votes.isEmpty else { return nil }
        // Most votes; ties to the earliest merged entity, so the result never depends on dictionary order.
        return votes.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
    }

    private func fill(operator idx: Int, from o: SourceOperator) {
        if operators[idx].type == nil { operators[idx].type = o.type }
        if operators[idx].enabled == nil { operators[idx].enabled = o.enabled }
        if operators[idx].fixedID == nil { operators[idx].fixedID = o.fixedID }
        operators[idx].otherNames += [o.name] + o.otherNames
        operators[idx].keys.append(o.key)
    }

    private func fill(station m: Int, from s: SourceStation) {
        var t = stations[m]
        if StationName.normalized(t.name) != StationName.normalized(s.name) {
            disagreements.append((m, Disagreement(kind: .name, stationName: t.name, kept: t.name, keptFrom: t.origin,
                                                  other: s.name, otherFrom: s.origin, detail: "")))
        }
        let d = MicroDegrees.distanceMetres(lat1: t.lat, lng1: t.lng, lat2: s.lat, lng2: s.lng)
        if d > disagreementDistanceMetres {
            disagreements.append((m, Disagreement(kind: .coordinates, stationName: t.name,
                                                  kept: "\(MicroDegrees.format(t.lat)),\(MicroDegrees.format(t.lng))", keptFrom: t.origin,
                                                  other: "\(MicroDegrees.format(s.lat)),\(MicroDegrees.format(s.lng))", otherFrom: s.origin,
                                                  detail: "\(Int(d.rounded())) m apart")))
        }
        if let a = t.pref, let b = s.pref, a != b {
            disagreements.append((m, Disagreement(kind: .prefecture, stationName: t.name, kept: String(a), keptFrom: t.origin,
                                                  other: String(b), otherFrom: s.origin, detail: "")))
        }
        if t.yomi?.isEmpty ?? true, let v = s.yomi, !v.isEmpty { t.yomi = v }
        if t.wiki?.isEmpty ?? true, let v = s.wiki, !v.isEmpty { t.wiki = v }
        if t.address?.isEmpty ?? true, let v = s.address, !v.isEmpty { t.address = v }
        if t.pref == nil { t.pref = s.pref }
        if t.enabled == nil { t.enabled = s.enabled }
        if t.fixedID == nil { t.fixedID = s.fixedID }
        stations[m] = t
    }
}
