// Japan's standard grid squares (JIS X 0410 regional mesh, docs/mesh.md),
// computed from integer micro-degrees with integer arithmetic only.
//
// Why integers: a 1st-mesh cell is 2/3 degree tall, which no binary float
// holds exactly, so `lat * 1.5` followed by repeated subtraction puts points
// that sit on a cell edge into the cell below. Multiplying latitude by 3
// instead makes every edge an integer: in "thirds of a micro-degree" a 1st
// mesh cell is 2,000,000 tall, 2nd 250,000, 5 km 125,000, 3rd 25,000,
// half 12,500, quarter 6,250; longitude edges are already integers in
// micro-degrees (1,000,000 / 125,000 / 62,500 / 12,500 / 6,250 / 3,125).
// Flooring then gives the spec's rule for free: a point exactly on an edge
// belongs to the cell to its north / east.

/// A level of the regional mesh. `fiveKilometre` is JIS X 0410's 5x mesh
/// (the 2nd-mesh cell split 2 x 2, one extra digit 1..4 like the half mesh),
/// a standard integrated mesh between the 2nd (10 km) and 3rd (1 km) levels.
package enum MeshLevel: String, CaseIterable, Sendable, Comparable {
    case first = "1st"
    case second = "2nd"
    case fiveKilometre = "5km"
    case third = "3rd"
    case half = "half"
    case quarter = "quarter"

    /// The spec's numbered levels 1...5 (mesh.md's table).
    package init?(number: Int) {
        guard (1...5).contains(number) else { return nil }
        self = [.first, .second, .third, .half, .quarter][number - 1]
    }

    /// Coarsest first, 0...5: where the level is in the tables below.
    var order: Int {
        switch self {
        case .first: 0
        case .second: 1
        case .fiveKilometre: 2
        case .third: 3
        case .half: 4
        case .quarter: 5
        }
    }

    /// Cell height in thirds of a micro-degree of latitude, width in micro-degrees of
    /// longitude, and the digits of the code, by `order`.
    private static let latitudeSteps = [2_000_000, 250_000, 125_000, 25_000, 12_500, 6_250]
    private static let longitudeSteps = [1_000_000, 125_000, 62_500, 12_500, 6_250, 3_125]
    private static let codeDigits = [4, 6, 7, 8, 9, 10]

    var latitudeStep: Int { Self.latitudeSteps[order] }
    var longitudeStep: Int { Self.longitudeSteps[order] }
    package var digits: Int { Self.codeDigits[order] }

    /// Cell height and width in degrees.
    package var sizeDegrees: (lat: Double, lng: Double) {
        (Double(latitudeStep) / 3_000_000, Double(longitudeStep) / 1_000_000)
    }

    package static func < (a: MeshLevel, b: MeshLevel) -> Bool { a.order < b.order }
}

/// One grid square: its level and its code as the spec writes it (5339, 533946, 53394611, ...).
package struct MeshCode: Hashable, Sendable, CustomStringConvertible {
    package var level: MeshLevel
    package var code: Int

    /// The square holding a point given in micro-degrees.
    package init(lat: Int, lng: Int, level: MeshLevel) {
        self.level = level
        self.code = MeshCode.code(lat: lat, lng: lng, level: level)
    }

    /// The spec's numbered levels 1 (1st) ... 5 (quarter).
    package init?(lat: Int, lng: Int, level number: Int) {
        guard let level = MeshLevel(number: number) else { return nil }
        self.init(lat: lat, lng: lng, level: level)
    }

    package var description: String { String(code) }

    /// The code alone, without building a value: the assigner calls this per station and tier.
    @inline(__always)
    package static func code(lat: Int, lng: Int, level: MeshLevel) -> Int {
        let a = lat * 3                      // thirds of a micro-degree: 1.5 * lat in units of 1/2,000,000
        let b = lng - 100_000_000
        let p = floorDiv(a, 2_000_000), q = floorDiv(b, 1_000_000)
        var code = p * 100 + q
        if level == .first { return code }
        let a1 = a - p * 2_000_000, b1 = b - q * 1_000_000
        let r = a1 / 250_000, s = b1 / 125_000
        code = code * 100 + r * 10 + s
        if level == .second { return code }
        let a2 = a1 - r * 250_000, b2 = b1 - s * 125_000
        if level == .fiveKilometre {
            return code * 10 + 1 + (a2 >= 125_000 ? 2 : 0) + (b2 >= 62_500 ? 1 : 0)
        }
        let t = a2 / 25_000, u = b2 / 12_500
        code = code * 100 + t * 10 + u
        if level == .third { return code }
        let a3 = a2 - t * 25_000, b3 = b2 - u * 12_500
        let north3 = a3 >= 12_500, east3 = b3 >= 6_250
        code = code * 10 + 1 + (north3 ? 2 : 0) + (east3 ? 1 : 0)
        if level == .half { return code }
        let a4 = a3 - (north3 ? 12_500 : 0), b4 = b3 - (east3 ? 6_250 : 0)
        return code * 10 + 1 + (a4 >= 6_250 ? 2 : 0) + (b4 >= 3_125 ? 1 : 0)
    }

    /// The south-west corner in degrees (for drawing; membership never uses it).
    package var southWestDegrees: (lat: Double, lng: Double) {
        var digits: [Int] = []
        var c = code
        for _ in 0..<level.digits { digits.append(c % 10); c /= 10 }
        digits.reverse()
        // In thirds of a micro-degree (lat) and micro-degrees (lng), as above.
        var a = (digits[0] * 10 + digits[1]) * 2_000_000
        var b = (digits[2] * 10 + digits[3]) * 1_000_000 + 100_000_000
        if level >= .second { a += digits[4] * 250_000; b += digits[5] * 125_000 }
        if level == .fiveKilometre {
            let d = digits[6] - 1
            a += (d / 2) * 125_000; b += (d % 2) * 62_500
        } else if level >= .third {
            a += digits[6] * 25_000; b += digits[7] * 12_500
            if level >= .half { let d = digits[8] - 1; a += (d / 2) * 12_500; b += (d % 2) * 6_250 }
            if level >= .quarter { let d = digits[9] - 1; a += (d / 2) * 6_250; b += (d % 2) * 3_125 }
        }
        return (Double(a) / 3_000_000, Double(b) / 1_000_000)
    }
}

@inline(__always)
func floorDiv(_ a: Int, _ b: Int) -> Int {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
