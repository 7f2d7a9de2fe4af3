import Synchronization
import FoundationEssentials
import Glibc

// Whether two station records are one station: the one evidence model every identity
// question goes through. Ingest links a run's stations to the registered s_ids with it
// (IdentityLinker) and reviews what the run does to every published s_id with it
// (IdentityReviewer), over the same two sides: the registry (every s_id ever published, as
// last published) and the run. As record linkage states it (Fellegi and Sunter; splink), each
// comparison of a pair falls in one level, each level weighs log2(m/u), m how often the level
// is seen for one station across two releases and u how often for two stations near each
// other, and a pair's weight is the sum. The weights are estimated from the upstream's own
// release history (scripts/estimate-identity-weights writes identity-weights.csv; docs/
// maintaining.md, "Identities"), not chosen by hand.

/// A station as the evidence reads it: as registered (published) or as a run gives it.
package struct IdentityStation: Sendable {
    package var name: String
    package var base: String
    package var yomi: String
    package var lat: Int
    package var lng: Int
    package var operatorID: Int
    package var shinkansen: Bool
    package var enabled: Bool
    /// The keys that name it for good (the upstream's `id`): a registered station's keys, or
    /// those of a run's station that a source gives as its identity.
    package var keys: [String]
    /// Its lines, as indexes into its side's lines.
    package var lines: [Int]

    package init(name: String, yomi: String, lat: Int, lng: Int, operatorID: Int, shinkansen: Bool, enabled: Bool,
                 keys: [String] = [], lines: [Int] = []) {
        self.name = name; base = StationName.base(name); self.yomi = yomi; self.lat = lat; self.lng = lng; self.operatorID = operatorID
        self.shinkansen = shinkansen; self.enabled = enabled; self.keys = keys; self.lines = lines
    }
}

/// One side of the question, with what finds a station's candidates on it.
package struct IdentitySide: Sendable {
    package var stations: [IdentityStation]
    /// Each line's stations, by the line's index.
    let members: [[Int]]
    private let byBase: Postings
    private let byKey: Postings
    let cells: PointGrid

    package init(_ stations: [IdentityStation]) {
        self.stations = stations
        var members = [[Int]](repeating: [], count: (stations.lazy.flatMap(\.lines).max() ?? -1) + 1)
        for (i, s) in stations.enumerated() { for l in s.lines { members[l].append(i) } }
        self.members = members
        byBase = Postings(count: stations.count) { CollectionOfOne(stations[$0].base) }
        byKey = Postings(count: stations.count) { stations[$0].keys }
        cells = PointGrid(stations.map { ($0.lat, $0.lng) }, cellSize: 10_000)
    }

    /// How many places of this side within `reach` of `s` have its name: its stations a
    /// kilometre or more from each other (each operator's row of one station is one place).
    func places(named s: IdentityStation, within reach: Double) -> Int {
        var firsts: [IdentityStation] = []
        for i in byBase[s.base] where metres(s, stations[i]) <= reach && !firsts.contains(where: { metres($0, stations[i]) < 1_000 }) {
            firsts.append(stations[i])
        }
        return firsts.count
    }

    /// The stations of this side the evidence points at from `s`, a station of the other side:
    /// a key they share, the same name within 5 km, any within 1 km. In index order.
    package func candidates(for s: IdentityStation) -> [Int] {
        var out = Set(s.keys.flatMap { byKey[$0] })
        for i in byBase[s.base] where metres(s, stations[i]) <= 5_000 { out.insert(i) }
        for i in cells.points(aroundLat: s.lat, lng: s.lng, metres: 1_000) where metres(s, stations[i]) <= 1_000 { out.insert(i) }
        return out.sorted()
    }
}

/// The stations each string (a base name, a key) names, in index order: a string's first in a
/// table, the rest chained through `next`. Most strings name one station, and an array of them
/// each was a third of a side's memory at 100 times national.
struct Postings: Sendable {
    private var first: [String: Int32] = [:]
    /// Each entry's station, and the next entry of its string (-1: none).
    private var station: [Int32] = [], next: [Int32] = []

    /// `strings(i)`: the strings that name station i, of `count`.
    init<S: Sequence<String>>(count: Int, _ strings: (Int) -> S) {
        first.reserveCapacity(count)
        station.reserveCapacity(count)
        next.reserveCapacity(count)
        // Last first, each entry put before its string's others: the chains come out in index order.
        for i in (0..<count).reversed() {
            for k in strings(i) {
                station.append(Int32(i))
                next.append(first[k] ?? -1)
                first[k] = Int32(station.count - 1)
            }
        }
    }

