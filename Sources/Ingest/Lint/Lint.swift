import FoundationEssentials
import Glibc
import StationCore

// `stationdb lint`: the values a maintainer should look at, each with file,
// line and field and why. It never changes anything: the bundle publishes
// every value as the master holds it, and lint says where the master is odd.

/// One value worth a look.
package struct LintFinding: Codable, Hashable, Sendable, CustomStringConvertible {
    /// Which rule found it (see `LintRule`).
    package var rule: String
    package var file: String
    package var line: Int?
    package var field: String?
    package var message: String
    /// The station the finding is about, when it is about one: a report lists a `review`
    /// finding only when its version changes that station, and raw/reviewed.csv names it so.
    package var stationID: Int?
    /// A review of raw/reviewed.csv that expected this finding to read otherwise: "raw/reviewed.csv:3".
    package var reopened: String?

    package init(_ rule: LintRule, _ location: SourceLocation, _ message: String, station: Int? = nil) {
        self.rule = rule.rawValue; file = location.file; line = location.line; field = location.field; self.message = message
        stationID = station
    }

    enum CodingKeys: String, CodingKey { case rule, file, line, field, message, stationID = "s_id", reopened }

    package var location: SourceLocation { SourceLocation(file: file, line: line, field: field) }
    package var description: String {
        "\(location): \(message) [\(rule)" + (reopened.map { "; reopened: \($0) reviewed it as it read before" } ?? "") + "]"
    }
}

/// A finding a maintainer has looked at and found right (a border station really in the
/// prefecture its neighbours are not), kept in raw/reviewed.csv with a note: lint lists it
/// apart and does not count it, until it reads otherwise.
package struct ReviewedFinding: Codable, Hashable, Sendable, CustomStringConvertible {
    package var finding: LintFinding
    /// The row that reviewed it: "raw/reviewed.csv:3".
    package var review: String
    package var note: String

    package var description: String { "\(finding) (\(review): \(note))" }
}

package enum LintRule: String, CaseIterable, Sendable {
    case text, yomi, code, far, pref, sameName = "same-name", handWeight = "hand-weight", fix, review, emptyLine = "empty-line"
    case noLine = "no-line", emptyOperator = "lineless", reviewed

    /// What the rule finds, as `stationdb lint --help` lists it.
    package var summary: String {
        switch self {
        case .text: "outer white space or a control character in a text value"
        case .yomi: "a live station without a reading, or a reading with characters\nother than hiragana, ー, ・, ヶ, brackets or an ideographic space"
        case .code: "an operator type, line type or N02 code the known lists lack"
        case .far: "a station far from both its neighbours on a line (30 km, or\nthree times the line's usual spacing): a likely coordinate typo"
        case .pref: "a station whose prefecture none of its 10 nearest stations has"
        case .sameName: "two live stations of one line with the same name"
        case .handWeight: "a hand weight on a disabled station"
        case .fix: "a fix whose value the sources already hold"
        case .review: "a fix that moves a station over 1 km from where it was\npublished, or renames it (right station?), until published"
        case .emptyLine: "a live line on which no live station lies (build refuses it)"
        case .noLine: "a station a fix enables that is on no line (the sources no\nlonger give its lines): the apps would list it under no line"
        case .emptyOperator: "a live operator with no live line (its last one closed or\npassed to another operator): disable it in fixes.csv"
        case .reviewed: "a row of raw/reviewed.csv that finds nothing as it expects any\nmore: look again, then mend the row or remove it"
        }
    }

    /// Every rule with its summary, one per line (indented for a command's help).
    package static var help: String {
        allCases.map { "  " + $0.rawValue.padded(to: 13) + $0.summary.replacingScalars(["\n": "\n" + String(repeating: " ", count: 15)]) }
            .joined(separator: "\n")
    }
}

