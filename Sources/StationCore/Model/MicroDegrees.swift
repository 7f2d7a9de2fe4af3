import Glibc

// Decimal degrees <-> integer micro-degrees, exactly: parsed from the decimal
// text, never through a Double, rounded half away from zero (bundle.md).

package enum MicroDegrees {
    package static func parse(_ text: String) -> Int? {
        var text = text
        return text.withUTF8 { parse($0) }
    }

    package static func parse(_ bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// An optional sign, digits, an optional point and decimals, rounded half
    /// away from zero on the 7th decimal.
    package static func parse(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !b.isEmpty else { return nil }
        var negative = false
        var rest = b[...]
        if let sign = rest.first, sign == 0x2D || sign == 0x2B { negative = sign == 0x2D; rest = rest.dropFirst() }
        var whole = 0, fraction = 0, fractionDigits = 0, roundUp = false
        var seenPoint = false, digits = 0
        for c in rest {
            if c == 0x2E {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard c >= 0x30, c <= 0x39 else { return nil }
            let d = Int(c - 0x30)
            digits += 1
            if !seenPoint {
                whole = whole * 10 + d
                if whole > 1_000 { return nil }
            } else if fractionDigits < 6 {
                fraction = fraction * 10 + d
                fractionDigits += 1
            } else if fractionDigits == 6 {
                roundUp = d >= 5
                fractionDigits += 1
            }
        }
        guard digits > 0 else { return nil }
        while fractionDigits < 6 { fraction *= 10; fractionDigits += 1 }
        let v = whole * 1_000_000 + fraction + (roundUp ? 1 : 0)
        return negative ? -v : v
    }

    /// "35.680959"
    package static func format(_ micro: Int) -> String {
        let sign = micro < 0 ? "-" : ""
        let m = abs(micro)
        let fraction = String(m % 1_000_000)
        return sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    package static func degrees(_ micro: Int) -> Double { Double(micro) / 1_000_000 }

    /// Whether a point lies inside Japan's bounding box (sources.md: 20..46 N, 122..154 E).
    package static func inJapan(lat: Int, lng: Int) -> Bool { japanLat.contains(lat) && japanLng.contains(lng) }
    package static let japanLat = 20_000_000...46_000_000, japanLng = 122_000_000...154_000_000

    /// The Earth's mean radius (IUGG), and a degree of latitude on it (111,195 m): the
    /// one scale every distance of the project is measured in.
    package static let earthRadiusMetres = 6_371_008.8
    package static let metresPerDegree = earthRadiusMetres * .pi / 180

    /// A move this long is more likely a mistyped ID or coordinate than a re-survey:
    /// lint names every fix that moves a station further, and plan every such move.
    package static let notableMoveMetres = 1_000.0

    /// Great-circle distance in metres between two micro-degree points.
    package static func distanceMetres(lat1: Int, lng1: Int, lat2: Int, lng2: Int) -> Double {
        let r = earthRadiusMetres
        let p1 = degrees(lat1) * .pi / 180, p2 = degrees(lat2) * .pi / 180
        let dp = p2 - p1, dl = (degrees(lng2) - degrees(lng1)) * .pi / 180
        let a = sin(dp / 2) * sin(dp / 2) + cos(p1) * cos(p2) * sin(dl / 2) * sin(dl / 2)
        return 2 * r * asin(min(1, a.squareRoot()))
    }
}

extension CSVTable {
    /// Decimal degrees as integer micro-degrees (blanks around the number allowed).
    package func microDegrees(_ r: Int, _ column: CSVColumn, _ problems: inout DiagnosticCollector) -> Int? {
        guard let v = MicroDegrees.parse(trimmedBytes(r, column)) else {
            let value = string(r, column)
            problems.add(location(r, column), value.isEmpty ? "expected decimal degrees, found nothing" : "expected decimal degrees, found '\(shown(value))'")
            return nil
        }
        return v
    }
}