    subscript(_ string: String) -> Chain { Chain(postings: self, entry: first[string] ?? -1) }

    struct Chain: Sequence, IteratorProtocol {
        let postings: Postings
        var entry: Int32

        mutating func next() -> Int? {
            guard entry >= 0 else { return nil }
            defer { entry = postings.next[Int(entry)] }
            return Int(postings.station[Int(entry)])
        }
    }
}

package func metres(_ a: IdentityStation, _ b: IdentityStation) -> Double {
    MicroDegrees.distanceMetres(lat1: a.lat, lng1: a.lng, lat2: b.lat, lng2: b.lng)
}

/// The two sides a pair joins, and what joins their lines: how many of each new line's
/// stations stood on each old line, a station by its place (within 100 m, renamed or not) or its
/// name (within a kilometre), whoever runs it and whatever its s_id.
package struct IdentitySides: Sendable {
    package let old: IdentitySide, new: IdentitySide
    /// Each new line's counts, made when a pair first asks (a nightly that keeps every station
    /// asks of few lines; made for all at once, they were most of ingest at 100 times national).
    private let overlaps = Overlaps()

    private final class Overlaps: Sendable {
        let made = Mutex<[Int: [Int: Int]]>([:])
    }

    package init(old: IdentitySide, new: IdentitySide) {
        (self.old, self.new) = (old, new)
    }

    /// How many of new line `l`'s stations stood on each old line.
    private func overlap(_ l: Int) -> [Int: Int] {
        if let made = overlaps.made.withLock({ $0[l] }) { return made }
        var counts: [Int: Int] = [:]
        for j in new.members[l] {
            let s = new.stations[j]
            var stood = Set<Int>()
            // Both ways of standing there lie within a kilometre: the grid's query finds them all.
            for q in old.cells.points(aroundLat: s.lat, lng: s.lng, metres: 1_000) {
                let d = metres(s, old.stations[q])
                if d <= 100 || d <= 1_000 && old.stations[q].base == s.base { stood.formUnion(old.stations[q].lines) }
            }
            for line in stood { counts[line, default: 0] += 1 }
        }
        overlaps.made.withLock { $0[l] = counts }
        return counts
    }

    /// Whether old station `a`'s line continues through new station `b`: more than half the
    /// stations of the shorter of a line of `b`'s and a line of `a`'s are on both (a line handed
    /// on whole, in part, with a station added, or joined to another; another line through the
    /// same place shares a few at most).
    func continues(_ a: IdentityStation, _ b: IdentityStation) -> Bool {
        b.lines.contains { l in
            let counts = overlap(l)
            return a.lines.contains { m in (counts[m] ?? 0) * 2 > min(new.members[l].count, old.members[m].count) }
        }
    }

    /// The line comparison's level: whether `a`'s line continues through `b`, and under whom.
    /// Under another operator, whether `a`'s own still runs that line there (a live station of
    /// its operator and kind within a kilometre continuing it: two operators' rows side by
    /// side) or has left it (a line handed on).
    func line(_ a: IdentityStation, _ b: IdentityStation) -> String {
        guard !a.lines.isEmpty, !b.lines.isEmpty else { return "no line to compare" }
        guard continues(a, b) else { return a.operatorID == b.operatorID ? "breaks, the same operator" : "breaks, another operator" }
        if a.operatorID == b.operatorID { return "continues, the same operator" }
        let stays = new.cells.points(aroundLat: a.lat, lng: a.lng, metres: 1_000).contains { j in
            let s = new.stations[j]
            return s.operatorID == a.operatorID && s.shinkansen == a.shinkansen && s.enabled && metres(s, a) <= 1_000 && continues(a, s)
        }
        return stays ? "continues, another operator, its own still there" : "continues, another operator, its own gone"
    }
}

