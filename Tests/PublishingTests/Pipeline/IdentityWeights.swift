import Foundation
import Ingest
import StationCore

/// The evidence's weights as the corpus's labeled pairs give them (Fellegi and Sunter, as
/// splink estimates them from labels): for each level of each comparison, m is the share of
/// the pairs of one station that fall in it and u the share of the pairs of two stations, and
/// its weight log2(m/u) (each count given half a pair more, so that a level never seen weighs
/// what half a pair would say, not infinity). A pair of a transition counts once however many
/// of its steps weigh it alike. The source's key is never wrong in the real releases, which
/// would make its weight as large as the pairs are many: the careless transitions' pairs
/// (ids swapped or given on, codes swapped, a rename laundered) are counted too, and the key
/// is then bounded by the largest weight that leaves each of them without a wrong link.
/// A pair links at posterior odds of one or more (the prior: the share of one station's pairs
/// among all), may be one at odds of 1 to 999, and is proven when no rival comes within 4 (16
/// times as likely).
enum IdentityWeights {
    /// The transitions the weights are estimated from: the real ones (the history's events, a
    /// release of the upstream, the apps' master switched to it) and the careless ones (ids and
    /// codes given on, swapped, reused), whose pairs are the only ones where a key lies: without
    /// them a key, and a far pair only a key makes, would weigh as much as the pairs are many.
    static func estimatedFrom(_ transitions: [String]) -> [String] {
        transitions.filter { $0.hasPrefix("history_") || $0 == "upstream_release" || $0 == "apps_master_switch" || careless.contains($0) }
    }
    static let careless = ["company_codes_swapped_kanto", "company_codes_swapped_tokyo", "line_renamed_shinkansen", "gone_and_back_variant",
                           "duplicate_then_original_deleted", "rename_then_move", "ids_swapped", "id_reused", "stops_renamed_and_moved"]
    static let margin = 4.0

    static let meanings: [String: String] = [
        "name and place: the same name, up to 100 m": "the same name once normalised (full-width letters, a trailing 駅, ヶ/ケ/が and what brackets add aside), within 100 m",
        "name and place: another spelling, up to 300 m": "the same reading spelt otherwise (高田馬場, 髙田馬場), or a character added or dropped at the end (観光通, 観光通り)",
        "name and place: the same name, farther than 1 km": "a candidate by its name within 5 km, or by a key",
        "name and place: another name, farther": "farther than 300 m (a neighbour, most often)",
        "line: continues, the same operator": "a line of each shares more than half the stations of the shorter (by place, or by name within 1 km, whoever runs them)",
        "line: continues, another operator, its own gone": "so, under another operator, and its own runs it there no more: a line handed on",
        "line: continues, another operator, its own still there": "so, under another operator, while its own still runs it there: two rows side by side",
        "line: breaks, the same operator": "no line of each shares so many: another station of the same operator",
        "line: breaks, another operator": "so, under another operator: most often another operator's station at the same place",
        "line: no line to compare": "either stood on no line",
        "status: reopened": "closed before, live now",
        "status: closed": "live before, closed now",
        "kind: Shinkansen and conventional": "one a Shinkansen station, the other not",
        "key: the source's id for it": "the station carries an id its source gave the s_id before (the upstream's `id`, an ekidata or N02 station code)",
        "key: none": "it does not, or the source gives no id",
    ]

    struct Counts {
        var matches: [String: Int] = [:], others: [String: Int] = [:]
        var total: (matches: Int, others: Int) { (matches.values.reduce(0, +), others.values.reduce(0, +)) }
    }

    /// The counts of each comparison's levels over the labeled pairs, each pair of a transition
    /// once however many of its steps weigh it alike (a station unchanged for years is one
    /// observation of a station that does not change, not one a release).
    static func count(_ pairs: [(transition: String, pair: IdentityPair, match: Bool)]) -> (levels: [String: Counts], prior: (matches: Int, others: Int)) {
        var levels: [String: Counts] = [:], prior = (matches: 0, others: 0), seen = Set<String>()
        for (transition, pair, match) in pairs {
            let terms = pair.terms.filter { !$0.level.hasPrefix("shared by") }
            guard seen.insert("\(transition) \(pair.old) \(pair.new) " + terms.map(\.level).joined(separator: "|")).inserted else { continue }
            if match { prior.matches += 1 } else { prior.others += 1 }
            for t in terms {
                if match { levels[t.comparison, default: Counts()].matches[t.level, default: 0] += 1 } else { levels[t.comparison, default: Counts()].others[t.level, default: 0] += 1 }
            }
        }
        return (levels, prior)
    }

    /// The table (identity-weights.csv) for these counts, the key's weight `key` (nil: as estimated).
    static func table(_ counts: (levels: [String: Counts], prior: (matches: Int, others: Int)), key: Double? = nil) -> String {
        func bits(_ x: Double) -> Double { (x * 10).rounded() / 10 }
        let prior = log2(Double(counts.prior.matches) / Double(counts.prior.others))
        var out = "comparison,level,weight,matches,others,meaning\n"
        for c in IdentityModel.vocabulary where c.comparison != "threshold" {
            let n = counts.levels[c.comparison] ?? Counts(), half = Double(c.levels.count) / 2
            for level in c.levels {
                let m = Double(n.matches[level] ?? 0), u = Double(n.others[level] ?? 0)
                // A level no pair fell in says nothing: no weight, not the prior's ratio.
                var w = m + u == 0 ? 0 : bits(log2(((m + 0.5) / (Double(n.total.matches) + half)) / ((u + 0.5) / (Double(n.total.others) + half))))
                if c.comparison == "key", level != "none", let key { w = key }
                out += CSVWriter.line([c.comparison, level, fixed(w, decimals: 1), String(Int(m)), String(Int(u)),
                                       meanings["\(c.comparison): \(level)"] ?? ""])
            }
        }
        out += "threshold,link,\(fixed(bits(-prior), decimals: 1)),,,posterior odds of one or more (the prior: \(counts.prior.matches) of \(counts.prior.matches + counts.prior.others) pairs are one station)\n"
        out += "threshold,possible,\(fixed(bits(-prior - log2(999)), decimals: 1)),,,posterior odds of 1 to 999 or more\n"
        out += "threshold,margin,\(fixed(margin, decimals: 1)),,,a rival within this proves neither (16 times as likely)\n"
        return out
    }
}
