import Foundation
import StationIO
import StationModel
import XCTest

// A rough stand-in for Ingest's national network, built straight from the
// repository's raw/ekidata so this stage can be tested on its own:
// one station per (station_g_cd, operator, Shinkansen or not), live when any
// of its rows has e_status 0. About 9,500 live stations.
enum NationalData {
    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static var ekidata: URL { packageRoot.appendingPathComponent("raw/ekidata") }

    nonisolated(unsafe) private static var cached: RailNetwork?

    static func network() throws -> RailNetwork {
        if let cached { return cached }
        let dir = ekidata
        var problems = DiagnosticCollector()
        var network = RailNetwork()

        let companies = try CSVReader.read(path: dir.appendingPathComponent("company.csv").path)
        let companyID = companies.column("company_cd"), companyType = companies.column("company_type")
        for r in companies.records {
            guard let id = companies.int(r, companyID, &problems) else { continue }
            let t = (companies.optionalInt(r, companyType, &problems) ?? nil) ?? 0
            network.operators.append(Operator(id: id, name: companies.string(r, "company_name"),
                                              type: (1...3).contains(t) ? t : OperatorType.thirdSectorOrOther))
        }

        let lineTable = try CSVReader.read(path: dir.appendingPathComponent("line.csv").path)
        let lineID = lineTable.column("line_cd"), lineCompany = lineTable.column("company_cd")
        var lineOperator: [Int: Int] = [:], lineIsShinkansen: [Int: Bool] = [:]
        for r in lineTable.records {
            guard let id = lineTable.int(r, lineID, &problems), let o = lineTable.int(r, lineCompany, &problems) else { continue }
            let name = lineTable.string(r, "line_name")
            let shinkansen = name.contains("新幹線")
            lineOperator[id] = o; lineIsShinkansen[id] = shinkansen
            network.lines.append(Line(id: id, name: name, operatorID: o, enabled: lineTable.string(r, "e_status") == "0",
                                      type: shinkansen ? LineType.shinkansen : nil))
        }

        struct Key: Hashable { var group: Int; var operatorID: Int; var shinkansen: Bool }
        var stationOf: [Key: Int] = [:]
        var index: [Int: Int] = [:]
        var memberships = Set<StationLine>()
        var seenPair = Set<[Int]>()
        let t = try CSVReader.read(path: dir.appendingPathComponent("station.csv").path)
        let code = t.column("station_cd"), group = t.column("station_g_cd"), lineCode = t.column("line_cd")
        let lat = t.column("lat"), lon = t.column("lon"), pref = t.column("pref_cd")
        for r in t.records {
            guard let cd = t.int(r, code, &problems), let g = t.int(r, group, &problems),
                  let line = t.int(r, lineCode, &problems), let la = t.microDegrees(r, lat, &problems),
                  let lo = t.microDegrees(r, lon, &problems) else { continue }
            let key = Key(group: g, operatorID: lineOperator[line] ?? 0, shinkansen: lineIsShinkansen[line] ?? false)
            let live = t.string(r, "e_status") == "0"
            let id: Int
            if let existing = stationOf[key] {
                id = existing
                if live { network.stations[index[id]!].enabled = true }
            } else {
                id = cd
                stationOf[key] = id
                index[id] = network.stations.count
                network.stations.append(Station(id: id, name: t.string(r, "station_name"), pref: (t.optionalInt(r, pref, &problems) ?? nil) ?? 13,
                                                address: t.string(r, "address"), lat: la, lng: lo, operatorID: key.operatorID, enabled: live))
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