package struct LintReport: Codable, Sendable {
    /// The open findings: what latest.json and the reports count.
    package var count: Int
    /// Open findings per rule, every rule listed.
    package var byRule: [String: Int]
    package var findings: [LintFinding]
    /// Those raw/reviewed.csv reviewed, listed apart and not counted.
    package var reviewed: [ReviewedFinding]

    package init(_ findings: [LintFinding], reviewed: [ReviewedFinding] = []) {
        func order(_ a: LintFinding, _ b: LintFinding) -> Bool {
            (a.file, a.line ?? 0, a.field ?? "", a.rule, a.message) < (b.file, b.line ?? 0, b.field ?? "", b.rule, b.message)
        }
        self.findings = findings.sorted(by: order)
        self.reviewed = reviewed.sorted { order($0.finding, $1.finding) }
        count = findings.count
        byRule = Dictionary(uniqueKeysWithValues: LintRule.allCases.map { rule in (rule.rawValue, findings.count { $0.rule == rule.rawValue }) })
    }

    enum CodingKeys: String, CodingKey { case count, byRule = "by_rule", findings, reviewed }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        count = try c.decode(Int.self, forKey: .count)
        byRule = try c.decode([String: Int].self, forKey: .byRule)
        findings = try c.decode([LintFinding].self, forKey: .findings)
        reviewed = try c.decodeIfPresent([ReviewedFinding].self, forKey: .reviewed) ?? []
    }

    /// The report as JSON: keys sorted, a trailing newline.
    package func json() throws -> [UInt8] { try jsonDocument(self) }

    /// "12 warnings (text 3, yomi 1, far 8)", and "; 3 reviewed (pref 3)" when raw/reviewed.csv reviewed some.
    package var summary: String {
        func counted(_ rules: [String]) -> String {
            LintRule.allCases.compactMap { rule in
                let n = rules.count { $0 == rule.rawValue }
                return n > 0 ? "\(rule.rawValue) \(n)" : nil
            }.joined(separator: ", ")
        }
        let open = counted(findings.map(\.rule)), done = counted(reviewed.map(\.finding.rule))
        return "\(count) warning\(count == 1 ? "" : "s")" + (open.isEmpty ? "" : " (\(open))")
            + (reviewed.isEmpty ? "" : "; \(reviewed.count) reviewed (\(done))")
    }
}

