// The network's rows into the bundle's tables, in the order given, many rows
// per step (SQLiteDatabase.insertRows).

extension SQLiteDatabase {
    public func insert(_ operators: [Operator]) throws {
        try insertRows(into: "operators", columns: ["o_id", "operator", "type", "enabled"], count: operators.count) { i, row in
            let o = operators[i]
            try row.bind(o.id, at: 1); try row.bind(o.name, at: 2); try row.bind(o.type, at: 3); try row.bind(o.enabled, at: 4)
        }
    }

    public func insert(_ lines: [Line]) throws {
        try insertRows(into: "lines", columns: ["l_id", "line", "o_id", "enabled", "l_type"], count: lines.count) { i, row in
            let l = lines[i]
            try row.bind(l.id, at: 1); try row.bind(l.name, at: 2); try row.bind(l.operatorID, at: 3)
            try row.bind(l.enabled, at: 4); try row.bind(l.type, at: 5)
        }
    }

    /// Stations with their weights (the stations table's last column).
    /// `weights[i]` is the weight of `stations[i]`.
    public func insert(_ stations: [Station], weights: [Int]) throws {
        precondition(weights.count == stations.count, "one weight per station")
        let columns = ["s_id", "station", "yomi", "wiki", "pref", "address", "lat", "lng", "o_id", "enabled", "weight"]
        try insertRows(into: "stations", columns: columns, count: stations.count) { i, row in
            let s = stations[i]
            try row.bind(s.id, at: 1); try row.bind(s.name, at: 2); try row.bind(s.yomi, at: 3); try row.bind(s.wiki, at: 4)
            try row.bind(s.pref, at: 5); try row.bind(s.address, at: 6); try row.bind(s.lat, at: 7); try row.bind(s.lng, at: 8)
            try row.bind(s.operatorID, at: 9); try row.bind(s.enabled, at: 10); try row.bind(weights[i], at: 11)
        }
    }

    public func insert(_ stationLines: [StationLine]) throws {
        try insertRows(into: "stations_lines", columns: ["l_id", "s_id", "s_sort"], count: stationLines.count) { i, row in
            let x = stationLines[i]
            try row.bind(x.lineID, at: 1); try row.bind(x.stationID, at: 2); try row.bind(x.sort, at: 3)
        }
    }
}
