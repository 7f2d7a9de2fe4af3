import Foundation
import XCTest
import Ingest
import StationCore

/// Merging, stable IDs through the registry, vanished stations and fixes,
/// on sources built in the test (the readers have their own tests).
final class PipelineTests: XCTestCase {
    let here = SourceLocation(file: "test", line: 1)

    func ekidataLike(stations: [(cd: Int, name: String, lat: Int, lng: Int)], label: String = "raw/ekidata") -> SourceNetwork {
        var n = SourceNetwork(kind: .ekidata, label: label)
        n.operators = [SourceOperator(key: "ekidata:company:2", name: "JR東日本", type: 1, enabled: true, origin: here)]
        n.lines = [SourceLine(key: "ekidata:line:11302", name: "山手線", operatorKey: "ekidata:company:2", enabled: true, type: nil, origin: here)]
        for (i, s) in stations.enumerated() {
            n.stations.append(SourceStation(key: "ekidata:station:2:\(s.cd)", matchKeys: ["code:\(s.cd)"], name: s.name, yomi: nil, wiki: nil, pref: 13,
                                            address: "東京都", lat: s.lat, lng: s.lng, operatorKey: "ekidata:company:2", enabled: true,
                                            origin: SourceLocation(file: "\(label)/station.csv", line: i + 2)))
            n.stationLines.append(SourceStationLine(lineKey: "ekidata:line:11302", stationKey: "ekidata:station:2:\(s.cd)", sort: i + 1, origin: here))
        }
        n.sortByKey()
        return n
    }

    let tokyo = (cd: 1130101, name: "東京", lat: 35_681_391, lng: 139_766_103)
    let kanda = (cd: 1130102, name: "神田", lat: 35_691_173, lng: 139_770_641)
    let akihabara = (cd: 1130103, name: "秋葉原", lat: 35_698_683, lng: 139_774_219)

    func testFirstRunNumbersInKeyOrderAndRecordsEveryKey() throws {
        let out = try IngestPipeline.assemble(sources: [ekidataLike(stations: [akihabara, tokyo, kanda])], registry: Registry())
        XCTAssertEqual(out.staging.network.stations.map(\.name), ["東京", "神田", "秋葉原"])
        XCTAssertEqual(out.staging.network.stations.map(\.id), [1, 2, 3])
        XCTAssertEqual(try out.registry.keys(.station, 1), ["code:1130101", "ekidata:station:2:1130101"])
        XCTAssertEqual(out.staging.network.stationLines.map(\.stationID), [3, 1, 2], "s_sort keeps the line's own order")
        XCTAssertEqual(out.report.newIDs[.station], 3)
    }

