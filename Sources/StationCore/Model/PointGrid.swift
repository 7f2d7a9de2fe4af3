/// Points of Japan (micro-degrees) in fixed square cells over its bounding box, for
/// the searches that look at a point's neighbours cell by cell (lint's nearest
/// stations, ingest's prefecture from the nearest station). A cell is found by
/// arithmetic, not hashing, and its points are one slice of a flat array.
package struct PointGrid: Sendable {
    package let cellSize: Int
    let south = 20_000_000, west = 122_000_000
    let rows: Int, columns: Int
    /// Cell k's points are members[starts[k] ..< starts[k + 1]], in the order given.
    let starts: [Int32]
    let members: [Int32]

    /// `points` are (lat, lng) in micro-degrees; their indexes are what the cells hold.
    /// A point outside Japan's box is kept in the edge cell nearest to it.
    package init(_ points: [(lat: Int, lng: Int)], cellSize: Int) {
        self.cellSize = cellSize
        let rows = (46_000_000 - 20_000_000) / cellSize + 1, columns = (154_000_000 - 122_000_000) / cellSize + 1
        self.rows = rows
        self.columns = columns
        var counts = [Int32](repeating: 0, count: rows * columns + 1)
        let cells = points.map { Self.index(row: ($0.lat - 20_000_000) / cellSize, column: ($0.lng - 122_000_000) / cellSize, rows: rows, columns: columns) }
        for c in cells { counts[c + 1] += 1 }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var next = counts, members = [Int32](repeating: 0, count: points.count)
        for (i, c) in cells.enumerated() {
            members[Int(next[c])] = Int32(i)
            next[c] += 1
        }
        starts = counts
        self.members = members
    }

    static func index(row: Int, column: Int, rows: Int, columns: Int) -> Int {
        min(max(row, 0), rows - 1) * columns + min(max(column, 0), columns - 1)
    }

    /// The (row, column) of the cell a point lies in.
    package func cell(lat: Int, lng: Int) -> (row: Int, column: Int) {
        (min(max((lat - south) / cellSize, 0), rows - 1), min(max((lng - west) / cellSize, 0), columns - 1))
    }

    /// The indexes of the points in a cell; none outside the grid.
    package func points(row: Int, column: Int) -> ArraySlice<Int32> {
        guard (0..<rows).contains(row), (0..<columns).contains(column) else { return [] }
        let k = row * columns + column
        return members[Int(starts[k])..<Int(starts[k + 1])]
    }
}
