/// Points of Japan (micro-degrees) in fixed square cells over its bounding box, for
/// the searches that look at a point's neighbours cell by cell (lint's nearest
/// stations, ingest's prefecture from the nearest station, the spacing of hand weights,
/// identity's candidates). A cell's points are a chain through `next` from one of a table
/// of buckets about twice as many as the points, which the cells share by a hash of their
/// number: a grid of kilometre cells over Japan would be millions of empty heads to fill
/// at every run. Points can also be put in one at a time as a walk takes them.
package struct PointGrid: Sendable {
    package let cellSize: Int
    let south = 20_000_000, west = 122_000_000
    let rows: Int, columns: Int
    /// Each point's cell; a bucket's points are first[bucket], next[that], ... until -1,
    /// the cells that share the bucket mixed (a walk keeps its cell's own).
    private let cellOf: [Int]
    private var first: [Int32], next: [Int32]
    private let bucketBits: Int

    /// `points` are (lat, lng) in micro-degrees; their indexes are what the cells hold, every one
    /// of them, or with `empty` none until `insert`ed. A point outside Japan's box is kept in the
    /// edge cell nearest to it.
    package init(_ points: [(lat: Int, lng: Int)], cellSize: Int, empty: Bool = false) {
        self.cellSize = cellSize
        let rows = (46_000_000 - 20_000_000) / cellSize + 1, columns = (154_000_000 - 122_000_000) / cellSize + 1
        self.rows = rows
        self.columns = columns
        cellOf = points.map { Self.index(row: ($0.lat - 20_000_000) / cellSize, column: ($0.lng - 122_000_000) / cellSize, rows: rows, columns: columns) }
        var bits = 4
        while 1 << bits < 2 * points.count { bits += 1 }
        bucketBits = bits
        first = [Int32](repeating: -1, count: 1 << bits)
        next = [Int32](repeating: -1, count: points.count)
        // Last first: a cell gives its points in index order.
        if !empty { for i in points.indices.reversed() { insert(i) } }
    }

    static func index(row: Int, column: Int, rows: Int, columns: Int) -> Int {
        min(max(row, 0), rows - 1) * columns + min(max(column, 0), columns - 1)
    }

    /// Fibonacci hashing: the top bits of the cell's number times 2^64 / φ.
    private func bucket(_ cell: Int) -> Int { Int(truncatingIfNeeded: (UInt64(cell) &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - bucketBits)) }

    package mutating func insert(_ i: Int) {
        let b = bucket(cellOf[i])
        next[i] = first[b]
        first[b] = Int32(i)
    }

    /// The (row, column) of the cell a point lies in.
    package func cell(lat: Int, lng: Int) -> (row: Int, column: Int) {
        (min(max((lat - south) / cellSize, 0), rows - 1), min(max((lng - west) / cellSize, 0), columns - 1))
    }

    /// The indexes of the points in a cell, in index order; none outside the grid.
    package func points(row: Int, column: Int) -> some Sequence<Int32> {
        let cell = row * columns + column, next = next, cellOf = cellOf
        let start = (0..<rows).contains(row) && (0..<columns).contains(column) ? first[bucket(cell)] : -1
        return sequence(state: start) { i -> Int32? in
            while i >= 0 {
                let j = i
                i = next[Int(j)]
                if cellOf[Int(j)] == cell { return j }
            }
            return nil
        }
    }

    /// The point nearest to (lat, lng) by `distance` (of a point's index), closer than `within`,
    /// among those in the cells up to one row and `columns` columns away; ties to the smaller index.
    package func nearest(lat: Int, lng: Int, columns reach: Int = 1, within: Double, distance: (Int) -> Double) -> (index: Int, distance: Double)? {
        let c = cell(lat: lat, lng: lng)
        var best: (index: Int, distance: Double)?
        for row in max(0, c.row - 1)...min(rows - 1, c.row + 1) { for column in max(0, c.column - reach)...min(columns - 1, c.column + reach) {
            for j in points(row: row, column: column).lazy.map(Int.init) {
                let d = distance(j)
                if d < within, d < best?.distance ?? .infinity || (d == best!.distance && j < best!.index) { best = (j, d) }
            }
        } }
        return best
    }
}
