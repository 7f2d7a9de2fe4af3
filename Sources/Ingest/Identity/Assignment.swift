/// One-to-one pairs of stations and registered rows with the greatest total score: each
/// group of stations and rows that candidate pairs connect is solved on its own, exactly
/// (the Hungarian method), so that no station takes a row first and leaves its better
/// owner without one. A row that two stations left free score within `margin` of each other
/// is proven for neither: it stays unpaired and is returned with those stations, for the
/// maintainer to decide. (Two rows for one station are no such doubt: the better takes it,
/// and the other may merge into it.)
enum Assignment {
    /// Past this many stations or rows a group is paired best first instead (never seen in
    /// Japan's data, where a group is the stations of one place).
    static let exactLimit = 400

    static func best(_ edges: [(station: Int, row: Int, score: Double)], margin: Double)
        -> (pairs: [(station: Int, row: Int)], contested: [Int: [Int]]) {
        guard !edges.isEmpty else { return ([], [:]) }
        // Groups: stations and rows joined by a pair.
        var parent: [Int: Int] = [:]
        func node(station: Int) -> Int { station * 2 }
        func node(row: Int) -> Int { row * 2 + 1 }
        func find(_ x: Int) -> Int {
            guard parent[x] != nil else { parent[x] = x; return x }
            var root = x
            while parent[root]! != root { root = parent[root]! }
            var y = x
            while parent[y]! != root { (parent[y], y) = (root, parent[y]!) }
            return root
        }
        for e in edges {
            let a = find(node(station: e.station)), b = find(node(row: e.row))
            if a != b { parent[b] = a }
        }
        var groups: [Int: [Int]] = [:]
        for (k, e) in edges.enumerated() { groups[find(node(station: e.station)), default: []].append(k) }

        var pairs: [(station: Int, row: Int, score: Double)] = []
        for root in groups.keys.sorted() {
            let group = groups[root]!.map { edges[$0] }
            let stations = Array(Set(group.map(\.station))).sorted(), rows = Array(Set(group.map(\.row))).sorted()
            if stations.count == 1 || rows.count == 1 || max(stations.count, rows.count) > exactLimit {
                pairs += bestFirst(group)
            } else {
                pairs += hungarian(group, stations: stations, rows: rows)
            }
        }
        // A free station that scores within the margin of a pair's row.
        let pairedStations = Set(pairs.map(\.station))
        var byRow: [Int: [(station: Int, score: Double)]] = [:]
        for e in edges { byRow[e.row, default: []].append((e.station, e.score)) }
        var made: [(station: Int, row: Int)] = [], contested: [Int: [Int]] = [:]
        for p in pairs.sorted(by: { ($0.station, $0.row) < ($1.station, $1.row) }) {
            let rivals = byRow[p.row]!.filter { $0.station != p.station && !pairedStations.contains($0.station) && $0.score > p.score - margin }
            if rivals.isEmpty { made.append((p.station, p.row)) } else { contested[p.row] = [p.station] + rivals.map(\.station) }
        }
        return (made, contested)
    }

    /// The best pairs first (then by station and row), each side once.
    static func bestFirst(_ edges: [(station: Int, row: Int, score: Double)]) -> [(station: Int, row: Int, score: Double)] {
        var doneStations = Set<Int>(), doneRows = Set<Int>(), out: [(station: Int, row: Int, score: Double)] = []
        for e in edges.sorted(by: { ($1.score, $0.station, $0.row) < ($0.score, $1.station, $1.row) })
        where !doneStations.contains(e.station) && !doneRows.contains(e.row) {
            doneStations.insert(e.station)
            doneRows.insert(e.row)
            out.append(e)
        }
        return out
    }

    /// The pairs with the greatest total score: the Hungarian method on costs of minus the
    /// score, with a column per station that stands for "unpaired" at cost 0.
    static func hungarian(_ edges: [(station: Int, row: Int, score: Double)], stations: [Int], rows: [Int]) -> [(station: Int, row: Int, score: Double)] {
        let n = stations.count, m = rows.count + stations.count
        let stationIndex = Dictionary(uniqueKeysWithValues: stations.enumerated().map { ($1, $0 + 1) })
        let rowIndex = Dictionary(uniqueKeysWithValues: rows.enumerated().map { ($1, $0 + 1) })
        var cost = [[Double]](repeating: [Double](repeating: 0, count: m + 1), count: n + 1)
        var score: [Int: Double] = [:]
        for e in edges {
            let i = stationIndex[e.station]!, j = rowIndex[e.row]!
            cost[i][j] = -e.score
            score[i * (m + 1) + j] = e.score
        }
        var u = [Double](repeating: 0, count: n + 1), v = [Double](repeating: 0, count: m + 1)
        var p = [Int](repeating: 0, count: m + 1), way = [Int](repeating: 0, count: m + 1)
        for i in 1...n {
            p[0] = i
            var j0 = 0
            var minv = [Double](repeating: .infinity, count: m + 1), used = [Bool](repeating: false, count: m + 1)
            repeat {
                used[j0] = true
                let i0 = p[j0]
                var delta = Double.infinity, j1 = 0
                for j in 1...m where !used[j] {
                    let cur = cost[i0][j] - u[i0] - v[j]
                    if cur < minv[j] { minv[j] = cur; way[j] = j0 }
                    if minv[j] < delta { delta = minv[j]; j1 = j }
                }
                for j in 0...m {
                    if used[j] { u[p[j]] += delta; v[j] -= delta } else { minv[j] -= delta }
                }
                j0 = j1
            } while p[j0] != 0
            repeat {
                let j1 = way[j0]
                p[j0] = p[j1]
                j0 = j1
            } while j0 != 0
        }
        var out: [(station: Int, row: Int, score: Double)] = []
        for j in 1...rows.count where p[j] != 0 {
            if let s = score[p[j] * (m + 1) + j] { out.append((stations[p[j] - 1], rows[j - 1], s)) }
        }
        return out
    }
}
