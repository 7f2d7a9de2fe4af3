import Foundation
import XCTest
import StationModel
@testable import Ingest

/// A native folder that is the only source is read straight into the merge
/// (NativeCSVReader.readAsOnlySource) instead of through `NetworkMerger.add`:
/// both must give the same outcome in every part, on the cases that reach
/// different code (vanished IDs, old keys, fixes, disabled rows, a station on
/// several lines, IDs whose text order differs from their numeric order).
final class OnlySourceTests: XCTestCase {
    /// Two operators, three lines, five stations (ID 10 sorts before 9 as text).
    let network = RailNetwork(
        operators: [Operator(id: 1, name: "JR東日本", type: 1), Operator(id: 12, name: "東京地下鉄", type: 2, enabled: false)],
        lines: [Line(id: 10, name: "山手線", operatorID: 1), Line(id: 11, name: "東北新幹線", operatorID: 1, type: 1),
                Line(id: 9, name: "銀座線", operatorID: 12)],
        stations: [
            Station(id: 1, name: "東京", yomi: "とうきょう", wiki: "https://ja.wikipedia.org/wiki/東京駅", pref: 13,
                    address: "千代田区丸の内一丁目", lat: 35_681_236, lng: 139_767_125, operatorID: 1),
            Station(id: 2, name: "神田", yomi: "かんだ", pref: 13, address: "千代田区, \"鍛冶町\"", lat: 35_691_690, lng: 139_770_883, operatorID: 1),
            Station(id: 10, name: "上野", pref: 13, lat: 35_713_768, lng: 139_777_254, operatorID: 12, enabled: false),
            Station(id: 9, name: "離れ", pref: 47, lat: 24_340_000, lng: 124_155_000, operatorID: 12),
            Station(id: 100, name: "末広町", yomi: "すえひろちょう", pref: 13, lat: 35_702_800, lng: 139_771_900, operatorID: 12),
        ],
        stationLines: [StationLine(lineID: 10, stationID: 1, sort: 1), StationLine(lineID: 10, stationID: 2, sort: 2),
                       StationLine(lineID: 11, stationID: 1, sort: 1), StationLine(lineID: 9, stationID: 100, sort: 2),
                       StationLine(lineID: 9, stationID: 10, sort: 1), StationLine(lineID: 9, stationID: 2, sort: 3)])

