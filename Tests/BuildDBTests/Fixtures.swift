import BuildDB
import BundleDiff
import Foundation
import StationModel
import XCTest

/// Small networks with awkward text, temporary dist folders, and the national
/// ekidata network for the large runs.
enum Fixtures {
    /// Three operators, four lines, six stations; names with quotes, commas,
    /// non-ASCII text and a line break, which the patch must carry intact.
    static func smallNetwork() -> RailNetwork {
        RailNetwork(
            operators: [
                Operator(id: 1, name: "JR東日本", type: 1),
                Operator(id: 2, name: "O'Hare, \"Express\" Lines", type: 5),
                Operator(id: 3, name: "東京メトロ", type: 4),
            ],
            lines: [
                Line(id: 10, name: "山手線", operatorID: 1),
                Line(id: 11, name: "東北新幹線", operatorID: 1, type: 1),
                Line(id: 20, name: "Airport 'Loop', east", operatorID: 2),
                Line(id: 30, name: "銀座線", operatorID: 3, enabled: false),
            ],
            stations: [
                Station(id: 100, name: "東京", yomi: "とうきょう", wiki: "東京駅", pref: 13, address: "東京都千代田区丸の内一丁目",
                        lat: 35_681_382, lng: 139_766_084, operatorID: 1),
                Station(id: 101, name: "上野", yomi: "うえの", wiki: "上野駅", pref: 13, address: "東京都台東区上野七丁目",
                        lat: 35_713_768, lng: 139_777_254, operatorID: 1),
                Station(id: 102, name: "東京", yomi: "とうきょう", wiki: "東京駅", pref: 13, address: "東京都千代田区丸の内一丁目",
                        lat: 35_681_382, lng: 139_766_084, operatorID: 1),
                Station(id: 200, name: "Terminal 1", yomi: "たーみなるわん", wiki: "", pref: 12, address: "Narita, Chiba 'North' wing",
                        lat: 35_772_000, lng: 140_392_000, operatorID: 2),
                Station(id: 201, name: "It's \"Gate\" 2, east", yomi: "げーと", wiki: "", pref: 12, address: "line one\nline two",
                        lat: 35_765_000, lng: 140_386_000, operatorID: 2),
                Station(id: 300, name: "浅草", yomi: "あさくさ", wiki: "浅草駅", pref: 13, address: "東京都台東区浅草一丁目",
                        lat: 35_711_000, lng: 139_797_000, operatorID: 3, enabled: false),
            ],
            stationLines: [
                StationLine(lineID: 10, stationID: 100, sort: 1),
                StationLine(lineID: 10, stationID: 101, sort: 2),
                StationLine(lineID: 11, stationID: 102, sort: 1),
                StationLine(lineID: 20, stationID: 200, sort: 1),
                StationLine(lineID: 20, stationID: 201, sort: 2),
                StationLine(lineID: 30, stationID: 300, sort: 1),
            ])
    }

    static func weights(for network: RailNetwork) -> [Int: Int] {
        Dictionary(uniqueKeysWithValues: network.stations.map { ($0.id, 1 + $0.id % 13) })
    }

    static let meta = ["source:raw/ekidata/station.csv": String(repeating: "ab", count: 32), "ingested_by": "test"]

    static func request(_ network: RailNetwork, dist: String, weights: [Int: Int]? = nil, version: Int? = nil,
                        renumberings: [Renumbering: SourceLocation] = [:]) -> BuildRequest {
        BuildRequest(staging: Staging(network: network, meta: meta), stagingPath: "staging.bin",
                     weights: weights ?? Self.weights(for: network), weightsPath: "weights.csv",
                     renumberings: renumberings, dist: dist, requestedVersion: version)
    }

    @discardableResult
    static func publish(_ network: RailNetwork, dist: String, weights: [Int: Int]? = nil, version: Int? = nil,
                        renumberings: [Renumbering: SourceLocation] = [:],
                        file: StaticString = #filePath, line: UInt = #line) throws -> PublishedBundle {
        let outcome = try BundleBuilder().build(request(network, dist: dist, weights: weights, version: version, renumberings: renumberings))
        guard case .published(let bundle) = outcome else {
            XCTFail("expected a publish, got \(outcome)", file: file, line: line)
            throw CancellationError()
        }
        return bundle
    }

