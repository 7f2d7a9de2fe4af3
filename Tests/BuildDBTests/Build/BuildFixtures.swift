import BuildDB
import StationCore
import Foundation
import TestSupport
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

    static let meta = ["source:raw/station_database/station.csv": String(repeating: "ab", count: 32), "ingested_by": "test"]

    /// A build of `network`. A renumbering's old s_id must have been a station: the registry
    /// knows every s_id from 1 to 999, as a real raw/'s knows every station ever published.
    static let registry: String = {
        // One file for every test process (the same text each time), not one per run.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stationdb-tests-registry-999.csv").path
        let text = Registry.columns.joined(separator: ",") + "\n" + (1...999).map { "station,\($0),old:\($0),旧駅\($0),1,,0,,,13,,35000000,139000000,0,,,\n" }.joined()
        try! AtomicFile.write(text, to: path)
        return path
    }()

    static func request(_ network: RailNetwork, dist: String, weights: [Int: Int]? = nil, version: Int? = nil,
                        renumberings: [Renumbering: SourceLocation] = [:]) -> TestBuild {
        TestBuild(BuildRequest(staging: Staging(network: network, meta: meta), stagingPath: "staging.bin",
                               weights: weights ?? Self.weights(for: network), weightsPath: "weights.csv",
                               renumberings: renumberings, registryPath: Self.registry),
                  dist: dist, version: version)
    }

    /// A publish as the tests look at it: what latest.json now says and the
    /// difference from the version before (nil for the first).
    struct Published {
        var bundle: PublishedBundle
        var difference: BundleDifference?
        var dist: String

        var version: Int { bundle.version }
        var previousVersion: Int? { bundle.previousVersion }
        /// dist/<version>
        var folder: String { dist + "/" + String(bundle.version) }
        var rowCounts: [String: Int] { bundle.rows }
        var weightChanges: Int { BundleBuilder.weightChanges(difference) }
        var changesText: String { BundleBuilder.changesText(difference) }
    }

    /// The published side of an outcome; fails the test when nothing was published.
    static func published(_ outcome: BuildOutcome, dist: String, file: StaticString = #filePath, line: UInt = #line) throws -> Published {
        guard case .published(let candidate) = outcome else {
            XCTFail("expected a publish, got \(outcome)", file: file, line: line)
            throw CancellationError()
        }
        return Published(bundle: candidate.bundle, difference: candidate.difference, dist: dist)
    }

    @discardableResult
    static func publish(_ network: RailNetwork, dist: String, weights: [Int: Int]? = nil, version: Int? = nil,
                        renumberings: [Renumbering: SourceLocation] = [:],
                        file: StaticString = #filePath, line: UInt = #line) async throws -> Published {
        // Whatever the change: the guards are PublishGuardTests'.
        var request = request(network, dist: dist, weights: weights, version: version, renumberings: renumberings)
        request.force = true
        let outcome = try await BuildDBTests.publish(request)
        return try published(outcome, dist: dist, file: file, line: line)
    }

    /// Gives the stations `ids` new s_ids from `firstNewID` on, as renumbered.csv would
    /// declare them in `version` (the only way a published s_id leaves a bundle).
    static func renumber(_ ids: Set<Int>, in network: inout RailNetwork, from firstNewID: Int, version: Int) -> [Renumbering: SourceLocation] {
        var newID: [Int: Int] = [:]
        for (k, id) in ids.sorted().enumerated() { newID[id] = firstNewID + k }
        for i in network.stations.indices { if let n = newID[network.stations[i].id] { network.stations[i].id = n } }
        for i in network.stationLines.indices { if let n = newID[network.stationLines[i].stationID] { network.stationLines[i].stationID = n } }
        network.sortByKey()
        return Dictionary(uniqueKeysWithValues: newID.map { (Renumbering(newID: $0.value, oldID: $0.key, version: version), SourceLocation(file: "renumbered.csv")) })
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
            // The lock holds its last holder's pid: no part of what a publish publishes.
            if rel == DistLock.fileName { continue }
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

    /// All of Japan as a publish sees it (raw/ through Ingest).
    static func nationalNetwork() async throws -> RailNetwork { try await NationalNetwork.network() }
}

/// XCTAssertThrowsError for an async expression.
func assertThrowsAsync<T>(_ expression: @autoclosure () async throws -> T, _ message: @autoclosure () -> String = "",
                          file: StaticString = #filePath, line: UInt = #line, _ handler: (any Error) -> Void = { _ in }) async {
    do {
        let value = try await expression()
        XCTFail("expected an error, got \(value)" + (message().isEmpty ? "" : ": \(message())"), file: file, line: line)
    } catch {
        handler(error)
    }
}

/// XCTAssertNoThrow for an async expression.
func assertNoThrowAsync<T>(_ expression: @autoclosure () async throws -> T, _ message: @autoclosure () -> String = "",
                           file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await expression()
    } catch {
        XCTFail("unexpected error \(error)" + (message().isEmpty ? "" : ": \(message())"), file: file, line: line)
    }
}
