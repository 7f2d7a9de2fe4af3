/// Points of Japan (micro-degrees) in fixed square cells over its bounding box, for
/// the searches that look at a point's neighbours cell by cell (lint's nearest
/// stations, ingest's prefecture from the nearest station, the spacing of hand weights).
/// A cell is found by arithmetic, not hashing, and its points are a chain through `next`,
/// so points can also be put in one at a time as a walk takes them.
package struct PointGrid: Sendable {
    package let cellSize: Int
    let south = 20_000_000, west = 122_000_000
    let rows: Int, columns: Int
    /// Each point's cell; a cell's points are first[cell], next[that], ... until -1.
    private let cellOf: [Int32]
    private var first: [Int32], next: [Int32]

    /// `points` are (lat, lng) in micro-degrees; their indexes are what the cells hold, every one
    /// of them, or with `empty` none until `insert`ed. A point outside Japan's box is kept in the
    /// edge cell nearest to it.
    package init(_ points: [(lat: Int, lng: Int)], cellSize: Int, empty: Bool = false) {
        self.cellSize = cellSize
        let rows = (46_000_000 - 20_000_000) / cellSize + 1, columns = (154_000_000 - 122_000_000) / cellSize + 1
        self.rows = rows
        self.columns = columns
        cellOf = points.map { Int32(Self.index(row: ($0.lat - 20_000_000) / cellSize, column: ($0.lng - 122_000_000) / cellSize, rows: rows, columns: columns)) }
        first = [Int32](repeating: -1, count: rows * columns)
        next = [Int32](repeating: -1, count: points.count)
        // Last first: a cell gives its points in index order.
        if !empty { for i in points.indices.reversed() { insert(i) } }
    }

    static func index(row: Int, column: Int, rows: Int, columns: Int) -> Int {
        min(max(row, 0), rows - 1) * columns + min(max(column, 0), columns - 1)
    }

    package mutating func insert(_ i: Int) {
        next[i] = first[Int(cellOf[i])]
        first[Int(cellOf[i])] = Int32(i)
    }

    /// The (row, column) of the cell a point lies in.
    package func cell(lat: Int, lng: Int) -> (row: Int, column: Int) {
        (min(max((lat - south) / cellSize, 0), rows - 1), min(max((lng - west) / cellSize, 0), columns - 1))
    }

    /// The indexes of the points in a cell; none outside the grid.
    package func points(row: Int, column: Int) -> some Sequence<Int32> {
        let next = next
        return sequence(state: (0..<rows).contains(row) && (0..<columns).contains(column) ? first[row * columns + column] : -1) { i -> Int32? in
            guard i >= 0 else { return nil }
            defer { i = next[Int(i)] }
            return i
        }
    }

    /// The point nearest to (lat, lng) by `distance` (of a point's index), closer than `within`,
    /// among those in the cells up to one row and `columns` columns away; ties to the smaller index.
    package func nearest(lat: Int, lng: Int, columns reach: Int = 1, within: Double, distance: (Int) -> Double) -> (index: Int, distance: Double)? {
        let c = cell(lat: lat, lng: lng)
        var best: (index: Int, distance: Double)?
        for row in max(0, c.row - 1)...min(rows - 1, c.row + 1) { for column in max(0, c.column - reach)...min(columns - 1, c.column + reach) {
            var j = Int(first[row * columns + column])
            while j >= 0 {
                let d = distance(j)
                if d < within, d < best?.distance ?? .infinity || (d == best!.distance && j < best!.index) { best = (j, d) }
                j = Int(next[j])
            }
        } }
        return best
    }
}
