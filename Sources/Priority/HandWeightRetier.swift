import Glibc
import StationCore

// The maintainer's own hand weights, re-tiered (`stationdb priority suggest --retier`).
//
// His picks are his: the same stations keep a hand weight. What a person's levels
// lack is spacing, since they were set one area at a time: a generous area holds
// many 1s and 2s side by side and takes the country view's pins, a hurried one holds
// only 7s and 9s and shows none. The apps show a view's smallest weights first, so
// each level k is, with every smaller one, the set of pins a view at some zoom shows;
// that set should be spread like the machine tiers' blue noise. So level by level,
// from 1 up, his stations of that level or smaller keep it unless one ahead of them
// in his order already holds a pin close by (they drop to the next level), and a
// station of his with no pin of that level or smaller anywhere near is raised to it.
//
// "Near" is a level's spacing, the distance that gives the level as many stations as
// his file gives it: his level sizes are kept, which pins are in them is what moves.
// A station keeps its level while the nearest other pin is more than about half the
// spacing away, so a level a person spread reasonably stays as it is (0.55, tuned on
// the apps' stand-in: more drops more of his stations for little more coverage).
// Levels he leaves empty stay empty, and levels spaced closer than `finestKm` are left
// as he set them: at the zooms that show pins that close, every station in view is
// shown anyway, and moving them changes no view's coverage.
//
// A second run over its own output changes nothing: its levels are as large as his,
// no two pins of a level closer than half its spacing, and every station within the
// spacing of a pin of its level.

