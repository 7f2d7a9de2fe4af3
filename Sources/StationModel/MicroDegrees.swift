import FoundationEssentials
import Glibc

// Decimal degrees <-> integer micro-degrees, exactly: parsed from the decimal
// text, never through a Double, rounded half away from zero (bundle.md).

public enum MicroDegrees {
    public static func parse(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    /// The one parser, on bytes so that readers of national files make no
    /// String per number: an optional sign, digits, an optional point and
    /// decimals, rounded half away from zero on the 7th decimal.
    @inlinable
    public static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = b.count
        guard n > 0 else { return nil }
        var negative = false
        if b[0] == 0x2D { negative = true; i = 1 } else if b[0] == 0x2B { i = 1 }
        var whole = 0, frac = 0, fracDigits = 0, roundUp = false
        var seenDot = false, digits = 0
        while i < n {
            let c = b[i]
            i += 1
            if c == 0x2E {
                if seenDot { return nil }
                seenDot = true
                continue
            }
            let d = c &- 0x30
            guard d <= 9 else { return nil }
            digits += 1
            if !seenDot {
                whole = whole * 10 + Int(d)
                if whole > 1_000 { return nil }
            } else if fracDigits < 6 {
                frac = frac * 10 + Int(d); fracDigits += 1
            } else if fracDigits == 6 {
                roundUp = d >= 5; fracDigits += 1
            }
        }
        guard digits > 0 else { return nil }
        while fracDigits < 6 { frac *= 10; fracDigits += 1 }
        let v = whole * 1_000_000 + frac + (roundUp ? 1 : 0)
        return negative ? -v : v
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

