import BuildDB
import Ingest
import Priority
import StationCore
import Foundation
import TestSupport
import XCTest

/// A native master of the kind maintainers keep, odd values included, goes
/// through ingest, priority and build; the bundle, exported back to the master's
/// CSV, holds the same bytes in every field.
final class VerbatimMasterTests: XCTestCase {
    static let operators = [
        ["o_id", "operator", "type", "enabled"],
        ["1", "JR東日本", "1", "1"],
        ["2", "東京メトロ ", "2", "1"],                        // a trailing space, as written
        ["3", "\u{3000}黒部峡谷鉄道", "9", "1"],                  // trolleybus: a known code since bundle.md lists it
        ["4", "関電トンネル, \"トロリー\"", "11", "1"],            // an unknown code, a comma and quotes
    ]
    static let lines = [
        ["l_id", "line", "o_id", "enabled", "l_type"],
        ["10", "山手線", "1", "1", "2"],
        ["20", " 丸ノ内線", "2", "1", "42"],                      // a leading space, an unknown line type
        ["30", "黒部線", "3", "0", ""],
        ["40", "関電トンネル\nトロリーバス", "4", "1", "5"],         // a line break inside quotes
    ]
    static let stations = [
        ["s_id", "station", "yomi", "wiki", "pref", "address", "lat", "lng", "o_id", "enabled"],
        ["1", "東京", "とうきょう", "東京駅", "13", "東京都千代田区丸の内一丁目", "35.681391", "139.766103", "1", "1"],
        ["2", "神田 ", "かんだ ", "", "13", "  東京都千代田区", "35.691173", "139.770641", "1", "1"],
        ["3", "大手町", "おおてまち（とうきょう）", "大手町駅 (東京都)", "13", "東京都千代田区大手町", "35.686147", "139.766103", "2", "1"],
        ["4", "宇奈月", "うなづき", "", "16", "富山県黒部市", "36.813000", "137.582000", "3", "1"],
        ["5", "扇沢", "おうぎさわ", "", "20", "長野県大町市", "36.583000", "137.732000", "4", "1"],
        ["6", "黒部ダム", "くろべだむ", "", "16", "富山県中新川郡立山町 ", "36.566000", "137.662000", "4", "0"],
    ]
    static let stationLines = [["l_id", "s_id", "s_sort"], ["10", "1", "1"], ["10", "2", "2"], ["20", "3", "1"], ["30", "4", "1"],
                               ["40", "5", "1"], ["40", "6", "2"]]

    func write(_ rows: [[String]], _ path: String) throws {
        var out: [UInt8] = []
        for r in rows { CSVWriter.append(r, to: &out) }
        try Files.write(out, to: path)
    }

    func testOddMasterIsPublishedAsWritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("verbatim-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        let raw = folder + "/raw"
        try Files.createFolder(raw)
        let files = ["operators.csv": Self.operators, "lines.csv": Self.lines, "stations.csv": Self.stations, "stations_lines.csv": Self.stationLines]
        for (name, rows) in files { try write(rows, joinPath(raw, name)) }

        // Ingest keeps every value and only warns of the unknown codes.
        let outcome = try await IngestPipeline.run(IngestOptions(rawFolder: raw, rawLabel: "raw", registryPath: folder + "/registry.csv"))
        XCTAssertEqual(outcome.report.warnings.map(\.location.description), ["raw/operators.csv:5: type", "raw/lines.csv:3: l_type"])
        let weights = PriorityAssigner.assign(network: outcome.staging.network, hand: [])
        let built = try await publish(TestBuild(BuildRequest(staging: outcome.staging, weights: weights), dist: folder + "/dist"))
        guard case .published(let candidate) = built else { return XCTFail("not published: \(built)") }
        let bundle = candidate.bundle

        // The bundle, read back and exported as the master's CSV.
        let exported = folder + "/exported"
        try Synth(national: try network(in: joinPath(folder + "/dist", bundle.database)), config: SynthConfig(scale: 1)).writeNative(folder: exported)
        for (name, rows) in files {
            let table = try CSVReader.read(path: joinPath(exported, name))
            XCTAssertEqual(table.header, rows[0], name)
            let back = table.records.map { table.fields($0) }
            XCTAssertEqual(back.count, rows.count - 1, name)
            for (r, row) in zip(back, rows.dropFirst()) {
                for (column, (was, now)) in zip(rows[0], zip(row, r)) {
                    XCTAssertEqual(Array(now.utf8), Array(was.utf8), "\(name) \(row[0]) \(column): \(was.debugDescription) became \(now.debugDescription)")
                }
            }
        }
    }

    /// A bundle's four tables as a network.
    func network(in path: String) throws -> RailNetwork {
        let db = try SQLiteDatabase(path: path)
        var n = RailNetwork()
        for r in try db.query("SELECT o_id, operator, type, enabled FROM operators ORDER BY o_id") {
            n.operators.append(Operator(id: r[0].intValue!, name: r[1].textValue!, type: r[2].intValue!, enabled: r[3].intValue == 1))
        }
        for r in try db.query("SELECT l_id, line, o_id, enabled, l_type FROM lines ORDER BY l_id") {
            n.lines.append(Line(id: r[0].intValue!, name: r[1].textValue!, operatorID: r[2].intValue!, enabled: r[3].intValue == 1, type: r[4].intValue))
        }
        for r in try db.query("SELECT s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled FROM stations ORDER BY s_id") {
            n.stations.append(Station(id: r[0].intValue!, name: r[1].textValue!, yomi: r[2].textValue!, wiki: r[3].textValue!, pref: r[4].intValue!,
                                      address: r[5].textValue!, lat: r[6].intValue!, lng: r[7].intValue!, operatorID: r[8].intValue!,
                                      enabled: r[9].intValue == 1))
        }
        for r in try db.query("SELECT l_id, s_id, s_sort FROM stations_lines ORDER BY l_id, s_sort") {
            n.stationLines.append(StationLine(lineID: r[0].intValue!, stationID: r[1].intValue!, sort: r[2].intValue!))
        }
        return n
    }
}