package enum HandWeightRetier {
    /// A station keeps its level when no pin of it or a smaller one lies within this share of the level's spacing.
    static let keepWithin = 0.55
    /// Levels spaced closer than this are left as they are.
    static let finestKm = 2.0
    /// Distances as the machine tiers measure them (north-south counts less: a portrait screen).
    static let northSouth = BlueNoiseTiers.standard.northSouth
    static let kmPerDegree = MicroDegrees.metresPerDegree / 1_000

    package struct Row: Hashable, Sendable {
        package var stationID: Int
        package var old: Int
        package var level: Int
        package var note: String
    }

    package struct Result: Sendable {
        /// Every hand weight, in s_id order.
        package var rows: [Row]
        /// Each spaced level's spacing, km.
        package var spacing: [Int: Double]
        package var changed: Int { rows.count { $0.level != $0.old } }

        /// As raw/weights.csv.
        package var csv: String {
            "s_id,weight,note\n" + rows.map { CSVWriter.line([String($0.stationID), String($0.level), $0.note]) }.joined()
        }
    }

    /// Whether a note marks its row as fixed: the word "fixed" anywhere in it, in any case.
    package static func isFixed(_ note: String) -> Bool {
        note.utf8.split { !(0x61...0x7A).contains($0 | 0x20) }.contains { $0.map { $0 | 0x20 } == Array("fixed".utf8) }
    }

    /// `keep`: s_ids that hold their level (rows noted "fixed" too); `maxChanges`: at most
    /// this many rows change, the changes to the smaller levels first (they decide the wider views).
    package static func retier(network: RailNetwork, hand: [HandWeight], keep: Set<Int> = [], maxChanges: Int? = nil) -> Result {
        let sorted = hand.sorted { $0.stationID < $1.stationID }
        let ids = Set(sorted.map(\.stationID))
        var stations: [Int: Station] = [:]
        for s in network.stations where ids.contains(s.id) && stations[s.id] == nil { stations[s.id] = s }
        // His order between stations of one level: the lines at the place, among his stations there.
        let places = HandWeightSuggestions.Places(network, only: ids)
        // Shown stations only: a hand weight on a disabled one is no pin and stays as it is.
        let live = sorted.indices.filter { stations[sorted[$0].stationID]?.enabled == true }
        let tiers = Tiers(stations: live.map { stations[sorted[$0].stationID]! }, old: live.map { sorted[$0].weight },
                          lines: live.map { (places.lines(at: stations[sorted[$0].stationID]!).count, places.linesOf[sorted[$0].stationID]?.count ?? 0) },
                          pinned: live.map { keep.contains(sorted[$0].stationID) || isFixed(sorted[$0].note) })
        var pinned = tiers.pinned
        var (level, why, spacing) = tiers.run(pinned: pinned, spacing: nil)
        // Over budget: the changes to the widest views are kept, the rest held where they were,
        // and the levels drawn again around them (at the same spacings) until few enough change.
        while let maxChanges, case let changed = tiers.indices.filter({ level[$0] != tiers.old[$0] }), changed.count > maxChanges {
            let ranked = changed.sorted { (min(tiers.old[$0], level[$0]), -abs(tiers.old[$0] - level[$0]), tiers.rank[$0]) < (min(tiers.old[$1], level[$1]), -abs(tiers.old[$1] - level[$1]), tiers.rank[$1]) }
            for k in ranked.dropFirst(maxChanges) { pinned[k] = true }
            (level, why, _) = tiers.run(pinned: pinned, spacing: spacing)
        }
        var rows = sorted.map { Row(stationID: $0.stationID, old: $0.weight, level: $0.weight, note: $0.note) }
        for (k, i) in live.enumerated() where level[k] != tiers.old[k] {
            rows[i].level = level[k]
            rows[i].note = "\(tiers.stations[k].name) \(tiers.old[k]) → \(level[k]): " + why[k]!.text(tiers) + ownNote(rows[i].note)
        }
        return Result(rows: rows, spacing: spacing)
    }

    /// The maintainer's own words after the reason, without the reason an earlier re-tier gave.
    static func ownNote(_ note: String) -> String {
        var own = Substring(note)
        if let reason = own.firstMatch(of: /^[^;]* \d+ → \d+: [^;]*(; |$)/) { own = own[reason.range.upperBound...] }
        return own.isEmpty ? "" : "; " + own
    }

    /// Why a station's level changed.
    enum Why {
        /// Raised to `level`: no pin of it or a smaller one within `km`.
        case gap(level: Int, km: Double)
        /// Dropped from `level`: `by` holds `held` `km` away, under the level's `within`.
        case near(level: Int, by: Int, held: Int, km: Double, within: Double)

        func text(_ t: Tiers) -> String {
            switch self {
            case .gap(let level, let km): "no level ≤ \(level) within \(Self.km(km)) km"
            case .near(let level, let by, let held, let km, let within):
                "\(t.stations[by].name) holds level \(held) \(Self.km(km)) km away (level \(level) keeps \(Self.km(within)) km apart)"
            }
        }

        static func km(_ v: Double) -> String { v < 10 ? fixed(v, decimals: 1) : String(Int(v.rounded())) }
    }

    /// The live hand-weighted stations and the walk over their levels.
    struct Tiers {
        let stations: [Station]
        let lat: [Int], lng: [Int], cosLat: [Double]
        let old: [Int]
        let pinned: [Bool]
        /// His order: his level, then the stations more lines serve at their place, then of their own, then s_id.
        let order: [Int]
        let rank: [Int]
        var indices: Range<Int> { stations.indices }

        init(stations: [Station], old: [Int], lines: [(place: Int, own: Int)], pinned: [Bool]) {
            self.stations = stations; self.old = old; self.pinned = pinned
            lat = stations.map(\.lat); lng = stations.map(\.lng); cosLat = lat.map { cos(Double($0) / 1e6 * .pi / 180) }
            order = stations.indices.sorted {
                (old[$0], -lines[$0].place, -lines[$0].own, stations[$0].id) < (old[$1], -lines[$1].place, -lines[$1].own, stations[$1].id)
            }
            var rank = [Int](repeating: 0, count: stations.count)
            for (r, k) in order.enumerated() { rank[k] = r }
            self.rank = rank
        }

        /// Oval km from station a's point of view.
        func km(_ a: Int, _ b: Int) -> Double {
            let dy = Double(lat[b] - lat[a]) / 1e6 * kmPerDegree * northSouth, dx = Double(lng[b] - lng[a]) / 1e6 * kmPerDegree * cosLat[a]
            return (dx * dx + dy * dy).squareRoot()
        }

        /// Every station's new level and why it moved; the spacings found (or given).
        func run(pinned: [Bool], spacing given: [Int: Double]?) -> (level: [Int], why: [Why?], spacing: [Int: Double]) {
            var level = [Int?](repeating: nil, count: stations.count)
            var why = [Why?](repeating: nil, count: stations.count)
            var spacing: [Int: Double] = [:]
            var spaced = true, widest = 1_000.0
            for k in HandWeights.range.dropLast() {
                let target = old.count { $0 <= k }
                guard target > old.count(where: { $0 < k }) else { continue }
                var km = given?[k]
                if given == nil, spaced {
                    // The spacing that gives level k as many stations as his: the smallest that adds no
                    // more, at most the level before's (and under `finestKm`, none).
                    var lo = finestKm / 2, hi = widest
                    for _ in 0..<10 {
                        let mid = (lo * hi).squareRoot()
                        if step(k, km: mid, level: level, why: why, pinned: pinned, above: target).level.count(where: { $0 != nil }) > target { lo = mid } else { hi = mid }
                    }
                    km = hi >= finestKm ? hi : nil
                    widest = hi
                }
                spaced = km != nil
                if let km { spacing[k] = km }
                (level, why) = step(k, km: km, level: level, why: why, pinned: pinned)
            }
            return (level.map { $0 ?? HandWeights.range.upperBound }, why, spacing)
        }

        /// Level k: his stations of level k or smaller keep it unless a pin is within half of
        /// `km`, then any station with no pin within `km` is raised to it; without `km`, all
        /// of his take it as they are. A trial stops once more than `above` stations have a level.
        func step(_ k: Int, km: Double?, level: [Int?], why: [Why?], pinned: [Bool], above: Int = .max) -> (level: [Int?], why: [Why?]) {
            var level = level, why = why, count = 0
            // Cells as tall as the oval reaches north-south (and no smaller than 4 km, to bound the grid).
            var taken = PointGrid(Array(zip(lat, lng)), cellSize: max(40_000, Int((km ?? 0) / northSouth / kmPerDegree * 1e6)), empty: true)
            for i in indices where level[i] != nil { taken.insert(i); count += 1 }
            func take(_ i: Int) { level[i] = k; taken.insert(i); count += 1 }
            func near(_ i: Int, within: Double) -> (Int, Double)? {
                taken.nearest(lat: lat[i], lng: lng[i], within: within) { $0 == i ? .infinity : self.km(i, $0) }.map { ($0.index, $0.distance) }
            }
            for i in indices where level[i] == nil && pinned[i] && old[i] == k { take(i) }
            for i in order where level[i] == nil && !pinned[i] && old[i] <= k {
                guard let km, let (by, d) = near(i, within: keepWithin * km) else { take(i); continue }
                if why[i] == nil { why[i] = .near(level: k, by: by, held: level[by]!, km: d, within: keepWithin * km) }
            }
            guard let km else { return (level, why) }
            for i in order where level[i] == nil && !pinned[i] && old[i] > k && near(i, within: km) == nil {
                guard count <= above else { break }
                take(i)
                why[i] = .gap(level: k, km: km)
            }
            return (level, why)
        }
    }
}