    func temporaryFolder() -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stationdb-only-\(UUID().uuidString)").path
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        return folder
    }

    /// The fast path (`run`) against the general one (`assemble` over `NativeCSVReader.read`).
    func assertSameOutcome(folder: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let options = IngestOptions(rawFolder: folder, rawLabel: "raw")
        let fast = try IngestPipeline.run(options)
        let source = try NativeCSVReader.read(folder: folder, label: "raw")
        let fixes = try DataFixes.read(path: options.fixesPath, label: "raw/" + DataFixes.fileName)
        let general = try IngestPipeline.assemble(sources: [source], registry: Registry.load(path: options.registryPath), fixes: fixes,
                                                  meta: fast.staging.meta)
        XCTAssertEqual(fast.staging.network, general.staging.network, file: file, line: line)
        XCTAssertEqual(String(decoding: fast.nextRegistry.text(), as: UTF8.self),
                       String(decoding: general.nextRegistry.text(), as: UTF8.self), file: file, line: line)
        XCTAssertEqual(fast.registryUnchanged, general.registryUnchanged, file: file, line: line)
        XCTAssertEqual(fast.report.newIDs, general.report.newIDs, file: file, line: line)
        XCTAssertEqual(fast.report.vanished, general.report.vanished, file: file, line: line)
        XCTAssertEqual(fast.report.disagreements, general.report.disagreements, file: file, line: line)
        XCTAssertEqual(fast.report.sources, general.report.sources, file: file, line: line)

        // A registry too large to read beside the sources is read while the IDs and the
        // network are made (a native master's IDs need none): the same outcome again.
        var late = options
        late.registryReadBesideSourcesUpTo = 0
        let afterwards = try IngestPipeline.run(late)
        XCTAssertEqual(afterwards.staging.network, fast.staging.network, file: file, line: line)
        XCTAssertEqual(afterwards.nextRegistry.text(), fast.nextRegistry.text(), file: file, line: line)
        XCTAssertEqual(afterwards.registryUnchanged, fast.registryUnchanged, file: file, line: line)
        XCTAssertEqual(afterwards.report.newIDs, fast.report.newIDs, file: file, line: line)
        XCTAssertEqual(afterwards.report.vanished, fast.report.vanished, file: file, line: line)
    }

    func testSameOutcomeAsTheMerge() throws {
        let folder = temporaryFolder()
        try Synth(national: network, config: SynthConfig(scale: 3)).writeNative(folder: folder)
        // First run: no registry yet.
        try assertSameOutcome(folder: folder)
        let first = try IngestPipeline.run(IngestOptions(rawFolder: folder))
        try IngestPipeline.publish(first, stagingPath: folder + "/staging.bin", registryPath: folder + "/registry.csv")
        XCTAssertTrue(try IngestPipeline.run(IngestOptions(rawFolder: folder)).registryUnchanged)
        try assertSameOutcome(folder: folder)

        // A station gone (published disabled under its ID), another station given an
        // old key of its own in the registry, and a fix.
        let stations = try String(contentsOfFile: folder + "/stations.csv", encoding: .utf8)
        try stations.split(separator: "\n").filter { !$0.hasPrefix("2,") }.map { $0 + "\n" }.joined()
            .write(toFile: folder + "/stations.csv", atomically: true, encoding: .utf8)
        let stationLines = try String(contentsOfFile: folder + "/stations_lines.csv", encoding: .utf8)
        try stationLines.split(separator: "\n").filter { $0.split(separator: ",")[1] != "2" }.map { $0 + "\n" }.joined()
            .write(toFile: folder + "/stations_lines.csv", atomically: true, encoding: .utf8)
        let registry = try String(contentsOfFile: folder + "/registry.csv", encoding: .utf8)
        try registry.replacingOccurrences(of: "\nstation,1,s:1,", with: "\nstation,1,code:1|s:1,")
            .write(toFile: folder + "/registry.csv", atomically: true, encoding: .utf8)
        try "action,table,match,field,value,note\nset,stations,s_id=9,yomi,はなれ,\ndisable,lines,l_id=11,,,\n"
            .write(toFile: folder + "/fixes.csv", atomically: true, encoding: .utf8)
        let changed = try IngestPipeline.run(IngestOptions(rawFolder: folder))
        XCTAssertEqual(changed.report.vanished[.station], 1)
        XCTAssertFalse(changed.registryUnchanged)
        XCTAssertEqual(changed.registry.stations[1]?.keys, ["code:1", "s:1"])
        XCTAssertEqual(changed.staging.network.stations.first { $0.id == 2 }?.enabled, false)
        XCTAssertEqual(changed.staging.network.stations.first { $0.id == 9 }?.yomi, "はなれ")
        try assertSameOutcome(folder: folder)
    }

    func testSameOutcomeOnTheNationalNetwork() throws {
        let ekidata = sharedDataFolder("ekidata")
        guard FileManager.default.fileExists(atPath: ekidata + "/station.csv") else {
            throw XCTSkip("../shared/data is absent: the national comparison is skipped")
        }
        let national = try IngestPipeline.assemble(sources: [EkidataReader.read(folder: ekidata, label: "ekidata")], registry: Registry())
        let folder = temporaryFolder()
        try Synth(national: national.staging.network, config: SynthConfig(scale: 1)).writeNative(folder: folder)
        try assertSameOutcome(folder: folder)
        let first = try IngestPipeline.run(IngestOptions(rawFolder: folder))
        XCTAssertEqual(first.staging.network.stations.count, 9_768)
        try IngestPipeline.publish(first, stagingPath: folder + "/staging.bin", registryPath: folder + "/registry.csv")
        try assertSameOutcome(folder: folder)
    }
}
