import Glibc
import StationCore

// Machine weights as blue noise over the mesh.
//
// A map view shows the hand-weighted stations first, then 11s, 12s and 13s,
// nearest the centre first, up to N pins. What fills a view evenly is a set
// of pins no two of which are close: a Poisson disk. So each tier gives a
// station its weight when no station already holding a smaller weight lies
// within the tier's radius of it, and it comes first, in a seeded order,
// among the stations still open near it. The hand-weighted stations hold
// smaller weights from the start, so the tiers fill the gaps the maintainers'
// pins leave instead of doubling them, and each tier fills the gaps of the
// ones before.
//
// Distance is measured in kilometres in a frame local to the station (east-west
// scaled by the cosine of its own latitude) and as an oval: a phone screen is
// portrait, about twice as tall as wide, so two pins one above the other look
// closer than the same distance side by side, and north-south counts 0.6.
//
// The radius follows what a view there can show: where stations are dense a
// view of the same size holds more of them, so the radius shrinks with the
// number of live stations around (a 0.2-degree box, counted on the 2nd mesh):
// radius = base x (100 / stations)^(1/4), within set bounds. Isolated stations
// are visited first (fewest stations around, then the seeded ticket), so a
// lone station in the mountains gets a pin before a city's crowd is thinned.
//
// Japan's standard mesh stays the frame: its squares are the buckets the disk
// test looks in (a tier's radius spans a few squares of its level) and count
// the stations around; a station's weight depends only on the stations within
// a few radii of it, so a data fix changes weights near the fix only.

