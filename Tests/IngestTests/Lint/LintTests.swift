import Foundation
import Ingest
import StationCore
import TestSupport
import XCTest

/// A small native master around Tokyo, clean: six stations on two lines, a
/// seventh far north, hand weights and a fix. Each test plants one odd value.
struct Master {
    var operators = [["o_id", "operator", "type", "enabled"], ["1", "JR東日本", "1", "1"], ["2", "東京メトロ", "2", "1"]]
    var lines = [["l_id", "line", "o_id", "enabled", "l_type"], ["10", "山手線", "1", "1", "2"], ["20", "丸ノ内線", "2", "1", "3"]]
    var stations = [
        ["s_id", "station", "yomi", "wiki", "pref", "address", "lat", "lng", "o_id", "enabled"],
        ["1", "東京", "とうきょう", "東京駅", "13", "東京都千代田区丸の内一丁目", "35.681391", "139.766103", "1", "1"],
        ["2", "神田", "かんだ", "", "13", "東京都千代田区鍛冶町二丁目", "35.691173", "139.770641", "1", "1"],
        ["3", "秋葉原", "あきはばら", "", "13", "東京都千代田区外神田一丁目", "35.698683", "139.774219", "1", "1"],
        ["4", "御徒町", "おかちまち", "", "13", "東京都台東区上野五丁目", "35.707438", "139.774632", "1", "1"],
        ["5", "大手町", "おおてまち", "", "13", "東京都千代田区大手町", "35.686147", "139.766103", "2", "1"],
        ["6", "淡路町", "あわじちょう", "", "13", "東京都千代田区神田小川町", "35.695259", "139.767208", "2", "1"],
        ["7", "札幌", "さっぽろ", "", "1", "北海道札幌市", "43.068661", "141.350755", "1", "0"],
    ]
    var stationLines = [["l_id", "s_id", "s_sort"], ["10", "1", "1"], ["10", "2", "2"], ["10", "3", "3"], ["10", "4", "4"],
                        ["20", "5", "1"], ["20", "6", "2"]]
    var weights = [["s_id", "weight", "note"], ["1", "3", "Shinkansen"]]
    var fixes = [["action", "table", "match", "field", "value", "note"], ["set", "stations", "s_id=2", "wiki", "神田駅 (東京都)", "article"]]

    /// Writes the master into a new folder and returns its path.
    func write() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-\(UUID().uuidString)").path
        try Files.createFolder(folder)
        func csv(_ rows: [[String]]) -> [UInt8] {
            var out: [UInt8] = []
            for r in rows { CSVWriter.append(r, to: &out) }
            return out
        }
        for (name, rows) in [("operators.csv", operators), ("lines.csv", lines), ("stations.csv", stations),
                             ("stations_lines.csv", stationLines), ("weights.csv", weights), ("fixes.csv", fixes)] {
            try Files.write(csv(rows), to: joinPath(folder, name))
        }
        return folder
    }

    func lint() async throws -> LintReport {
        let raw = try write()
        defer { Files.remove(raw) }
        return try await Lint.run(IngestOptions(rawFolder: raw, rawLabel: "raw", registryPath: raw + "/registry.csv"),
                                  handWeights: raw + "/weights.csv")
    }
}

final class LintRuleTests: XCTestCase {
    func findings(_ master: Master) async throws -> [String] {
        try await master.lint().findings.map { "\($0.location): [\($0.rule)]" }
    }

    func testCleanMasterHasNoFindings() async throws {
        let report = try await Master().lint()
        XCTAssertEqual(report.findings, [])
        XCTAssertEqual(report.count, 0)
        XCTAssertEqual(report.summary, "0 warnings")
        XCTAssertEqual(Set(report.byRule.keys), Set(LintRule.allCases.map(\.rawValue)))
    }

