import Foundation
import XCTest
import Ingest
import StationCore
import TestSupport

/// The apps' own master, in its own conventions (Tests/Fixtures/apps_master.py writes it from
/// the upstream's release v20260227), published, then raw/ switched to the upstream's next
/// release v20260529 with the same registry: every s_id must keep naming the station it
/// named, or retire; none may name another station (issue 34).
final class AppsMasterSwitchTests: XCTestCase {
    struct Switch {
        var before: IngestOutcome
        var after: IngestOutcome
        var registry: Registry
        /// Each master ID's keys of the upstream's rows it was made from, by kind.
        var truth: ByKind<[Int: Set<String>]>
    }

    nonisolated(unsafe) static var made: Switch?

    static func masterSwitch() throws -> Switch {
        if let made { return made }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apps-master-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let master = try AppsMaster.write(into: folder)
        let first = try IngestPipeline.assemble(sources: [try NativeCSVReader.read(folder: master.folder, label: "raw/master")], registry: Registry())
        let upstream = try StationDatabaseReader.read(folder: RepositoryData.stationDatabase, label: "raw/station_database")
        let second = try IngestPipeline.assemble(sources: [upstream], registry: try first.registry)
        let result = Switch(before: first, after: second, registry: try second.registry, truth: master.truth)
        made = result
        return result
    }

    /// The upstream keys an ID holds after the switch (the master's own "s:" keys aside).
    static func upstreamKeys(_ registry: Registry, _ kind: Registry.Kind, _ id: Int) -> Set<String> {
        Set((registry.keys(kind, id) ?? []).filter { $0.hasPrefix("station_database:") })
    }

    func testNoStationIDNamesAnotherStation() throws {
        let s = try Self.masterSwitch()
        let live = Set(s.after.staging.network.stations.filter(\.enabled).map(\.id))
        var wrong: [String] = []
        for (id, truth) in s.truth.stations.sorted(by: { $0.key < $1.key }) where live.contains(id) {
            let now = Self.upstreamKeys(s.registry, .station, id)
            if now.isDisjoint(with: truth) { wrong.append("\(id) \(s.registry.name(.station, id)): \(now.sorted()) not \(truth.sorted())") }
        }
        XCTAssertEqual(wrong.count, 0, "s_ids that name another station:\n" + wrong.prefix(40).joined(separator: "\n"))
    }

    func testEveryStationBothHaveKeepsItsID() throws {
        let s = try Self.masterSwitch()
        let before = Dictionary(uniqueKeysWithValues: s.before.staging.network.stations.map { ($0.id, $0) })
        // The master's live rows of each upstream key.
        var holders: [String: Set<Int>] = [:]
        for (id, truth) in s.truth.stations where before[id]?.enabled == true { for k in truth { holders[k, default: []].insert(id) } }
        var lost: [String] = [], shared = 0, orphans = 0
        let review = StagingMeta.identity(in: s.after.staging.meta).review?.entries ?? []
        for station in s.after.staging.network.stations where station.enabled {
            let keys = Self.upstreamKeys(s.registry, .station, station.id)
            let masterRows = keys.reduce(into: Set<Int>()) { $0.formUnion(holders[$1] ?? []) }
            guard !masterRows.isEmpty else { continue }
            shared += 1
            // Not kept: it must be named, the master's s_id an orphan with this station its survivor
            // (a pair just under the link: another operator now, 300 m off in the master's own places).
            let named = review.contains { masterRows.contains($0.stationID) && $0.kind == .orphaned && $0.successor == station.id }
            if named { orphans += 1 }
            if !masterRows.contains(station.id) && !named { lost.append("\(station.name) \(keys.sorted()): s_id \(station.id), not one of \(masterRows.sorted())") }
        }
        XCTAssertGreaterThan(shared, 9_000)
        XCTAssertLessThanOrEqual(orphans, 10, "named, not kept")
        XCTAssertEqual(lost.count, 0, "stations both have whose master s_id was not kept:\n" + lost.prefix(40).joined(separator: "\n"))
    }

    /// 99% of the operators and lines that match one to one keep their IDs, and every group of
    /// the master's rows that the upstream has as one (a line split where operators meet)
    /// keeps one of its IDs.
    func testOperatorsAndLinesKeepTheirIDs() throws {
        let s = try Self.masterSwitch()
        for kind in [Registry.Kind.operator_, .line] {
            let truth = s.truth[kind]
            let current = Set(kind == .operator_ ? s.after.staging.network.operators.filter(\.enabled).map(\.id)
                                                 : s.after.staging.network.lines.filter(\.enabled).map(\.id))
            // Those both have: the upstream's entity is live after the switch.
            let liveKeys = current.reduce(into: Set<String>()) { $0.formUnion(Self.upstreamKeys(s.registry, kind, $1)) }
            var holders: [String: [Int]] = [:]
            for (id, keys) in truth { for k in keys.intersection(liveKeys) { holders[k, default: []].append(id) } }
            let oneToOne = truth.filter { entry in !entry.value.isDisjoint(with: liveKeys) && entry.value.allSatisfy { (holders[$0] ?? []).count <= 1 } }
            let kept = oneToOne.filter { !Self.upstreamKeys(s.registry, kind, $0.key).isDisjoint(with: $0.value) }
            XCTAssertGreaterThan(oneToOne.count, kind == .operator_ ? 150 : 500)
            XCTAssertGreaterThanOrEqual(Double(kept.count) / Double(oneToOne.count), 0.99,
                                        "\(kind): \(kept.count) of \(oneToOne.count) kept; lost: \(oneToOne.keys.filter { kept[$0] == nil }.sorted().prefix(30))")
            for (key, group) in holders where group.count > 1 {
                XCTAssertTrue(group.contains { Self.upstreamKeys(s.registry, kind, $0).contains(key) }, "\(kind) \(key): none of \(group.sorted()) kept")
            }
        }
    }
}
