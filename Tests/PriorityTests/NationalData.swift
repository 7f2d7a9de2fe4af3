import Foundation
import StationModel
import XCTest

// A rough stand-in for Ingest's national network, built straight from
// ../shared/data/ekidata so this stage can be tested and tuned before Ingest
// exists: one station per (station_g_cd, operator, Shinkansen or not), live
// when any of its rows has e_status 0. About 9,500 live stations.
enum NationalData {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var ekidata: URL { packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data/ekidata") }

    nonisolated(unsafe) private static var cached: RailNetwork?

    static func network() throws -> RailNetwork {
        if let cached { return cached }
        let dir = ekidata
        guard FileManager.default.fileExists(atPath: dir.appendingPathComponent("station.csv").path) else {
            throw XCTSkip("../shared/data/ekidata absent")
        }
        var problems = DiagnosticCollector()
        var network = RailNetwork()

        let companies = try CSVReader.read(path: dir.appendingPathComponent("company.csv").path)
        for row in companies.rows() {
            guard let id = row.int("company_cd", &problems) else { continue }
            let t = row.optionalInt("company_type", &problems) ?? 0
            network.operators.append(Operator(id: id, name: row.string("company_name"), type: (1...3).contains(t) ? t : 5))
        }

        let lineTable = try CSVReader.read(path: dir.appendingPathComponent("line.csv").path)
        var lineOperator: [Int: Int] = [:], lineIsShinkansen: [Int: Bool] = [:]
        for row in lineTable.rows() {
            guard let id = row.int("line_cd", &problems), let o = row.int("company_cd", &problems) else { continue }
            let name = row.string("line_name")
            let shinkansen = name.contains("新幹線")
            lineOperator[id] = o; lineIsShinkansen[id] = shinkansen
            network.lines.append(Line(id: id, name: name, operatorID: o, enabled: row.string("e_status") == "0",
                                      type: shinkansen ? Line.shinkansenType : nil))
        }

        struct Key: Hashable { var group: Int; var operatorID: Int; var shinkansen: Bool }
        var stationOf: [Key: Int] = [:]
        var index: [Int: Int] = [:]
        var memberships = Set<StationLine>()
        var seenPair = Set<[Int]>()
        let stationTable = try CSVReader.read(path: dir.appendingPathComponent("station.csv").path)
        for row in stationTable.rows() {
            guard let cd = row.int("station_cd", &problems), let g = row.int("station_g_cd", &problems),
                  let line = row.int("line_cd", &problems), let lat = row.microDegrees("lat", &problems),
                  let lng = row.microDegrees("lon", &problems) else { continue }
            let key = Key(group: g, operatorID: lineOperator[line] ?? 0, shinkansen: lineIsShinkansen[line] ?? false)
            let live = row.string("e_status") == "0"
            let id: Int
            if let existing = stationOf[key] {
                id = existing
                if live { network.stations[index[id]!].enabled = true }
            } else {
                id = cd
                stationOf[key] = id
                index[id] = network.stations.count
                network.stations.append(Station(id: id, name: row.string("station_name"), pref: row.optionalInt("pref_cd", &problems) ?? 13,
                                                address: row.string("address"), lat: lat, lng: lng, operatorID: key.operatorID, enabled: live))
            }
            if seenPair.insert([line, id]).inserted { memberships.insert(StationLine(lineID: line, stationID: id, sort: cd)) }
        }
        try problems.check()
        network.stationLines = Array(memberships)
        network.sortByKey()
        cached = network
        return network
    }
}