    func testOuterWhiteSpaceAndControlCharactersInText() async throws {
        var m = Master()
        m.stations[2][1] = "神田 "                     // a trailing space
        m.operators[2][1] = "\t東京メトロ"              // a leading tab
        m.stations[3][5] = "東京都千代田区\u{7}外神田"      // a control character
        m.fixes.append(["set", "lines", "l_id=20", "line", "丸ノ内線\u{3000}", "renamed"])
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, [
            "raw/fixes.csv:3: value [text]",
            "raw/operators.csv:3: operator [text]",
            "raw/stations.csv:3: station [text]",
            "raw/stations.csv:4: address [text]",
        ])
        // Quoted printably (shown(), printable()): the tab itself would not be seen.
        XCTAssertEqual(report.findings[1].message, "'\\u{9}東京メトロ' holds the control character U+0009; it is published as written")
        XCTAssertEqual(report.findings[2].message, "'神田 ' starts or ends with white space; it is published as written")
        XCTAssertTrue(report.findings[3].message.contains("U+0007"), report.findings[3].message)
    }

    func testReadingsHoldOnlyHiraganaAndReadingMarks() async throws {
        var m = Master()
        m.stations[1][2] = "とうきょう1"
        m.stations[2][2] = "カンダ"
        m.stations[3][2] = "あきはばら（でんきがい）"      // a sub-name in brackets: fine
        m.stations[4][2] = "おかち・まち\u{3000}ーヶ"        // a middle dot, an ideographic space, a long vowel, ヶ: fine
        m.stations[5][2] = ""                                   // live, and listed under no kana
        m.stations[7][2] = ""                                   // disabled: the apps list it nowhere anyway
        let findings = try await findings(m)
        XCTAssertEqual(findings, ["raw/stations.csv:2: yomi: [yomi]", "raw/stations.csv:3: yomi: [yomi]", "raw/stations.csv:6: yomi: [yomi]"])
        let report = try await m.lint()
        XCTAssertEqual(report.findings[0].message,
                       "'とうきょう1' holds '1' (U+0031); a reading is hiragana with ー, ・, brackets or an ideographic space")
        XCTAssertTrue(report.findings[1].message.contains("and 2 more"), report.findings[1].message)
    }

    func testUnknownCodesAreWarnings() async throws {
        var m = Master()
        m.operators[1][2] = "9"        // trolleybus: known
        m.operators[2][2] = "11"
        m.lines[1][4] = "42"
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, ["raw/lines.csv:2: l_type [code]", "raw/operators.csv:3: type [code]"])
        XCTAssertTrue(report.findings[1].message.hasPrefix("unknown operator type 11 (known: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)"), report.findings[1].message)
    }

    func testStationFarFromBothNeighboursOnALine() async throws {
        var m = Master()
        m.stations[3][6] = "36.698683"   // 秋葉原 a degree north: ~110 km from 神田 and 御徒町
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, ["raw/stations.csv:4: lat, lng [far]"])
        XCTAssertTrue(report.findings[0].message.hasPrefix("station 3 秋葉原 lies 112.0 km from 神田 and 110.2 km from 御徒町,"), report.findings[0].message)
        XCTAssertTrue(report.findings[0].message.hasSuffix("its neighbours on 山手線: a likely coordinate typo"), report.findings[0].message)

        // A line's end has one neighbour, and a long gap there is a real line's.
        var end = Master()
        end.stations[4][6] = "36.707438"
        let endFindings = try await findings(end)
        XCTAssertEqual(endFindings, [])
    }

    func testPrefectureNoneOfItsNearestStationsHas() async throws {
        var m = Master()
        m.stations[2][4] = "14"
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, ["raw/stations.csv:3: pref [pref]"])
        XCTAssertTrue(report.findings[0].message.hasPrefix("station 2 神田 has pref 14, none of its 5 nearest stations does: 淡路町 (13, "),
                      report.findings[0].message)
        // Near a border the neighbours differ: one of them in the station's own prefecture is enough.
        var border = m
        border.stations[5][4] = "14"
        let borderFindings = try await findings(border)
        XCTAssertEqual(borderFindings, [])
    }

    func testTwoLiveStationsOfOneLineWithOneName() async throws {
        var m = Master()
        m.stations[4][1] = "神田"
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, ["raw/stations.csv:5: station [same-name]"])
        XCTAssertEqual(report.findings[0].message, "station 4 has the name '神田' of station 2, also on 山手線")
        // A disabled one is no longer shown: no finding.
        m.stations[4][9] = "0"
        let disabled = try await findings(m)
        XCTAssertEqual(disabled, [])
    }

    func testHandWeightOnADisabledStation() async throws {
        var m = Master()
        m.weights.append(["7", "2", "Sapporo, closed for works"])
        let report = try await m.lint()
        XCTAssertEqual(report.findings.map { "\($0.location) [\($0.rule)]" }, ["raw/weights.csv:3: s_id [hand-weight]"])
        XCTAssertEqual(report.findings[0].message, "station 7 is disabled; its hand weight 2 is kept but not shown")
    }

    func testFixWhoseValueTheSourceAlreadyHolds() async throws {
        var m = Master()
        m.fixes.append(["set", "stations", "s_id=3", "yomi", "あきはばら", "reading"])
        m.fixes.append(["move", "stations", "s_id=4", "", "35.707438 139.774632", "platform"])
        m.fixes.append(["enable", "stations", "s_id=5", "", "", "reopened"])
        m.fixes.append(["disable", "stations", "s_id=7", "", "", "closed"])
        m.fixes.append(["set", "stations", "s_id=6", "yomi", "あわじまち", "a real change"])
        let findings = try await findings(m)
        XCTAssertEqual(findings, ["raw/fixes.csv:3: value: [fix]", "raw/fixes.csv:4: value: [fix]", "raw/fixes.csv:5: value: [fix]",
                                  "raw/fixes.csv:6: value: [fix]"])
    }

    func testLintChangesNothing() async throws {
        var m = Master()
        m.stations[2][1] = "神田 "
        let raw = try m.write()
        defer { Files.remove(raw) }
        let before = Files.names(in: raw).map { ($0, try? Files.read(joinPath(raw, $0))) }
        _ = try await Lint.run(IngestOptions(rawFolder: raw), handWeights: raw + "/weights.csv")
        let after = Files.names(in: raw).map { ($0, try? Files.read(joinPath(raw, $0))) }
        XCTAssertEqual(before.map(\.0), after.map(\.0), "no registry or other file is written")
        XCTAssertTrue(zip(before, after).allSatisfy { $0.1 == $1.1 })
    }
}