    func testReorderedSourceChangesNothing() throws {
        var shuffled = ekidataLike(stations: [tokyo, kanda, akihabara])
        shuffled.stations.reverse()
        shuffled.stationLines.reverse()
        let a = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda, akihabara])], registry: Registry())
        let b = try IngestPipeline.assemble(sources: [shuffled], registry: Registry())
        XCTAssertEqual(a.staging.network, b.staging.network)
        XCTAssertEqual(try a.registry, try b.registry)
    }

    func testVanishedStationKeepsItsIDDisabledAndComesBackUnderIt() throws {
        let first = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda, akihabara])], registry: Registry())
        let kandaID = first.staging.network.stations.first { $0.name == "神田" }!.id

        let second = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, akihabara])], registry: try first.registry)
        let gone = second.staging.network.stations.first { $0.id == kandaID }
        XCTAssertEqual(gone?.name, "神田")
        XCTAssertEqual(gone?.enabled, false)
        XCTAssertEqual(second.report.vanished[.station], 1)
        XCTAssertEqual(second.staging.network.stations.filter(\.enabled).map(\.id), first.staging.network.stations.filter { $0.name != "神田" }.map(\.id))

        // A new station never takes a vanished ID.
        let ueno = (cd: 1130104, name: "上野", lat: 35_713_768, lng: 139_777_254)
        let third = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, akihabara, ueno])], registry: try second.registry)
        XCTAssertEqual(third.staging.network.stations.first { $0.name == "上野" }?.id, 4)

        let fourth = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda, akihabara, ueno])], registry: try third.registry)
        let back = fourth.staging.network.stations.first { $0.name == "神田" }
        XCTAssertEqual(back?.id, kandaID)
        XCTAssertEqual(back?.enabled, true)
        XCTAssertEqual(fourth.staging.network.stations.count, 4)
    }

    func testRegistryRoundTripsThroughItsFile() throws {
        let out = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda])], registry: Registry())
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/registry.csv"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try AtomicFile.write(out.registryText, to: path)
        let loaded = try Registry.load(path: path)
        XCTAssertEqual(loaded, try out.registry)
        let again = try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda])], registry: loaded)
        XCTAssertEqual(again.staging.network, out.staging.network)
        XCTAssertEqual(again.registryText, try Files.read(path))

        // A maintainer's own quoting is kept: the same registry written another way is left alone.
        let requoted = String(decoding: out.registryText, as: UTF8.self).replacingOccurrences(of: ",東京,", with: ",\"東京\",")
        XCTAssertNotEqual(Array(requoted.utf8), out.registryText)
        let handWritten = try Registry.parse(CSVReader.parse(requoted, file: "registry.csv"))
        XCTAssertEqual(try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda])], registry: handWritten).registryText, Array(requoted.utf8))
        // A new station is a change.
        let ueno = (cd: 1130104, name: "上野", lat: 35_713_768, lng: 139_777_254)
        XCTAssertNotEqual(try IngestPipeline.assemble(sources: [ekidataLike(stations: [tokyo, kanda, ueno])], registry: handWritten).registryText, Array(requoted.utf8))
    }

    func testLaterSourceFillsGapsAndDisagreementsAreReported() throws {
        let eki = ekidataLike(stations: [tokyo, kanda])
        var n02 = SourceNetwork(kind: .n02, label: "raw/N02.xml")
        n02.operators = [SourceOperator(key: "n02:operator:東日本旅客鉄道", name: "東日本旅客鉄道", type: 1, enabled: nil, origin: here)]
        n02.lines = [SourceLine(key: "n02:line:東日本旅客鉄道:山手線", name: "山手線", operatorKey: "n02:operator:東日本旅客鉄道", enabled: nil, type: nil, origin: here)]
        n02.stations = [
            // Same station by code, 500 m off and spelled with 駅.
            SourceStation(key: "n02:station:東日本旅客鉄道:1130101", matchKeys: ["code:1130101"], name: "東京駅", yomi: "とうきょう", wiki: nil, pref: 13,
                          address: nil, lat: tokyo.lat + 4_500, lng: tokyo.lng, operatorKey: "n02:operator:東日本旅客鉄道", enabled: nil,
                          origin: SourceLocation(file: "raw/N02.xml", line: 40)),
            // No code: matched by name within a kilometre; prefecture disagrees.
            SourceStation(key: "n02:station:東日本旅客鉄道:神田", matchKeys: [], name: "神田", yomi: "かんだ", wiki: nil, pref: 14,
                          address: nil, lat: kanda.lat + 100, lng: kanda.lng, operatorKey: "n02:operator:東日本旅客鉄道", enabled: nil,
                          origin: SourceLocation(file: "raw/N02.xml", line: 50)),
            // Only in N02: added, with the prefecture of its nearest neighbour.
            SourceStation(key: "n02:station:東日本旅客鉄道:有楽町", matchKeys: ["code:1130224"], name: "有楽町", yomi: nil, wiki: nil, pref: nil,
                          address: nil, lat: 35_675_069, lng: 139_763_328, operatorKey: "n02:operator:東日本旅客鉄道", enabled: nil,
                          origin: SourceLocation(file: "raw/N02.xml", line: 60)),
        ]
        n02.stationLines = [
            SourceStationLine(lineKey: "n02:line:東日本旅客鉄道:山手線", stationKey: "n02:station:東日本旅客鉄道:1130101", sort: 1, origin: here),
            SourceStationLine(lineKey: "n02:line:東日本旅客鉄道:山手線", stationKey: "n02:station:東日本旅客鉄道:神田", sort: 2, origin: here),
            SourceStationLine(lineKey: "n02:line:東日本旅客鉄道:山手線", stationKey: "n02:station:東日本旅客鉄道:有楽町", sort: 3, origin: here),
        ]
        n02.sortByKey()
        let out = try IngestPipeline.assemble(sources: [eki, n02], registry: Registry())
        let n = out.staging.network
        XCTAssertEqual(n.operators.count, 1, "N02's operator joins ekidata's through the stations they share")
        XCTAssertEqual(n.lines.count, 1, "and its line joins the same line")
        XCTAssertEqual(n.stations.map(\.name), ["東京", "神田", "有楽町"])
        XCTAssertEqual(n.stations[0].yomi, "とうきょう", "a gap in the first source is filled by the later one")
        XCTAssertEqual(n.stations[0].lat, tokyo.lat, "the first source wins where both have a value")
        XCTAssertEqual(n.stations[1].pref, 13)
        XCTAssertEqual(n.stations[2].pref, 13, "N02 has no prefecture: the nearest station's is used")
        XCTAssertEqual(n.stationLines.count, 3)
        let kinds = out.report.disagreements.map { "\($0.stationID):\($0.kind.rawValue)" }
        XCTAssertEqual(kinds, ["1:coordinates", "2:prefecture"], "東京駅 and 東京 are the same name once normalised")
        XCTAssertEqual(out.report.disagreements[0].detail, "500 m apart")
        XCTAssertEqual(out.report.disagreements[0].otherFrom, SourceLocation(file: "raw/N02.xml", line: 40))
    }

    func testNameNormalisation() {
        XCTAssertEqual(StationName.normalized("霞ヶ関"), StationName.normalized("霞が関"))
        XCTAssertEqual(StationName.normalized("霞ケ関駅"), StationName.normalized("霞ヶ関"))
        XCTAssertEqual(StationName.normalized("ＪＲ東京"), StationName.normalized("JR東京"))
        XCTAssertNotEqual(StationName.normalized("新宿"), StationName.normalized("新宿三丁目"))
        XCTAssertEqual(StationName.normalized("駅"), "駅", "a name that is only 駅 keeps it")
    }

    func testNativeFixedIDsAreKeptAndNewIDsGoAboveThem() throws {
        var native = SourceNetwork(kind: .native, label: "raw")
        native.operators = [SourceOperator(key: "o:7", fixedID: 7, name: "東京地下鉄", type: 2, enabled: true, origin: here)]
        native.stations = [SourceStation(key: "s:500", fixedID: 500, name: "銀座", yomi: "ぎんざ", wiki: "", pref: 13, address: "", lat: 35_671_989,
                                         lng: 139_763_965, operatorKey: "o:7", enabled: true, origin: here)]
        let eki = ekidataLike(stations: [tokyo])
        let out = try IngestPipeline.assemble(sources: [native, eki], registry: Registry())
        XCTAssertEqual(out.staging.network.stations.map(\.id), [500, 501])
        XCTAssertEqual(out.staging.network.operators.map(\.id), [7, 8])
    }

    /// Sources' warnings reach the report; a code outside the known lists is published
    /// as given, and only one outside the valid range stops the run.
    func testUnknownCodesAreReportedAndKeptOnlyInvalidOnesRefused() throws {
        var native = SourceNetwork(kind: .native, label: "raw")
        native.operators = [SourceOperator(key: "o:7", fixedID: 7, name: "東京地下鉄", type: 11, enabled: true, origin: here)]
        native.lines = [SourceLine(key: "l:70", fixedID: 70, name: "銀座線", operatorKey: "o:7", enabled: true, type: 7, origin: here)]
        native.warnings = [Diagnostic(SourceLocation(file: "raw/operators.csv", line: 2, field: "type"), "unknown operator type 11")]
        let eki = ekidataLike(stations: [tokyo])
        let out = try IngestPipeline.assemble(sources: [native, eki], registry: Registry())
        XCTAssertEqual(out.report.warnings, native.warnings)
        XCTAssertEqual(out.staging.network.operators.first { $0.id == 7 }?.type, 11)
        XCTAssertEqual(out.staging.network.lines.first { $0.id == 70 }?.type, 7)

        native.operators[0].type = 100
        native.lines[0].type = 100
        XCTAssertEqual(inputErrorMessages { try IngestPipeline.assemble(sources: [native, eki], registry: Registry()) }, [
            "merged network: operator 7 東京地下鉄: type 100 is not an operator type code (1..99)",
            "merged network: line 70 銀座線: l_type 100 is not a line type code (0..99)",
        ])
    }

    /// The whole-network checks behind the staging file (which has no keys of its
    /// own to refuse a duplicate): every reference, and each ID and pair once.
    func testValidateNamesDuplicatesAndMissingReferences() {
        let network = RailNetwork(
            operators: [Operator(id: 1, name: "A", type: 1)],
            lines: [Line(id: 10, name: "L", operatorID: 1), Line(id: 11, name: "M", operatorID: 2)],
            stations: [Station(id: 5, name: "S", pref: 13, lat: 35_000_000, lng: 139_000_000, operatorID: 1),
                       Station(id: 5, name: "T", pref: 13, lat: 35_000_000, lng: 139_000_000, operatorID: 1)],
            stationLines: [StationLine(lineID: 10, stationID: 5, sort: 1), StationLine(lineID: 10, stationID: 5, sort: 2),
                           StationLine(lineID: 12, stationID: 5, sort: 1)])
        var problems = DiagnosticCollector()
        network.validate(&problems, place: "merged network")
        XCTAssertEqual(problems.diagnostics.map(\.location), Array(repeating: SourceLocation(file: "merged network"), count: 4))
        XCTAssertEqual(problems.diagnostics.map(\.message), [
            "line 11 M names operator 2, which does not exist",
            "station 5 T: s_id used twice; expected each once",
            "stations_lines row (l_id 10, s_id 5) appears twice; expected each station once per line",
            "stations_lines row (l_id 12, s_id 5) names line 12, which does not exist",
        ])
    }
}