/// The blue-noise tiers' settings (`--method blue-noise`, the default).
package struct BlueNoiseTiers: Hashable, Sendable {
    /// Radius (km, oval) of each machine tier, 11 then 12, where the 3 x 3 2nd-mesh
    /// squares around a station hold 100 live stations.
    package var radius: [Double]
    /// How the radius follows density: x (100 / stations around)^exponent.
    package var exponent = 0.25
    /// Bounds of each tier's radius, km.
    package var minRadius: [Double]
    package var maxRadius: [Double]
    /// North-south distance counts this much (a portrait screen).
    package var northSouth = 0.6

    /// Tuned with `stationdb priority report --test-bed` on the national data, under raw/weights.csv
    /// and a real master's density of hand weights.
    package static let standard = BlueNoiseTiers(radius: [5, 1.5], minRadius: [0.05, 0.02], maxRadius: [12.5, 4], northSouth: 0.6)

    /// Settings as written for tuning: "r11:r12[:exponent[:min11:min12:max11:max12[:northSouth]]]".
    package static func parse(_ text: String) throws -> BlueNoiseTiers {
        let v = text.split(separator: ":").map { Double($0) }
        guard [2, 3, 7, 8].contains(v.count), v.allSatisfy({ $0 != nil && $0! >= 0 }), v[0]! > 0, v[1]! > 0 else {
            throw StationError.badInput(SourceLocation(file: "--blue-noise", field: text),
                             "expected r11:r12[:exponent[:min11:min12:max11:max12[:northSouth]]], each a positive number")
        }
        var t = standard
        t.radius = [v[0]!, v[1]!]
        if v.count >= 3 { t.exponent = v[2]! }
        if v.count >= 7 { t.minRadius = [v[3]!, v[4]!]; t.maxRadius = [v[5]!, v[6]!] }
        if v.count == 8 { t.northSouth = v[7]! }
        return t
    }

    package var description: String {
        "blue noise: 11 within \(fixed(radius[0], decimals: 2)) km, 12 within \(fixed(radius[1], decimals: 2)) km at 100 stations around, "
            + "x (100 / stations around)^\(fixed(exponent, decimals: 2)), north-south x \(fixed(northSouth, decimals: 2))"
    }

    /// The bin of a count of stations around: 1 for 1-3, 2 for 4-15, 3 for 16-63, ...
    package static func densityBin(_ around: Int) -> Int { (Int.bitWidth - around.leadingZeroBitCount + 1) / 2 }
    /// The density a bin stands for: the geometric middle of its counts.
    package static func density(ofBin bin: Int) -> Double { pow(2, 2 * Double(bin) - 1) }

    /// The levels an oval's squares are taken from, finest first.
    static let levels: [MeshLevel] = [.quarter, .half, .third, .fiveKilometre, .second]

    /// Machine weights for the live stations `live` (indexes into `stations`), given each
    /// one's weight so far (hand weights, or `restWeight`); tickets decide ties.
    func assign(stations: [Station], live: [Int], weights: inout [Int], tickets: [UInt64], restWeight: Int) {
        let n = live.count
        guard n > 0 else { return }

        let latE6 = live.map { stations[$0].lat }, lngE6 = live.map { stations[$0].lng }
        let lat = latE6.map { Double($0) / 1e6 }, lng = lngE6.map { Double($0) / 1e6 }
        let kmPerDegree = MicroDegrees.metresPerDegree / 1_000
        func square(k: Int, _ level: MeshLevel) -> MeshSquare { MeshSquare(lat: latE6[k], lng: lngE6[k], level: level) }
        let squareOf = { (k: Int, level: MeshLevel) in square(k: k, level) }

        // Live stations around each one: counted in 2nd-mesh squares, summed over the 3 x 3 around it.
        let home = (0..<n).map { square(k: $0, .second) }
        let south = home.map(\.row).min()! - 1, west = home.map(\.column).min()! - 1
        let width = home.map(\.column).max()! - west + 2, height = home.map(\.row).max()! - south + 2
        var perSquare = [Int](repeating: 0, count: width * height)
        for s in home { perSquare[(s.row - south) * width + s.column - west] += 1 }
        let around = home.map { s in
            (-1...1).reduce(0) { sum, dr in sum + (-1...1).reduce(0) { $0 + perSquare[(s.row + dr - south) * width + s.column + $1 - west] } }
        }

        // The density a station's radius and place in the walk go by, in bins four times as
        // wide as the last, so that a station added, removed or moved nearby changes neither for
        // almost everyone (doubling bins let a 3 km move change 10 other weights, these 5).
        let bin = around.map(Self.densityBin)
        let density = bin.map(Self.density(ofBin:))
        // Most isolated first, then the lottery; hand-weighted stations are never visited.
        let order = (0..<n).filter { weights[live[$0]] == restWeight }
            .sorted { (bin[$0], tickets[$0], $0) < (bin[$1], tickets[$1], $1) }

        /// How much a radius shrinks where stations are dense: (100 / stations around)^exponent, and
        /// beyond the densest places in Japan as the square root, so that the stations a radius
        /// spans stay bounded however dense the network grows (and the work with them).
        func shrink(_ density: Double) -> Double {
            let dense = 4_096.0
            return density <= dense ? pow(100 / density, exponent) : pow(100 / dense, exponent) * (dense / density).squareRoot()
        }
        var place = [Int](repeating: Int.max, count: n)
        for (p, k) in order.enumerated() { place[k] = p }

        for (t, weight) in [11, 12].enumerated() {
            let radii = (0..<n).map { k in min(maxRadius[t], max(minRadius[t], radius[t] * shrink(density[k]))) }
            /// The finest mesh level whose squares are half as tall as k's oval: the oval spans
            /// two squares each way, however dense the stations and small the radius.
            func level(_ k: Int) -> MeshLevel {
                let half = radii[k] / northSouth / kmPerDegree / 2
                return Self.levels.first { $0.sizeDegrees.lat >= half } ?? .first
            }
            /// Whether a station of `set` other than k lies within k's oval and passes `test`.
            func any(near k: Int, in set: SquareIndex, where test: (Int) -> Bool) -> Bool {
                let level = level(k), (squareHeight, squareWidth) = level.sizeDegrees
                let r = radii[k], cosLat = cos(lat[k] * .pi / 180)
                let rows = Int((r / northSouth / kmPerDegree / squareHeight).rounded(.up))
                let columns = Int((r / (kmPerDegree * cosLat) / squareWidth).rounded(.up))
                let home = square(k: k, level)
                return set.contains(level: level, around: home, rows: rows, columns: columns) { j in
                    guard j != k else { return false }
                    let dy = (lat[j] - lat[k]) * kmPerDegree * northSouth, dx = (lng[j] - lng[k]) * kmPerDegree * cosLat
                    return dx * dx + dy * dy < r * r && test(j)
                }
            }
            // Taken: the stations holding a smaller weight. Open: the rest that none of them is near.
            let taken = SquareIndex((0..<n).filter { weights[live[$0]] < weight }, square: squareOf)
            let candidates = order.filter { weights[live[$0]] == restWeight && !any(near: $0, in: taken, where: { _ in true }) }
            let open = SquareIndex(candidates, square: squareOf)
            // An open station takes the weight when it comes first in the walk among the open
            // stations near it. One such round, not a walk that lets every pick decide the next:
            // a pick then depends only on stations within its radius, so removing one station
            // never sets off a chain of changes along a line.
            for k in candidates where !any(near: k, in: open, where: { place[$0] < place[k] }) {
                weights[live[k]] = weight
            }
        }
    }
}

