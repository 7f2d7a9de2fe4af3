import Foundation

// Station names from different sources spell the same place differently:
// full-width vs half-width (NFKC), a trailing 駅, and the small ヶ that is also
// written ケ, が or ガ (霞ヶ関, 霞が関, 霞ケ関).

public enum StationName {
    public static func normalized(_ name: String) -> String {
        var s = name.precomposedStringWithCompatibilityMapping
        s.removeAll { $0.isWhitespace }
        if s.hasSuffix("駅"), s.count > 1 { s.removeLast() }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s {
            switch c {
            case "ヶ", "ヵ", "が", "ガ", "ケ": out.append("ケ")
            default: out.append(c)
            }
        }
        return out
    }
}

/// Operator and line names across sources ("JR東日本" / "東日本旅客鉄道") rarely
/// match as text; they are matched through the stations they share instead.
enum OperatorName {
    static func normalized(_ name: String) -> String {
        var s = name.precomposedStringWithCompatibilityMapping
        s.removeAll { $0.isWhitespace }
        return s
    }
}
