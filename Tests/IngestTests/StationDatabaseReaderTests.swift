import Foundation
import XCTest
import Ingest
import StationCore
import TestSupport

final class StationDatabaseReaderTests: XCTestCase {
    // Rows as the upstream writes them (v20260529): 東京 on JR Central's and JR East's
    // Shinkansen, JR East's conventional lines and Tokyo Metro's; a closed 仁山; a line whose
    // company company.csv does not list yet (NULL); NULL for every missing value.
    static let company = """
        code,rail_code,name,name_kana,name_formal,name_short,company_url,type,closed
        1,11,JR北海道,ジェイアールホッカイドウ,北海道旅客鉄道株式会社,JR北海道,http://www.jrhokkaido.co.jp/,1,0
        2,11,JR東日本,ジェイアールヒガシニホン,東日本旅客鉄道株式会社,JR東日本,http://www.jreast.co.jp/,1,0
        3,11,JR東海,ジェイアールトウカイ,東海旅客鉄道株式会社,JR東海,http://jr-central.co.jp/,1,0
        18,99,東京メトロ,トウキョウメトロ,東京地下鉄株式会社,東京メトロ,NULL,2,0

        """
    static let line = """
        code,id,name,name_kana,name_formal,station_size,company_code,color,symbol,closed,closed_date
        1002,585,東海道新幹線,とうかいどうしんかんせん,NULL,17,3,#0000FF,NULL,0,NULL
        1004,588,東北新幹線,とうほくしんかんせん,NULL,23,2,#008000,NULL,0,NULL
        11101,1,JR函館本線(函館～長万部),じぇいあーるはこだてほんせん,NULL,2,1,NULL,NULL,0,NULL
        11302,25,JR山手線,じぇいあーるやまのてせん,NULL,30,2,#80C241,JY,0,NULL
        28002,403,東京メトロ丸ノ内線,とうきょうめとろまるのうちせん,NULL,25,18,NULL,M,0,NULL
        99344,631,宇都宮芳賀ライトレール線,うつのみやはがらいとれーるせん,NULL,1,NULL,NULL,NULL,0,NULL

        """
    static let station = """
        code,id,name,original_name,name_kana,lat,lng,prefecture,postal_code,address,closed,open_date,closed_date,attr
        100201,1258,東京,東京,とうきょう,35.681391,139.766103,13,100-0005,東京都千代田区丸の内一丁目,0,1914-12-20,NULL,heat
        1110101,1,函館,函館,はこだて,41.773709,140.726413,1,040-0063,北海道函館市若松町１２-１３,0,1902-12-10,NULL,eco
        1110107,7,仁山,仁山,にやま,41.937170,140.618734,1,NULL,NULL,1,NULL,2026-03-14,unknown
        9934401,9290,宇都宮駅東口,宇都宮駅東口,うつのみやえきひがしぐち,36.558886,139.901818,9,321-0965,宇都宮市川向町,0,NULL,NULL,cool

        """
    static let register = """
        station_code,line_code,index,numbering
        100201,1002,1,NULL
        100201,1004,1,NULL
        100201,11302,24,JY01
        100201,28002,9,M17
        1110101,11101,1,H75
        1110107,11101,7,NULL
        9934401,99344,1,NULL

        """
    static var files: [String: String] {
        ["company.csv": company, "line.csv": line, "station.csv": station, "register.csv": register]
    }

    func read(_ files: [String: String] = files) throws -> SourceNetwork {
        try StationDatabaseReader.read(folder: try makeSourceFolder(self, files), label: "sd")
    }

    func errors(_ files: [String: String], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let folder = try makeSourceFolder(self, files)
        return inputErrorMessages(file: file, line: line) { try StationDatabaseReader.read(folder: folder, label: "sd") }
    }

    func replacing(_ name: String, _ old: String, _ new: String) -> [String: String] {
        var f = Self.files
        XCTAssertTrue(f[name]!.contains(old), "fixture \(name) lacks \(old)")
        f[name] = f[name]!.replacingOccurrences(of: old, with: new)
        return f
    }