/// The rules on all of Japan: a few warnings on the data as given, and every
/// planted error found where it was planted.
final class NationalLintTests: XCTestCase {
    /// All of Japan (raw/ as ingest reads it) as a native master (stationdb synth --scale 1), and its network.
    func nationalMaster() async throws -> (folder: String, network: RailNetwork) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("lint-national-\(UUID().uuidString)").path
        let network = try await NationalNetwork.network()
        try Synth(national: network, config: SynthConfig(scale: 1)).writeNative(folder: folder + "/master")
        return (folder + "/master", network)
    }

    func lint(_ master: String) async throws -> LintReport {
        try await Lint.run(IngestOptions(rawFolder: master, rawLabel: "master", registryPath: master + "/../registry.csv"),
                           handWeights: master + "/weights.csv")
    }

    /// Rewrites one CSV file of the master through `edit` (rows without the header).
    func edit(_ path: String, _ change: (inout [[String]], [String]) -> Void) throws {
        let table = try CSVReader.read(path: path)
        var rows = table.records.map { table.fields($0) }
        change(&rows, table.header)
        var out: [UInt8] = []
        for r in [table.header] + rows { CSVWriter.append(r, to: &out) }
        try Files.write(out, to: path)
    }

    func testAsGivenAndWithPlantedErrors() async throws {
        let (master, network) = try await nationalMaster()
        defer { Files.remove(parentFolder(of: master)) }
        // The data as given is clean but for one kind of oddity: a station at a prefecture's edge
        // may have none of its nearest stations in its prefecture. No other rule fires, and these
        // are few: at most one station in 500 (the default raw/ has 3).
        let given = try await lint(master)
        let listed = given.findings.map(\.description).joined(separator: "\n")
        XCTAssertTrue(given.byRule.allSatisfy { $0.value == 0 || ["far", "pref"].contains($0.key) }, listed)
        XCTAssertLessThanOrEqual(given.findings.count, network.stations.count(where: \.enabled) / 500, listed)

        // Stations to plant errors on: by name, or an interior station of a line with close neighbours.
        let live = network.stations.filter(\.enabled)
        func id(_ name: String) -> Int { live.first { $0.name == name }!.id }
        let byID = Dictionary(uniqueKeysWithValues: network.stations.map { ($0.id, $0) })
        let firstLine = network.stationLines.filter { $0.lineID == network.stationLines[0].lineID }.map(\.stationID)
        let interior = network.lines.lazy.compactMap { line -> Int? in
            let members = network.stationLines.filter { $0.lineID == line.id }.map { byID[$0.stationID]! }
            guard members.count > 8 else { return nil }
            let (a, s, b) = (members[4], members[5], members[6])
            let near = { (x: Station, y: Station) in MicroDegrees.distanceMetres(lat1: x.lat, lng1: x.lng, lat2: y.lat, lng2: y.lng) < 10_000 }
            return s.enabled && near(a, s) && near(s, b) && s.pref == 13 ? s.id : nil
        }.first!
        let planted = (text: id("札幌"), yomi: id("京都"), far: interior, pref: id("渋谷"), sameName: firstLine[2],
                       disabled: id("大阪"), fix: id("名古屋"))
        // Rows of stations.csv are in s_id order, after the header.
        let order = network.stations.map(\.id)
        func line(_ id: Int) -> Int { order.firstIndex(of: id)! + 2 }

        try edit(master + "/stations.csv") { rows, header in
            let c = (name: header.firstIndex(of: "station")!, yomi: header.firstIndex(of: "yomi")!, pref: header.firstIndex(of: "pref")!,
                     lat: header.firstIndex(of: "lat")!, enabled: header.firstIndex(of: "enabled")!)
            func row(_ id: Int) -> Int { rows.firstIndex { $0[0] == String(id) }! }
            rows[row(planted.text)][c.name] += " "
            rows[row(planted.yomi)][c.yomi] = "キョウト"
            rows[row(planted.far)][c.lat] = MicroDegrees.format(MicroDegrees.parse(rows[row(planted.far)][c.lat])! + 1_000_000)
            rows[row(planted.pref)][c.pref] = "27"
            rows[row(planted.sameName)][c.name] = byID[firstLine[1]]!.name
            rows[row(planted.disabled)][c.enabled] = "0"
        }
        try edit(master + "/operators.csv") { rows, header in rows[4][header.firstIndex(of: "type")!] = "42" }
        try Files.write(Array("s_id,weight,note\n\(planted.disabled),4,closed now\n".utf8), to: master + "/weights.csv")
        try Files.write(Array("action,table,match,field,value,note\nset,stations,s_id=\(planted.fix),pref,\(byID[planted.fix]!.pref),already\n".utf8),
                        to: master + "/fixes.csv")

        let report = try await lint(master)
        let expected = ["text master/stations.csv:\(line(planted.text)): station", "yomi master/stations.csv:\(line(planted.yomi)): yomi",
                        "far master/stations.csv:\(line(planted.far)): lat, lng", "pref master/stations.csv:\(line(planted.pref)): pref",
                        "same-name master/stations.csv:\(line(planted.sameName)): station", "code master/operators.csv:6: type",
                        "hand-weight master/weights.csv:2: s_id", "fix master/fixes.csv:2: value"]
        let found = report.findings.map { "\($0.rule) \($0.location)" }
        for e in expected { XCTAssertTrue(found.contains(e), "not found: \(e)") }
        // Nothing else but what the moved station does to its new neighbourhood's prefectures.
        let givenFound = given.findings.map { "\($0.rule) \($0.location)" }
        let extra = found.filter { !expected.contains($0) && !givenFound.contains($0) }
        XCTAssertTrue(extra.allSatisfy { $0 == "pref master/stations.csv:\(line(planted.far)): pref" }, extra.joined(separator: "\n"))
        XCTAssertTrue(givenFound.allSatisfy(found.contains), "every warning of the data as given is still found")
    }
}