package enum Lint {
    /// A station further than this from both its neighbours on a line is reported.
    package static let farMetres = 30_000.0
    /// ... or more than this many times the line's median distance between neighbours, if that is more.
    package static let farSpacings = 3.0
    /// A station's prefecture is compared with those of its nearest stations: at
    /// most `nearestStations` of them within `nearestWithinMetres`, and at least
    /// `fewestNearStations` (a station alone in its valley is left alone). Stations
    /// near a prefecture's border have stations of their own prefecture among the ten
    /// nearest; a wrong code in the middle of a prefecture has none.
    package static let nearestStations = 10
    package static let fewestNearStations = 3
    package static let nearestWithinMetres = 25_000.0

    /// `stationdb lint`: raw/ read as ingest reads it, every rule checked.
    package static func run(_ options: IngestOptions, handWeights: String?) async throws -> LintReport {
        try await ingest(options, handWeights: handWeights).lint!.report()
    }

    /// Reads raw/ as ingest does (writing nothing) and, when `lint`, what checking every rule
    /// over it takes: what `stationdb lint` and the ingest stage both run. The check itself is
    /// the caller's to run (a publish runs it beside the build: the bundle does not need it).
    package static func ingest(_ options: IngestOptions, lint: Bool = true, handWeights: String?) async throws -> (outcome: IngestOutcome, lint: Check?) {
        var sourceFindings: [LintFinding] = []
        let inputs = try await IngestPipeline.read(options) { if lint { sourceFindings += sourceValues($0) } }
        let outcome = try IngestPipeline.assemble(inputs, problemLimit: options.problemLimit, keepOrigins: lint)
        guard lint else { return (outcome, nil) }
        // Read here, so that a malformed raw/reviewed.csv still stops the run before anything is written.
        let reviewsPath = joinPath(options.rawFolder, LintReviews.fileName)
        let reviews = try LintReviews.read(path: reviewsPath, label: options.label(for: reviewsPath))
        // What stops a publish stops a lint, in the same words at the same line, and before
        // anything is written: a station listed twice (which weight wins would depend on the
        // order), an unknown or merged s_id, a weight outside 1..10. Only a hand weight on a
        // disabled station, which a publish keeps, is a finding.
        let merged = StagingMeta.identity(in: outcome.staging.meta).merged
        let hand = try handWeights.flatMap { Files.exists($0) ? $0 : nil }.map {
            try HandWeights.read(path: $0, label: options.label(for: $0), network: outcome.staging.network, merged: merged).warnings
        } ?? []
        return (outcome, Check(sourceFindings: sourceFindings, ingest: outcome.report, network: outcome.staging.network,
                               origins: outcome.stationOrigins, fixes: outcome.fixes, reviews: reviews, options: options, handWarnings: hand))
    }

    /// Every rule over what one ingest read and assembled, held apart from the ingest's outcome.
    package struct Check: Sendable {
        /// Those of `sourceValues` over each source as it was read.
        var sourceFindings: [LintFinding]
        var ingest: IngestReport
        var network: RailNetwork
        var origins: [Int: SourceLocation]
        var fixes: [DataFix]
        var reviews: [LintReviews.Row]
        var options: IngestOptions
        /// raw/weights.csv's warnings (the file was checked when read).
        var handWarnings: [Diagnostic]

        /// The places and messages of the readers' warnings that raw/reviewed.csv reviewed
        /// (`report()` lists them apart): a run need not say them every night.
        package var reviewedWarnings: Set<String> {
            let code = ingest.warnings.map { LintFinding(.code, $0.location, $0.message) }
            return Set(LintReviews.apply(reviews, to: code, rawLabel: options.rawLabel).reviewed.map { "\($0.finding.location): \($0.finding.message)" })
        }

        package func report() throws -> LintReport {
            var findings = sourceFindings
            findings += fixValues(fixes)
            findings += ingest.warnings.map { LintFinding(.code, $0.location, $0.message) }
            findings += ingest.unneededFixes.map {
                LintFinding(.fix, SourceLocation(file: $0.location.file, line: $0.location.line, field: "value"),
                            "already so upstream (\($0.action.rawValue) \($0.table.rawValue) \($0.matchText) is what the sources now hold): remove it")
            }
            findings += ingest.notableFixes.map { LintFinding(.review, $0.diagnostic.location, $0.diagnostic.message, station: $0.station) }
            findings += network.liveLinesWithoutStations.map {
                LintFinding(.emptyLine, SourceLocation(file: options.rawLabel, field: "l_id \($0.id)"),
                            "\($0.name): a live line with no live station; give it stations or disable it in fixes.csv (build refuses it)")
            }
            findings += network.liveOperatorsWithoutLines.map {
                LintFinding(.emptyOperator, SourceLocation(file: options.rawLabel, field: "o_id \($0.id)"),
                            "\($0.name): a live operator with no live line (its last line closed, or passed to another operator): the apps "
                            + "would list it with nothing under it; disable it in fixes.csv (disable,operators,o_id=\($0.id),,,,why)")
            }
            findings += stationsEnabledOnNoLine(fixes, network)
            findings += geography(network, origins: origins)
            findings += handWarnings.map { LintFinding(.handWeight, $0.location, $0.message) }
            let (open, reviewed) = LintReviews.apply(reviews, to: findings, rawLabel: options.rawLabel)
            return LintReport(open, reviewed: reviewed)
        }
    }

    /// The live stations an enable fix names that lie on no line, at the fix's line: a
    /// station the sources dropped, brought back by hand with nothing to list it under.
    /// Said by every run (a warning) and listed by lint.
    package static func stationsEnabledOnNoLine(_ fixes: [DataFix], _ network: RailNetwork) -> [LintFinding] {
        let enabling = fixes.filter { $0.action == .enable && $0.table == .stations }
        guard !enabling.isEmpty else { return [] }
        let onALine = Set(network.stationLines.map(\.stationID))
        let columns = BundleSchema.masterColumns(Station.schema)
        let candidates = network.stations.filter { $0.enabled && !onALine.contains($0.id) }
        var findings: [LintFinding] = []
        for fix in enabling {
            for station in candidates where fix.match.allSatisfy({ pair in
                columns.firstIndex(of: pair.column).map { station.masterFields[$0] == pair.value } ?? false
            }) {
                findings.append(LintFinding(.noLine, SourceLocation(file: fix.location.file, line: fix.location.line, field: "match"),
                                            "enables s_id \(station.id) \(station.name), which is on no line (the sources no longer give its lines): "
                                            + "the apps would show it live, listed under no line; give it a line, or leave it disabled",
                                            station: station.id))
            }
        }
        return findings
    }

    // MARK: - Text values

    /// The text values of one source, each with where it is.
    package static func sourceValues(_ source: SourceNetwork) -> [LintFinding] {
        let f = fieldNames(source.kind)
        var findings: [LintFinding] = []
        func at(_ origin: SourceLocation, _ field: String) -> SourceLocation { SourceLocation(file: origin.file, line: origin.line, field: field) }
        for o in source.operators { findings += text(o.name, at(o.origin, f.operator)) }
        for l in source.lines { findings += text(l.name, at(l.origin, f.line)) }
        for s in source.stations {
            findings += text(s.name, at(s.origin, f.station))
            if let yomi = s.yomi { findings += text(yomi, at(s.origin, f.yomi)) + reading(yomi, at(s.origin, f.yomi)) }
            if let wiki = s.wiki { findings += text(wiki, at(s.origin, f.wiki)) }
            if let address = s.address { findings += text(address, at(s.origin, f.address)) }
        }
        return findings
    }

    /// The values fixes set, which reach the bundle as written too.
    static func fixValues(_ fixes: [DataFix]) -> [LintFinding] {
        var findings: [LintFinding] = []
        for fix in fixes where fix.action == .set && ["operator", "line", "station", "yomi", "wiki", "address"].contains(fix.field) {
            let at = SourceLocation(file: fix.location.file, line: fix.location.line, field: "value")
            findings += text(fix.value, at)
            if fix.field == "yomi" { findings += reading(fix.value, at) }
        }
        return findings
    }

    static func fieldNames(_ kind: SourceKind) -> (operator: String, line: String, station: String, yomi: String, wiki: String, address: String) {
        switch kind {
        case .native: return ("operator", "line", "station", "yomi", "wiki", "address")
        case .ekidata: return ("company_name", "line_name", "station_name", "station_name_k", "wiki", "address")
        case .stationDatabase: return ("name", "name", "original_name", "name_kana", "wiki", "address")
        case .n02: return ("ksj:operationCompany", "ksj:railwayLineName", "ksj:stationName", "yomi", "wiki", "address")
        }
    }

    /// Outer white space (spaces are data, and a trailing one is usually a slip) or a control character.
    static func text(_ value: String, _ at: SourceLocation) -> [LintFinding] {
        // Unicode's control characters (Cc): C0, DEL and C1.
        if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return [LintFinding(.text, at, "\(quoted(value)) holds the control character U+\(hex(control)); it is published as written")]
        }
        if let first = value.unicodeScalars.first, let last = value.unicodeScalars.last,
           first.properties.isWhitespace || last.properties.isWhitespace {
            return [LintFinding(.text, at, "\(quoted(value)) starts or ends with white space; it is published as written")]
        }
        return []
    }

    /// The scalars a reading holds besides hiragana: the long-vowel mark, a middle
    /// dot, brackets and an ideographic space for a sub-name (bundle.md), and the
    /// small ヶ that real masters keep in readings as in names (せきがはら is also せきヶはら).
    static let readingMarks: Set<Unicode.Scalar> = ["ー", "・", "ヶ", "\u{3000}", "(", ")", "（", "）", "「", "」", "『", "』", "〈", "〉", "【", "】", "〔", "〕", "［", "］"]

    static func isReading(_ scalar: Unicode.Scalar) -> Bool {
        (0x3041...0x3096).contains(scalar.value) || (0x3099...0x309F).contains(scalar.value) || readingMarks.contains(scalar)
    }

    static func reading(_ yomi: String, _ at: SourceLocation) -> [LintFinding] {
        let odd = yomi.unicodeScalars.filter { !isReading($0) && !$0.properties.isWhitespace }
        guard let first = odd.first else { return [] }
        return [LintFinding(.yomi, at, "\(quoted(yomi)) holds \(quoted(String(first))) (U+\(hex(first)))\(odd.count > 1 ? " and \(odd.count - 1) more" : ""); a reading is hiragana with ー, ・, brackets or an ideographic space")]
    }

    static func quoted(_ s: String) -> String { "'" + shown(s) + "'" }
    static func hex(_ scalar: Unicode.Scalar) -> String {
        let h = String(scalar.value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    // MARK: - Geography and lines

    /// No reading, far from both neighbours on a line, a prefecture none of its nearest
    /// stations has, two stations of one name on one line: live stations only.
    static func geography(_ network: RailNetwork, origins: [Int: SourceLocation]) -> [LintFinding] {
        let live = network.stations.filter(\.enabled)
        let station = Dictionary(uniqueKeysWithValues: live.map { ($0.id, $0) })
        let liveLines = Dictionary(uniqueKeysWithValues: network.lines.filter(\.enabled).map { ($0.id, $0) })
        func at(_ s: Station, _ field: String) -> SourceLocation {
            let origin = origins[s.id] ?? SourceLocation(file: "s_id \(s.id)")
            return SourceLocation(file: origin.file, line: origin.line, field: field)
        }
        func km(_ metres: Double) -> String { fixed(metres / 1000, decimals: 1) + " km" }
        func metres(_ a: Station, _ b: Station) -> Double { MicroDegrees.distanceMetres(lat1: a.lat, lng1: a.lng, lat2: b.lat, lng2: b.lng) }

        // The apps list stations by reading (their 五十音 index): one without any is listed nowhere.
        var findings = live.filter(\.yomi.isEmpty).map {
            LintFinding(.yomi, at($0, "yomi"), "station \($0.id) \(shown($0.name)) is live and has no reading; the apps list it under no kana (give it one with a fix: set,stations,s_id=\($0.id),yomi,...)",
                        station: $0.id)
        }
        var reportedFar = Set<Int>()
        var byLine: [Int: [StationLine]] = [:]
        for x in network.stationLines where liveLines[x.lineID] != nil && station[x.stationID] != nil { byLine[x.lineID, default: []].append(x) }
        for lineID in byLine.keys.sorted() {
            let line = liveLines[lineID]!
            let members = byLine[lineID]!.sorted { ($0.sort, $0.stationID) < ($1.sort, $1.stationID) }.map { station[$0.stationID]! }
            let gaps = zip(members, members.dropFirst()).map { metres($0, $1) }
            for k in members.indices.dropFirst().dropLast() {
                let (before, s, after) = (members[k - 1], members[k], members[k + 1])
                let a = gaps[k - 1], b = gaps[k]
                guard a > farMetres, b > farMetres else { continue }
                // Far for this line, by the gaps between its other stations: a Shinkansen's are 30 km as a rule.
                let others = (gaps[..<(k - 1)] + gaps[(k + 1)...]).sorted()
                let far = max(farMetres, others.isEmpty ? 0 : farSpacings * others[others.count / 2])
                if a > far, b > far, reportedFar.insert(s.id).inserted {
                    findings.append(LintFinding(.far, at(s, "lat, lng"),
                        "station \(s.id) \(shown(s.name)) lies \(km(a)) from \(shown(before.name)) and \(km(b)) from \(shown(after.name)), its neighbours on \(shown(line.name)): a likely coordinate typo",
                        station: s.id))
                }
            }
            var firstOfName: [String: Station] = [:]
            for s in members {
                if let first = firstOfName[s.name], first.id != s.id {
                    findings.append(LintFinding(.sameName, at(s, "station"),
                        "station \(s.id) has the name \(quoted(s.name)) of station \(first.id), also on \(shown(line.name))", station: s.id))
                } else {
                    firstOfName[s.name] = s
                }
            }
        }
        findings += prefectures(live, at: { at($0, "pref") })
        return findings
    }

    /// A station whose prefecture none of its nearest live stations has: its
    /// `nearestStations` nearest within `nearestWithinMetres` (isolated stations are left alone).
    static func prefectures(_ live: [Station], at: (Station) -> SourceLocation) -> [LintFinding] {
        let tree = NearestTree(live)
        var findings: [LintFinding] = []
        for (i, s) in live.enumerated() {
            let (nearest, closestSame) = tree.nearest(to: i)
            // None of the nearest share the prefecture when the closest that does is beyond them all.
            guard nearest.count >= fewestNearStations, closestSame > nearest.last!.metres else { continue }
            let names = nearest.prefix(3).map { live[$0.index] }.map {
                "\(shown($0.name)) (\($0.pref), \(fixed(MicroDegrees.distanceMetres(lat1: s.lat, lng1: s.lng, lat2: $0.lat, lng2: $0.lng) / 1000, decimals: 1)) km)"
            }.joined(separator: ", ")
            findings.append(LintFinding(.pref, at(s), "station \(s.id) \(shown(s.name)) has pref \(s.pref), none of its \(nearest.count) nearest stations does: \(names)\(nearest.count > 3 ? ", ..." : "")",
                                        station: s.id))
        }
        return findings
    }

    /// The stations as a k-d tree over flat arrays (a fixed grid's cells held thousands of a
    /// city's stations at 10x, each search scanning them all): a search visits about the
    /// stations it keeps, however dense the map.
    struct NearestTree {
        /// Indices into the stations, in tree order: each range's middle splits it, by latitude
        /// and longitude in turn.
        var order: [Int]
        /// Where each station stands in `order`.
        var position: [Int]
        var lat: [Int], lng: [Int], pref: [Int], id: [Int]

        init(_ stations: [Station]) {
            let lat = stations.map(\.lat), lng = stations.map(\.lng)
            var order = Array(stations.indices)
            // Quickselect: order[k] is the k-th of lo..<hi by `axis`, those before it no larger, those after no smaller.
            func select(_ lo: Int, _ hi: Int, _ k: Int, _ axis: Int) {
                func key(_ at: Int) -> Int { axis == 0 ? lat[order[at]] : lng[order[at]] }
                var lo = lo, hi = hi - 1
                while lo < hi {
                    let pivot = key((lo + hi) / 2)
                    var i = lo, j = hi
                    while i <= j {
                        while key(i) < pivot { i += 1 }
                        while key(j) > pivot { j -= 1 }
                        if i <= j { order.swapAt(i, j); i += 1; j -= 1 }
                    }
                    if k <= j { hi = j } else if k >= i { lo = i } else { return }
                }
            }
            func build(_ lo: Int, _ hi: Int, _ axis: Int) {
                guard hi - lo > 1 else { return }
                select(lo, hi, (lo + hi) / 2, axis)
                build(lo, (lo + hi) / 2, 1 - axis)
                build((lo + hi) / 2 + 1, hi, 1 - axis)
            }
            build(0, order.count, 0)
            self.order = order
            position = Array(repeating: 0, count: order.count)
            for (at, i) in order.enumerated() { position[i] = at }
            self.lat = order.map { lat[$0] }
            self.lng = order.map { lng[$0] }
            pref = order.map { stations[$0].pref }
            id = order.map { stations[$0].id }
        }

        /// The `nearestStations` nearest to station `station` within `nearestWithinMetres`, by
        /// distance then s_id, and the distance to the closest of its prefecture within reach
        /// (infinity for none). Nearness on a flat map around the station (east-west scaled by
        /// its latitude): within 25 km it differs from the great circle by far less than a station's size.
        func nearest(to station: Int) -> (nearest: [(metres: Double, id: Int, index: Int)], closestSame: Double) {
            let at = position[station]
            let (sLat, sLng, sPref) = (lat[at], lng[at], pref[at])
            let scale = cos(MicroDegrees.degrees(sLat) * .pi / 180), metresPerMicroDegree = MicroDegrees.metresPerDegree / 1_000_000
            var best: [(metres: Double, id: Int, index: Int)] = []
            var closestSame = Double.infinity
            func visit(_ lo: Int, _ hi: Int, _ axis: Int) {
                guard lo < hi else { return }
                let mid = (lo + hi) / 2
                if mid != at {
                    let north = Double(lat[mid] - sLat), east = Double(lng[mid] - sLng) * scale
                    let metres = (north * north + east * east).squareRoot() * metresPerMicroDegree
                    if metres <= nearestWithinMetres {
                        if pref[mid] == sPref { closestSame = min(closestSame, metres) }
                        if best.count < nearestStations || (metres, id[mid]) < (best.last!.metres, best.last!.id) {
                            if best.count == nearestStations { best.removeLast() }
                            let k = best.firstIndex { (metres, id[mid]) < ($0.metres, $0.id) } ?? best.count
                            best.insert((metres, id[mid], order[mid]), at: k)
                        }
                    }
                }
                // What lies beyond the split is at least this far; one within the bound is never passed over.
                let split = axis == 0 ? Double(lat[mid] - sLat) * metresPerMicroDegree : Double(lng[mid] - sLng) * scale * metresPerMicroDegree
                let (near, far) = split > 0 ? ((lo, mid), (mid + 1, hi)) : ((mid + 1, hi), (lo, mid))
                visit(near.0, near.1, 1 - axis)
                let bound = best.count == nearestStations ? best.last!.metres : nearestWithinMetres
                if abs(split) <= bound * (1 + 1e-9) { visit(far.0, far.1, 1 - axis) }
            }
            visit(0, order.count, 0)
            return (best, closestSame)
        }
    }
}