/// The weights of every level and the thresholds that read a pair's total, as the
/// estimation wrote them (identity-weights.csv); a test may change one to see it matter.
package struct IdentityModel: Sendable {
    package struct Level: Sendable, Equatable {
        package var comparison: String, level: String, weight: Double, meaning: String
    }
    package var levels: [Level]
    /// A pair at or above `link` is the same station (posterior odds of one or more); one at or
    /// above `possible` may be (a retired s_id's survivor is named); a pair is proven only
    /// when no other candidate comes within `margin` of it.
    package var link: Double, possible: Double, margin: Double
    /// Rows of one station stand within this of each other: a merge folds rows of one place.
    package static let samePlaceMetres = 300.0

    /// identity-weights.csv as the estimation wrote it.
    package static let csv = PackageResources.identity_weights_csv
    package static let estimated: IdentityModel = try! IdentityModel(csv: csv)

    /// Every level `weigh` gives, by comparison, in the table's order: the table must give each a weight.
    package static let vocabulary: [(comparison: String, levels: [String])] = [
        ("name and place", ["the same name, up to 100 m", "the same name, up to 300 m", "the same name, up to 1 km", "another spelling, up to 300 m", "another spelling, up to 1 km",
                            "the same name, farther than 1 km", "another name, up to 100 m", "another name, up to 300 m", "another name, farther"]),
        ("line", ["continues, the same operator", "continues, another operator, its own gone", "continues, another operator, its own still there",
                  "breaks, the same operator", "breaks, another operator", "no line to compare"]), ("status", ["as it was", "reopened", "closed"]),
        ("kind", ["the same", "Shinkansen and conventional"]), ("key", ["the source's id for it", "none"]), ("threshold", ["link", "possible", "margin"])]

    package init(csv bytes: [UInt8]) throws {
        let t = try CSVReader.parse(bytes, file: "identity-weights.csv")
        var levels: [Level] = [], thresholds: [String: Double] = [:]
        for r in t.records {
            guard let weight = Double(t.string(r, "weight")) else { throw StationError.badInput(t.location(r, t.column("weight")), "expected a weight in bits") }
            if t.string(r, "comparison") == "threshold" { thresholds[t.string(r, "level")] = weight; continue }
            levels.append(Level(comparison: t.string(r, "comparison"), level: t.string(r, "level"), weight: weight, meaning: t.string(r, "meaning")))
        }
        let given = levels.map { "\($0.comparison): \($0.level)" } + ["link", "possible", "margin"].filter { thresholds[$0] != nil }.map { "threshold: \($0)" }
        guard given == Self.vocabulary.flatMap({ c in c.levels.map { "\(c.comparison): \($0)" } }) else {
            throw StationError.badInput(SourceLocation(file: t.file), "expected a weight for each level the evidence weighs, in order: "
                                        + Self.vocabulary.map { "\($0.comparison) (\($0.levels.joined(separator: ", ")))" }.joined(separator: "; "))
        }
        (link, possible, margin) = (thresholds["link"]!, thresholds["possible"]!, thresholds["margin"]!)
        self.levels = levels
    }

    package struct Term: Sendable, Equatable, Codable {
        package var comparison: String
        package var level: String
        package var weight: Double
    }

    package struct Weight: Sendable, Equatable, Codable {
        package var terms: [Term]
        package var metres: Double
        package var total: Double { terms.reduce(0) { $0 + $1.weight } }
    }

    func term(_ comparison: String, _ level: String) -> Term {
        Term(comparison: comparison, level: level, weight: levels.first { $0.comparison == comparison && $0.level == level }?.weight ?? 0)
    }

    package func links(_ w: Weight) -> Bool { w.total >= link }

    /// The weight of `a` (registered, of the old side) and `b` (this run's, of the new side)
    /// being one station. With `keys` false the source's keys are not weighed: a fix's station
    /// is the maintainer's, not the source's its keys vouch for.
    package func weigh(_ a: IdentityStation, _ b: IdentityStation, _ sides: IdentitySides, keys: Bool = true) -> Weight {
        let d = metres(a, b)
        var terms: [Term] = []
        // The name and the place as one comparison: they are not independent among candidates
        // (another operator's row of the same name stands at the same place, a neighbour of
        // another name a few hundred metres along), so each pairing has its own weight.
        let name = NameAgreement(a, b), place = d <= 100 ? "up to 100 m" : d <= 300 ? "up to 300 m" : d <= 1_000 ? "up to 1 km" : "farther than 1 km"
        // Another name beyond 300 m is one level: a rename that moves a station as well is rare,
        // a neighbour's name common, and a key given on to it is what a careless source does.
        switch name {
        case .same: terms.append(term("name and place", "the same name, " + place))
        case .reading where d <= 1_000, .variant where d <= 1_000: terms.append(term("name and place", "another spelling, " + (d <= 300 ? "up to 300 m" : "up to 1 km")))
        case _ where d > 300: terms.append(term("name and place", "another name, farther"))
        default: terms.append(term("name and place", "another name, " + place))
        }
        // A name several places share says less than one alone (splink's term frequency), over
        // the pair's own reach: k places with the name as near as the pair's two stations, log2(k)
        // bits less. (Within a kilometre a place is one: another 本町 3 km off explains no pair at 50 m.)
        if name == .same, case let k = sides.old.places(named: a, within: d), k > 1 {
            terms.append(Term(comparison: "name and place", level: "shared by \(k) places as near", weight: -(log2(Double(k)) * 10).rounded() / 10))
        }
        // The line and its operator together: a line handed to another operator continues under
        // it (a transfer), where another operator's row beside its own rarely takes its place.
        terms.append(term("line", sides.line(a, b)))
        terms.append(term("status", a.enabled == b.enabled ? "as it was" : b.enabled ? "reopened" : "closed"))
        terms.append(term("kind", a.shinkansen == b.shinkansen ? "the same" : "Shinkansen and conventional"))
        terms.append(term("key", keys && b.keys.contains(where: a.keys.contains) ? "the source's id for it" : "none"))
        return Weight(terms: terms, metres: d)
    }

    package func weigh(_ sides: IdentitySides, _ o: Int, _ n: Int, keys: Bool = true) -> Weight {
        weigh(sides.old.stations[o], sides.new.stations[n], sides, keys: keys)
    }

    /// How two names compare: the same once normalised (StationName.base), another spelling
    /// of the same reading (高田馬場 and 髙田馬場), a variant (a character added or dropped at
    /// the end: 観光通 and 観光通り), or another name.
    package enum NameAgreement: String, Sendable, Equatable, CaseIterable {
        case same = "the same", reading = "the same reading", variant = "a variant", other = "another"
        package init(_ a: IdentityStation, _ b: IdentityStation) {
            if a.base == b.base { self = .same; return }
            if !a.yomi.isEmpty, a.yomi == b.yomi { self = .reading; return }
            let x = Array(a.base), y = Array(b.base)
            let (short, long) = x.count <= y.count ? (x, y) : (y, x)
            self = short.count >= 2 && long.count == short.count + 1 && long.starts(with: short) ? .variant : .other
        }
    }

    /// The model's table as docs/maintaining.md shows it (a test holds the two together).
    package var table: String {
        var out = "| comparison | level | weight | what it is |\n|---|---|---:|---|\n"
        for l in levels { out += "| \(l.comparison) | \(l.level) | \(fixed(l.weight, decimals: 1, alwaysSigned: true)) | \(l.meaning) |\n" }
        return out + "\nA pair links at \(fixed(link, decimals: 1)) or more when no other candidate comes within \(fixed(margin, decimals: 1)) of it; "
            + "a retired s_id's survivor is named from \(fixed(possible, decimals: 1)).\n"
    }
}

