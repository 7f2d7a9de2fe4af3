import BuildDB
import Ingest
import StationCore
import Foundation
import TestSupport
import XCTest

/// A source's code handed to another station, through to the publish: ingest gives the new
/// station a new s_id and hands it the code's keys, and the build that checks the registry
/// against the published one's takes that for what it is, not for a key lost in a bad merge.
final class CodeReuseTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("code-reuse-\(UUID().uuidString)").path
        try Files.createFolder(folder)
    }

    override func tearDown() { Files.remove(folder) }

    func ekidata(_ stations: [(cd: Int, name: String, lat: Int, lng: Int)]) -> SourceNetwork {
        let here = SourceLocation(file: "eki/station.csv", line: 2)
        var n = SourceNetwork(kind: .ekidata, label: "eki")
        n.operators = [SourceOperator(key: "ekidata:company:4", name: "JR西日本", type: 1, enabled: true, origin: here)]
        for s in stations {
            n.stations.append(SourceStation(key: "ekidata:station:4:\(s.cd)", matchKeys: ["code:\(s.cd)"], name: s.name, yomi: nil, wiki: nil,
                                            pref: 28, address: nil, lat: s.lat, lng: s.lng, operatorKey: "ekidata:company:4", enabled: true,
                                            origin: here))
        }
        return n
    }

    func publish(_ outcome: IngestOutcome, version: Int) async throws -> BuildOutcome {
        let registry = folder + "/registry-\(version).csv"
        try Files.write(outcome.registryText, to: registry)
        let weights = Dictionary(uniqueKeysWithValues: outcome.staging.network.stations.map { ($0.id, 13) })
        return try await BuildDBTests.publish(TestBuild(BuildRequest(staging: outcome.staging, weights: weights, registryPath: registry), dist: folder + "/dist"))
    }

    /// 英賀保's code given to the new 手柄山平和公園 (JR West, 2016), 英賀保 under the next code.
    func testACodeHandedToAnotherStationPublishes() async throws {
        let first = try IngestPipeline.assemble(sources: [ekidata([(1160902, "英賀保", 34_813_235, 134_644_762)])], registry: Registry())
        guard case .published = try await publish(first, version: 1) else { return XCTFail("version 1 not published") }
        let second = try IngestPipeline.assemble(sources: [ekidata([(1160902, "手柄山平和公園", 34_823_250, 134_671_389),
                                                                     (1160903, "英賀保", 34_813_235, 134_644_762)])],
                                                 registry: try first.registry)
        XCTAssertEqual(second.staging.network.stations.map { "\($0.id) \($0.name)" }, ["1 英賀保", "2 手柄山平和公園"])
        XCTAssertEqual(try second.registry.lostKeys(since: try first.registry).count, 0)
        let outcome = try await publish(second, version: 2)
        guard case .published(let candidate) = outcome else { return XCTFail("version 2 not published: \(outcome)") }
        XCTAssertEqual(candidate.bundle.version, 2)
    }

    /// A key gone from the registry altogether is still a lost key.
    func testAKeyNoIDHasIsLost() throws {
        let first = try IngestPipeline.assemble(sources: [ekidata([(1160902, "英賀保", 34_813_235, 134_644_762)])], registry: Registry())
        let text = String(decoding: first.registryText, as: UTF8.self).replacingOccurrences(of: "code:1160902|", with: "")
        let edited = try Registry.parse(CSVReader.parse(text, file: "registry.csv"))
        XCTAssertEqual(edited.lostKeys(since: try first.registry).map(\.key), ["code:1160902"])
    }
}