    // MARK: mapping

    func testOperatorsTakeTheirTypeFromCompanyType() throws {
        let n = try read()
        XCTAssertEqual(n.kind, .stationDatabase)
        XCTAssertEqual(n.operators.map(\.key), ["station_database:company:1", "station_database:company:18", "station_database:company:2",
                                                "station_database:company:3", "station_database:line-operator:631"])
        XCTAssertEqual(n.operators.map(\.name), ["JR北海道", "東京メトロ", "JR東日本", "JR東海", "宇都宮芳賀ライトレール線"])
        XCTAssertEqual(n.operators.map(\.type), [1, 2, 1, 1, 5])
        XCTAssertEqual(n.operators[0].origin, SourceLocation(file: "sd/company.csv", line: 2))
        // The line with no company: an operator of its own, and a warning at its company_code.
        XCTAssertEqual(n.warnings.map(\.location), [SourceLocation(file: "sd/line.csv", line: 7, field: "company_code")])
    }

    func testLinesAreKeyedByTheUpstreamsIDAndShinkansenByName() throws {
        let n = try read()
        XCTAssertEqual(n.lines.map(\.key), ["station_database:line:1", "station_database:line:25", "station_database:line:403",
                                            "station_database:line:585", "station_database:line:588", "station_database:line:631"])
        XCTAssertEqual(n.lines.map(\.type), [nil, nil, nil, LineType.shinkansen, LineType.shinkansen, nil])
        XCTAssertTrue(n.lines.allSatisfy { $0.enabled == true && $0.otherNames.isEmpty })
        XCTAssertEqual(try read(replacing("line.csv", "JR山手線,じぇいあーるやまのてせん,NULL", "JR山手線,じぇいあーるやまのてせん,山手線")).lines[1].otherNames,
                       ["山手線"])
    }

    /// One upstream station per place becomes one bundle station per operator, the
    /// Shinkansen apart from the conventional one; readings, prefecture and address as given.
    func testOneStationPerOperatorAndShinkansen() throws {
        let n = try read()
        XCTAssertEqual(n.stations.map(\.key), [
            "station_database:station:1258:company:18",
            "station_database:station:1258:company:2",
            "station_database:station:1258:company:2:shinkansen",
            "station_database:station:1258:company:3:shinkansen",
            "station_database:station:1:company:1",
            "station_database:station:7:company:1",
            "station_database:station:9290:line-operator:631",
        ])
        XCTAssertEqual(n.stations[1], SourceStation(
            key: "station_database:station:1258:company:2", keyIsIdentity: true, name: "東京", yomi: "とうきょう", wiki: nil, pref: 13,
            address: "東京都千代田区丸の内一丁目", lat: 35_681_391, lng: 139_766_103, operatorKey: "station_database:company:2",
            enabled: true, origin: SourceLocation(file: "sd/station.csv", line: 2)))
        XCTAssertTrue(n.stations.allSatisfy { $0.matchKeys.isEmpty }, "a code is no key")
        // 仁山 is closed: disabled; its NULL address is missing, not the text NULL.
        XCTAssertEqual(n.stations[5].name, "仁山")
        XCTAssertEqual(n.stations[5].enabled, false)
        XCTAssertNil(n.stations[5].address)
        // register.csv's index is s_sort, on the line each row names.
        let rows = n.stationLines.map { "\($0.lineKey) \($0.stationKey) \($0.sort)" }
        XCTAssertTrue(rows.contains("station_database:line:25 station_database:station:1258:company:2 24"), "\(rows)")
        XCTAssertTrue(rows.contains("station_database:line:403 station_database:station:1258:company:18 9"), "\(rows)")
        XCTAssertEqual(n.stationLines.count, 7)
    }