    // MARK: - Folders

    /// One root per test process, removed when each test class finishes.
    static let temporaryRoot = NSTemporaryDirectory() + "builddb-tests-\(getpid())"

    static func removeTemporaryFolders() { try? FileManager.default.removeItem(atPath: temporaryRoot) }

    static func temporaryFolder() throws -> String {
        let path = temporaryRoot + "/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Every file under `folder` (relative path -> sha256), for "nothing changed" checks.
    static func snapshot(_ folder: String) throws -> [String: String] {
        var out: [String: String] = [:]
        let fm = FileManager.default
        guard let e = fm.enumerator(atPath: folder) else { return out }
        while let rel = e.nextObject() as? String {
            let path = (folder as NSString).appendingPathComponent(rel)
            var isDir: ObjCBool = false
            _ = fm.fileExists(atPath: path, isDirectory: &isDir)
            out[rel] = isDir.boolValue ? "dir" : try SHA256.hex(fileAt: path)
        }
        return out
    }

    static func copy(_ from: String, to: String) throws {
        try? FileManager.default.removeItem(atPath: to)
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    static func latest(_ dist: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: (dist as NSString).appendingPathComponent("latest.json")))
        return try JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    // MARK: - National data

    static var sharedData: String {
        // Tests/BuildDBTests/Fixtures.swift -> package root -> ../shared/data
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.deletingLastPathComponent().appendingPathComponent("shared/data").path
    }

    /// All of Japan from ekidata's CSV, rows grouped by station_g_cd into one
    /// station each (its first row's operator), good enough to size the bundle.
    static func ekidataNetwork() throws -> RailNetwork {
        let folder = sharedData + "/ekidata"
        guard FileManager.default.fileExists(atPath: folder + "/station.csv") else {
            throw XCTSkip("../shared/data/ekidata absent")
        }
        var problems = DiagnosticCollector()
        var network = RailNetwork()
        let companies = try CSVReader.read(path: folder + "/company.csv")
        for row in companies.rows() {
            guard let id = row.int("company_cd", &problems) else { continue }
            let t = Int(row.string("company_type")) ?? 0
            network.operators.append(Operator(id: id, name: row.string("company_name"), type: (1...3).contains(t) ? t : 5))
        }
        var lineOperator: [Int: Int] = [:]
        for row in try CSVReader.read(path: folder + "/line.csv").rows() {
            guard let id = row.int("line_cd", &problems), let company = row.int("company_cd", &problems) else { continue }
            let name = row.string("line_name")
            lineOperator[id] = company
            network.lines.append(Line(id: id, name: name, operatorID: company, enabled: row.string("e_status") != "2",
                                      type: name.contains("新幹線") ? 1 : nil))
        }
        var seen = Set<Int>(), pairs = Set<[Int]>()
        for row in try CSVReader.read(path: folder + "/station.csv").rows() {
            guard let group = row.int("station_g_cd", &problems), let line = row.int("line_cd", &problems),
                  let lat = row.microDegrees("lat", &problems), let lng = row.microDegrees("lon", &problems) else { continue }
            guard MicroDegrees.inJapan(lat: lat, lng: lng) else { continue }
            if seen.insert(group).inserted {
                let pref = min(47, max(1, Int(row.string("pref_cd")) ?? 13))
                network.stations.append(Station(id: group, name: row.string("station_name"), yomi: row.string("station_name_k"),
                                                wiki: "", pref: pref, address: row.string("address"), lat: lat, lng: lng,
                                                operatorID: lineOperator[line] ?? 1, enabled: row.string("e_status") != "2"))
            }
            if lineOperator[line] != nil, pairs.insert([line, group]).inserted {
                network.stationLines.append(StationLine(lineID: line, stationID: group, sort: Int(row.string("e_sort")) ?? 0))
            }
        }
        network.sortByKey()
        return network
    }
}