extension PointGrid {
    /// The indexes in the cells that cover `metres` around a point (and some farther), cell by cell.
    package func points(aroundLat lat: Int, lng: Int, metres: Double) -> [Int] {
        let c = cell(lat: lat, lng: lng)
        let cellMetres = MicroDegrees.metresPerDegree * Double(cellSize) / 1_000_000
        let dy = Int(metres / cellMetres) + 1, dx = Int(metres / (cellMetres * cos(MicroDegrees.degrees(lat) * .pi / 180))) + 1
        var out: [Int] = []
        for row in (c.row - dy)...(c.row + dy) { for column in (c.column - dx)...(c.column + dx) { out += points(row: row, column: column).map(Int.init) } }
        return out
    }
}

extension IdentityModel.Weight {
    /// The pair's terms one per line as a waterfall (splink draws one): each term's weight and
    /// the running total, then the total against the thresholds.
    package func waterfall(_ model: IdentityModel, indent: String = "    ") -> String {
        var out = "", running = 0.0
        for t in terms {
            running += t.weight
            out += indent + t.comparison.padded(to: 15) + t.level.padded(to: 34) + fixed(t.weight, decimals: 1, alwaysSigned: true).padded(to: 7, right: true)
                + fixed(running, decimals: 1).padded(to: 8, right: true) + "\n"
        }
        let verdict = running >= model.link ? "links (from \(fixed(model.link, decimals: 1)))"
            : running >= model.possible ? "possible (links from \(fixed(model.link, decimals: 1)))" : "another station (possible from \(fixed(model.possible, decimals: 1)))"
        return out + indent + "total".padded(to: 49) + fixed(running, decimals: 1).padded(to: 15, right: true) + "  " + verdict + "\n"
    }
}