final class FixesTests: XCTestCase {
    func network() -> RailNetwork {
        RailNetwork(operators: [Operator(id: 1, name: "JR東日本", type: 1)],
                    lines: [Line(id: 10, name: "山手線", operatorID: 1)],
                    stations: [Station(id: 1, name: "東京", pref: 13, lat: 35_681_391, lng: 139_766_103, operatorID: 1),
                               Station(id: 2, name: "神田", pref: 13, lat: 35_691_173, lng: 139_770_641, operatorID: 1),
                               Station(id: 3, name: "神田", pref: 13, lat: 35_691_000, lng: 139_770_000, operatorID: 1)],
                    stationLines: [])
    }

    func fixes(_ body: String) throws -> [DataFix] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ("action,table,match,field,value,note\n" + body).write(toFile: dir + "/fixes.csv", atomically: true, encoding: .utf8)
        let read = try DataFixes.read(path: dir + "/fixes.csv", label: "raw/fixes.csv")
        if !read.problems.isEmpty { throw StationError.badInput(read.problems) }
        return read.fixes
    }

    func testFixesApply() throws {
        var n = network()
        try DataFixes.apply(fixes("""
        set,stations,s_id=1,yomi,とうきょう,reading was missing
        move,stations,s_id=2,,35.691 139.7706,platform centre
        disable,stations,s_id=3,,,duplicate
        set,operators,o_id=1,operator,"JR東日本, East",quoted
        disable,lines,line=山手線,,,

        """), to: &n)
        XCTAssertEqual(n.stations[0].yomi, "とうきょう")
        XCTAssertEqual(n.stations[1].lat, 35_691_000)
        XCTAssertEqual(n.stations[1].lng, 139_770_600)
        XCTAssertEqual(n.stations[2].enabled, false)
        XCTAssertEqual(n.operators[0].name, "JR東日本, East")
        XCTAssertEqual(n.lines[0].enabled, false)
    }

    /// A name emptied by a fix was published (a station.csv row without one is an error).
    func testAFixNeverEmptiesAName() throws {
        var n = network()
        XCTAssertThrowsError(try DataFixes.apply(fixes("""
        set,stations,s_id=1,station,,
        set,operators,o_id=1,operator,,
        set,lines,l_id=10,line,,
        set,stations,s_id=2,yomi,,a reading may go

        """), to: &n)) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [2, 3, 4].map {
                SourceLocation(file: "raw/fixes.csv", line: $0, field: "value")
            })
        }
    }

    func testStaleAmbiguousAndMalformedFixesAreAllReported() throws {
        var n = network()
        XCTAssertThrowsError(try DataFixes.apply(fixes("""
        disable,stations,s_id=99,,,gone
        disable,stations,station=神田,,,which one?
        set,stations,s_id=1,pref,52,
        move,stations,s_id=1,,35.6,

        """), to: &n)) { error in
            XCTAssertEqual(error.station(.badInput)?.description, """
            error: raw/fixes.csv:2: match: s_id=99 matches no station (nearest: s_id 3 神田, s_id 2 神田, s_id 1 東京); correct the match (a mistyped ID or name?), or remove the fix if the sources no longer have that row
            error: raw/fixes.csv:3: match: ambiguous fix: station=神田 matches 2 rows of stations; add a column to the match
            error: raw/fixes.csv:4: value: expected 1..47 for pref, found 52
            error: raw/fixes.csv:5: value: expected 'lat lng' in decimal degrees, found '35.6'
            """)
        }
    }

    /// Two bad fixes (s_id 99999 on one line, field `yomii` on the next): the first run
    /// named only the second, the next run only the first. One run names both, in file
    /// order, and says what a fix that matches nothing is near.
    func testEveryBadFixIsListedInFileOrderInOneRun() async throws {
        var files = NativeCSVReaderTests.files
        files["fixes.csv"] = """
            action,table,match,field,value,expect,note
            set,stations,s_id=1130101,yomi,とうきょう,station=東京,fine
            set,stations,s_id=1130199,yomi,かんだ,,a mistyped s_id
            set,stations,s_id=1130101,yomii,とうきょう,,a mistyped field
            set,stations,station=神田,yomi,かんだ,,no station has this name

            """
        let raw = try makeSourceFolder(self, files)
        do {
            _ = try await IngestPipeline.run(IngestOptions(rawFolder: raw, rawLabel: "raw"))
            XCTFail("expected bad input")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.map(\.location), [SourceLocation(file: "raw/fixes.csv", line: 3, field: "match"),
                                                               SourceLocation(file: "raw/fixes.csv", line: 4, field: "field"),
                                                               SourceLocation(file: "raw/fixes.csv", line: 5, field: "match")], "\(error)")
            XCTAssertFalse(error.description.contains("stale"), "\(error)")
            // The s_ids nearest 1130199, and the name nearest 神田 (the station is `神田, "東京"`).
            XCTAssertTrue(error.diagnostics.first?.message.contains("s_id 1130102") ?? false, "\(error)")
            XCTAssertTrue(error.diagnostics.last?.message.contains("s_id 1130102") ?? false, "\(error)")
        }
    }

    /// Past a hundred bad rows, a row with one good and one malformed pair was applied half
    /// understood, and the problems after the hundredth were dropped without a word.
    func testARowWithAMalformedPairIsNeverAppliedHowEverManyCameBefore() async throws {
        var files = NativeCSVReaderTests.files
        files["fixes.csv"] = "action,table,match,field,value,expect,note\n"
            + String(repeating: "delete,stations,s_id=1130101,,,,\n", count: 100)
            + "disable,stations,s_id=1130101;statoin=東京,,,,half a match\n"
        let raw = try makeSourceFolder(self, files)
        let read = try DataFixes.read(path: raw + "/fixes.csv", label: "raw/fixes.csv")
        XCTAssertEqual(read.fixes, [])
        XCTAssertEqual(read.problems.count, 101)
        XCTAssertEqual(read.problems.last?.location, SourceLocation(file: "raw/fixes.csv", line: 102, field: "match"))
        do {
            _ = try await IngestPipeline.run(IngestOptions(rawFolder: raw, rawLabel: "raw"))
            XCTFail("expected bad input")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.count, 100)
            XCTAssertTrue(error.truncated, "the run says there are more than it lists")
        }
    }

    /// `sid=1274` and `s_id:1274` each gave a second, spurious error: "expected column=value,
    /// found nothing". A malformed match is one error, at its line.
    func testAMalformedMatchIsOneError() throws {
        let read = try DataFixes.read(path: try fixesFile("""
            action,table,match,field,value,expect,note
            disable,stations,sid=1274,,,,
            disable,stations,s_id:1274,,,,
            disable,stations,,,,,

            """), label: "raw/fixes.csv")
        XCTAssertEqual(read.fixes, [])
        let columns = "station, yomi, wiki, pref, address, lat, lng, o_id, enabled"
        XCTAssertEqual(read.problems.map(\.description), [
            "raw/fixes.csv:2: match: expected column=value[;column=value] with columns of stations (s_id, \(columns)), found 'sid=1274'",
            "raw/fixes.csv:3: match: expected column=value[;column=value] with columns of stations (s_id, \(columns)), found 's_id:1274'",
            "raw/fixes.csv:4: match: expected column=value, found nothing",
        ])
    }

    func fixesFile(_ text: String) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixes-\(UUID().uuidString)").path
        try Files.createFolder(folder)
        addTeardownBlock { Files.remove(folder) }
        try Files.write(Array(text.utf8), to: folder + "/fixes.csv")
        return folder + "/fixes.csv"
    }

    func testUnknownActionTableAndFieldAreRejectedWhenRead() throws {
        XCTAssertThrowsError(try fixes("""
        delete,stations,s_id=1,,,
        set,platforms,s_id=1,name,x,
        set,stations,s_id=1,colour,red,

        """)) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.description), [
                "raw/fixes.csv:2: action: expected one of set, move, disable, enable, found 'delete'",
                "raw/fixes.csv:3: table: expected one of operators, lines, stations, found 'platforms'",
                "raw/fixes.csv:4: field: expected a column of stations other than its id (station, yomi, wiki, pref, address, lat, lng, o_id, enabled), found 'colour'",
            ])
        }
    }
}