    /// A station is live while it is open and so is one of its lines of that operator.
    func testAStationOfAClosedLineIsDisabled() throws {
        let n = try read(replacing("line.csv", "JR函館本線(函館～長万部),じぇいあーるはこだてほんせん,NULL,2,1,NULL,NULL,0,NULL",
                                   "JR函館本線(函館～長万部),じぇいあーるはこだてほんせん,NULL,2,1,NULL,NULL,1,2026-03-14"))
        XCTAssertEqual(n.stations.first { $0.name == "函館" }?.enabled, false)
        XCTAssertEqual(n.lines.first { $0.key == "station_database:line:1" }?.enabled, false)
    }

    func testTheNameIsOriginalNameNotTheDisambiguatedOne() throws {
        let n = try read(replacing("station.csv", "1110101,1,函館,函館", "1110101,1,函館(北海道),函館"))
        XCTAssertEqual(n.stations.first { $0.key == "station_database:station:1:company:1" }?.name, "函館")
    }

    // MARK: bad input, at file:line:field

    func testEveryProblemIsNamedAtItsLineAndField() throws {
        var files = replacing("station.csv", "35.681391,139.766103,13", "35.681391,139.766103,48")
        files["register.csv"] = files["register.csv"]! + "1110101,99999,2,NULL\n1110101,11101,3,NULL\n"
        files["line.csv"] = files["line.csv"]!.replacingOccurrences(of: "28002,403,", with: "28002,1,")
        XCTAssertEqual(try errors(files), [
            "sd/line.csv:6: id: expected a unique id, found 1 again",
            "sd/register.csv:10: station_code, line_code: expected each station once per line, found station 1110101 on line 11101 again (first on line 6)",
            "sd/station.csv:2: prefecture: expected 1..47, found 48",
        ])
    }

    /// A station on no line is an error; a register.csv row naming a station or a line the
    /// other files lack is the upstream's `extra` dataset (its releases before v20220711 list
    /// closed lines and stations there): not read, one warning for all at the first.
    func testAStationOnNoLineIsAnErrorAndTheExtraDatasetAWarning() throws {
        var files = Self.files
        files["register.csv"] = files["register.csv"]!.replacingOccurrences(of: "9934401,99344,1,NULL\n", with: "1234567,99344,1,NULL\n")
        XCTAssertEqual(try errors(files), ["sd/station.csv:5: code: expected station 9934401 on at least one line of sd/register.csv, found none"])
        var extra = Self.files
        extra["register.csv"] = extra["register.csv"]! + "1234567,99344,2,NULL\n7654321,99999,1,NULL\n"
        let n = try read(extra)
        XCTAssertEqual(n.warnings.map(\.location), try read().warnings.map(\.location) + [SourceLocation(file: "sd/register.csv", line: 9, field: "station_code")])
        XCTAssertEqual(n.stations.count, try read().stations.count, "nothing of it is read")
    }

    func testAMissingColumnNamesTheFile() throws {
        let messages = try errors(replacing("station.csv", "original_name,", "orig_name,"))
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages[0].hasPrefix("sd/station.csv:1"), messages[0])
    }

    // MARK: the default raw/

    /// raw/station_database, the upstream's release v20260529: what the apps need of it.
    func testTheDefaultRawGivesEveryLiveStationAReadingAndTheShinkansen() throws {
        let n = try StationDatabaseReader.read(folder: RepositoryData.stationDatabase, label: "raw/station_database")
        let live = n.stations.filter { $0.enabled == true }
        XCTAssertGreaterThan(live.count, 9_000)
        XCTAssertTrue(live.allSatisfy { !($0.yomi ?? "").isEmpty })
        XCTAssertTrue(n.stations.allSatisfy(\.matchKeys.isEmpty))
        let tokaido = try XCTUnwrap(n.lines.first { $0.name == "東海道新幹線" })
        XCTAssertEqual(tokaido.type, LineType.shinkansen)
        let onTokaido = Set(n.stationLines.filter { $0.lineKey == tokaido.key }.map(\.stationKey))
        XCTAssertEqual(live.filter { onTokaido.contains($0.key) }.count, 17)
        for closed in ["仁山", "二股"] {
            XCTAssertEqual(n.stations.filter { $0.name == closed }.map(\.enabled), [false], closed)
        }
    }
}
