import Foundation

// Decimal degrees <-> integer micro-degrees, exactly: parsed from the decimal
// text, never through a Double, rounded half away from zero (bundle.md).

public enum MicroDegrees {
    public static func parse(_ text: String) -> Int? {
        var utf8 = Substring(text).utf8[...]
        guard !utf8.isEmpty else { return nil }
        var negative = false
        if utf8.first == UInt8(ascii: "-") { negative = true; utf8 = utf8.dropFirst() }
        else if utf8.first == UInt8(ascii: "+") { utf8 = utf8.dropFirst() }
        var whole = 0, frac = 0, fracDigits = 0, roundUp = false
        var seenDot = false, digits = 0
        for b in utf8 {
            if b == UInt8(ascii: ".") {
                if seenDot { return nil }
                seenDot = true; continue
            }
            guard b >= 48, b <= 57 else { return nil }
            let d = Int(b - 48)
            digits += 1
            if !seenDot {
                whole = whole * 10 + d
                if whole > 1_000 { return nil }
            } else if fracDigits < 6 {
                frac = frac * 10 + d; fracDigits += 1
            } else if fracDigits == 6 {
                roundUp = d >= 5; fracDigits += 1
            }
        }
        guard digits > 0 else { return nil }
        while fracDigits < 6 { frac *= 10; fracDigits += 1 }
        var v = whole * 1_000_000 + frac + (roundUp ? 1 : 0)
        if negative { v = -v }
        return v
    }

    public static func parse(_ value: Double) -> Int {
        Int((value * 1_000_000).rounded(.toNearestOrAwayFromZero))
    }

    /// "35.680959"
    public static func format(_ micro: Int) -> String {
        let sign = micro < 0 ? "-" : ""
        let m = abs(micro)
        let frac = String(m % 1_000_000)
        return sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - frac.count) + frac
    }

    public static func degrees(_ micro: Int) -> Double { Double(micro) / 1_000_000 }

    /// Whether a point lies inside Japan's bounding box (sources.md: 20..46 N, 122..154 E).
    public static func inJapan(lat: Int, lng: Int) -> Bool {
        (20_000_000...46_000_000).contains(lat) && (122_000_000...154_000_000).contains(lng)
    }

    /// Great-circle distance in metres between two micro-degree points.
    public static func distanceMetres(lat1: Int, lng1: Int, lat2: Int, lng2: Int) -> Double {
        let r = 6_371_008.8
        let p1 = degrees(lat1) * .pi / 180, p2 = degrees(lat2) * .pi / 180
        let dp = p2 - p1, dl = (degrees(lng2) - degrees(lng1)) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}