/// A set of stations by their mesh squares, at whichever level a query asks for: sorted by
/// row, then column, with where each row starts, so that the stations in a block of squares
/// are a few binary searches away. A level's order is made when first asked for.
final class SquareIndex {
    private let stations: [Int]
    private let square: (Int, MeshLevel) -> MeshSquare
    private var byLevel = [Squares?](repeating: nil, count: MeshLevel.allCases.count)

    /// One level's order: members by row, each row by column then station, and where each
    /// row starts (rows counted from the southernmost).
    private struct Squares {
        var members: [(column: Int, k: Int)] = []
        var firstRow = 0
        var rowStart: [Int] = [0]
    }

    init(_ stations: [Int], square: @escaping (Int, MeshLevel) -> MeshSquare) { self.stations = stations; self.square = square }

    private func squares(_ level: MeshLevel) -> Squares {
        if let made = byLevel[level.order] { return made }
        var made = Squares()
        let placed = stations.map { (square: square($0, level), k: $0) }
        if let south = placed.map(\.square.row).min(), let north = placed.map(\.square.row).max() {
            // Counted into rows, then each row sorted on its own: rows are short.
            made.firstRow = south
            var count = [Int](repeating: 0, count: north - south + 2)
            for p in placed { count[p.square.row - south + 1] += 1 }
            for r in 1..<count.count { count[r] += count[r - 1] }
            made.rowStart = count
            var next = count
            made.members = Array(repeating: (0, 0), count: placed.count)
            for p in placed {
                made.members[next[p.square.row - south]] = (p.square.column, p.k)
                next[p.square.row - south] += 1
            }
            for r in 0..<(count.count - 1) { made.members[count[r]..<count[r + 1]].sort { ($0.column, $0.k) < ($1.column, $1.k) } }
        }
        byLevel[level.order] = made
        return made
    }

    /// Whether a station in the squares of `level` up to `rows` and `columns` away from `centre`
    /// passes `test`. The nearest squares are looked at first: most answers are found there.
    func contains(level: MeshLevel, around centre: MeshSquare, rows: Int, columns: Int, where test: (Int) -> Bool) -> Bool {
        let s = squares(level)
        /// 0, -1, 1, -2, 2, ...: outward from the centre.
        func outward(_ i: Int) -> Int { i % 2 == 0 ? i / 2 : -(i + 1) / 2 }
        for r in 0...(2 * rows) {
            let row = centre.row + outward(r) - s.firstRow
            guard row >= 0, row + 1 < s.rowStart.count else { continue }
            let range = s.rowStart[row]..<s.rowStart[row + 1]
            for c in 0...(2 * columns) {
                let column = centre.column + outward(c)
                var i = range.lowerBound, hi = range.upperBound
                while i < hi { let mid = (i + hi) / 2; if s.members[mid].column < column { i = mid + 1 } else { hi = mid } }
                while i < range.upperBound, s.members[i].column == column {
                    if test(s.members[i].k) { return true }
                    i += 1
                }
            }
        }
        return false
    }
}

/// A square of the regional mesh as its row and column in the country-wide grid of its level.
struct MeshSquare: Hashable {
    var row: Int, column: Int

    init(lat: Int, lng: Int, level: MeshLevel) {
        row = floorDiv(3 * lat, level.latitudeStep)
        column = floorDiv(lng, level.longitudeStep)
    }
}
