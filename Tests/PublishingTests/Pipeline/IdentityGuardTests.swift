import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// Releases of the upstream edited as a hostile or careless upstream would, each published
/// over the default raw/'s version 1: refused (dist untouched) or published with no s_id
/// naming another station (issue 34). And a native master that would hand s_ids to other
/// stations, refused until the maintainer decides in raw/identity.csv.
final class IdentityGuardTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var dist: String { folder + "/dist" }
    var release: String { raw + "/station_database" }

    /// The default raw/ published as version 1, made once for the class.
    nonisolated(unsafe) static var published: String?

    /// Shared with MergeDecisionTests and others, whose class may run after this one removed it: made again then.
    static func publishedOnce() async throws -> String {
        if let published, Files.exists(published + "/dist/latest.json") { return published }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-v1-\(getpid())").path
        Files.remove(folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: RepositoryData.raw, toPath: folder + "/raw")
        let report = try await Pipeline(PublishSettings(raw: folder + "/raw", build: folder + "/build", dist: folder + "/dist")).publish()
        guard report.outcome == .published else { throw StationError.environment("version 1 of the default raw/ was not published: \(report.outcome)") }
        published = folder
        return folder
    }

    /// A folder of a test's own holding copies of version 1's raw/ and dist/.
    static func copyOfVersion1(_ name: String) async throws -> String {
        let v1 = try await publishedOnce()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for name in ["raw", "dist"] { try FileManager.default.copyItem(atPath: v1 + "/" + name, toPath: folder + "/" + name) }
        return folder
    }

    /// Each class that uses version 1 removes it when done (the next makes it again).
    static func removePublished() { if let published { Files.remove(published) } }

    override class func tearDown() { removePublished() }

    override func setUp() async throws { folder = try await Self.copyOfVersion1("identity") }

    override func tearDown() { Files.remove(folder) }

    func pipeline(force: Bool = false) -> Pipeline {
        Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist, force: force))
    }

    /// Rewrites the release's `file` line by line (the header is left alone).
    func edit(_ file: String, _ body: ([String]) -> [String]?) throws {
        let path = release + "/" + file
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = lines.removeFirst()
        var out = [header]
        for line in lines where !line.isEmpty { out += body(line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)).map { [$0.joined(separator: ",")] } ?? [] }
        try (out.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// Every station of a published version by s_id: (name, o_id, lat, lng, enabled).
    func stations(version: Int) throws -> [Int: (name: String, operatorID: Int, lat: Int, lng: Int, enabled: Bool)] {
        let db = try SQLiteDatabase(path: "\(dist)/\(version)/stations.sqlite", mode: .readOnly)
        defer { db.close() }
        var out: [Int: (name: String, operatorID: Int, lat: Int, lng: Int, enabled: Bool)] = [:]
        for row in try db.query("SELECT s_id, station, o_id, lat, lng, enabled FROM stations") {
            out[row[0].intValue!] = (row[1].textValue!, row[2].intValue!, row[3].intValue!, row[4].intValue!, row[5].intValue == 1)
        }
        return out
    }

    /// No live s_id of the latest version names another station than in version 1: the same
    /// name within a kilometre, or renamed within 300 m, of the same operator.
    func assertNoStationIDNamesAnotherStation(file: StaticString = #filePath, line: UInt = #line) throws {
        let latest = try XCTUnwrap(PublishedBundle.latest(in: dist)).version
        let before = try stations(version: 1), after = try stations(version: latest)
        var wrong: [String] = []
        for (id, now) in after where now.enabled {
            guard let was = before[id] else { continue }
            let metres = MicroDegrees.distanceMetres(lat1: was.lat, lng1: was.lng, lat2: now.lat, lng2: now.lng)
            let same = (StationName.base(was.name) == StationName.base(now.name) && metres <= 1_000) || metres <= 300
            if !same || was.operatorID != now.operatorID { wrong.append("s_id \(id): \(was.name) -> \(now.name), \(Int(metres)) m") }
        }
        XCTAssertEqual(wrong, [], file: file, line: line)
    }

    func ids(_ name: String, version: Int) throws -> [Int] {
        try stations(version: version).filter { $0.value.name == name && $0.value.enabled }.map(\.key).sorted()
    }

    /// The `id`s of 有楽町 and 新橋 swapped in station.csv: the s_ids follow the stations, by name and place.
    func testSwappedIDsMoveNoRecord() async throws {
        try edit("station.csv") { f in
            var f = f
            if f[1] == "1259" { f[1] = "1302" } else if f[1] == "1302" { f[1] = "1259" }
            return f
        }
        let report = try await pipeline().publish()
        XCTAssertNotEqual(report.outcome, .refused, "\(report.guards)")
        XCTAssertEqual(report.identity?.undecided ?? [], [])
        let latest = try XCTUnwrap(PublishedBundle.latest(in: dist)).version
        XCTAssertEqual(try ids("新橋", version: latest), try ids("新橋", version: 1))
        XCTAssertEqual(try ids("有楽町", version: latest), try ids("有楽町", version: 1))
        XCTAssertEqual(try ids("新橋", version: 1).count, 4)
        try assertNoStationIDNamesAnotherStation()
        // The registry follows: 新橋's s_ids are now under the id the upstream gives 新橋.
        let registry = try Registry.load(path: raw + "/registry.csv")
        for id in try ids("新橋", version: 1) { XCTAssertTrue(registry.keys(.station, id)!.contains { $0.hasPrefix("station_database:station:1302:") }, "s_id \(id)") }
    }

    /// 新橋 deleted and its `id` given to 田町: 田町 keeps its s_id, 新橋's retire.
    func testAnIDGivenToAnotherStationMovesNoRecord() async throws {
        try edit("station.csv") { f in
            if f[1] == "1259" { return nil }
            var f = f
            if f[1] == "1304" { f[1] = "1259" }
            return f
        }
        try edit("register.csv") { $0[0] == "1130102" ? nil : $0 }
        let shinbashi = try ids("新橋", version: 1), tamachi = try ids("田町", version: 1)
        let report = try await pipeline().publish()
        XCTAssertEqual(report.outcome, .published, "\(report.guards)")
        XCTAssertEqual(try ids("田町", version: 2), tamachi)
        XCTAssertEqual(try ids("新橋", version: 2), [])
        let now = try stations(version: 2)
        for id in shinbashi { XCTAssertEqual(now[id]?.name, "新橋"); XCTAssertEqual(now[id]?.enabled, false) }
        // Retired; JR東日本's named as an orphan of 田町 too, where the source's id now points
        // (田町 keeps its own s_id, so no row is suggested): the maintainer sees the id moved.
        let gone = report.identity!.entries.filter { $0.kind == .retired || $0.kind == .orphaned }
        XCTAssertEqual(Set(gone.map(\.stationID)), Set(shinbashi))
        XCTAssertTrue(gone.allSatisfy { $0.kind == .retired || $0.successor.map { tamachi.contains($0) } == true && $0.decision == nil }, "\(gone)")
        try assertNoStationIDNamesAnotherStation()
    }

    /// A new operator's station where 神岡鉄道's 奥飛騨温泉口 (s_id 7731) closed in 2006: a new s_id;
    /// the closed one stays closed, under its own operator.
    func testANewOperatorAtAClosedStationGetsANewID() async throws {
        let closed = try XCTUnwrap(try stations(version: 1)[7731])
        XCTAssertEqual(closed.name, "奥飛騨温泉口")
        XCTAssertFalse(closed.enabled)
        try (try String(contentsOfFile: release + "/company.csv", encoding: .utf8) + "999,99,飛騨ガッタンゴ,ヒダガッタンゴ,NPO法人神岡・町づくりネットワーク,ガッタンゴ,NULL,0,0\n")
            .write(toFile: release + "/company.csv", atomically: true, encoding: .utf8)
        try (try String(contentsOfFile: release + "/line.csv", encoding: .utf8) + "99999,9999,ガッタンゴ線,がったんごせん,NULL,1,999,NULL,NULL,0,NULL\n")
            .write(toFile: release + "/line.csv", atomically: true, encoding: .utf8)
        try (try String(contentsOfFile: release + "/station.csv", encoding: .utf8)
             + "9999901,99991,奥飛騨温泉口,奥飛騨温泉口,おくひだおんせんぐち,36.319349,137.306931,21,506-1111,岐阜県飛騨市神岡町東雲,0,2026-04-01,NULL,heat\n")
            .write(toFile: release + "/station.csv", atomically: true, encoding: .utf8)
        try (try String(contentsOfFile: release + "/register.csv", encoding: .utf8) + "9999901,99999,1,NULL\n")
            .write(toFile: release + "/register.csv", atomically: true, encoding: .utf8)
        let report = try await pipeline().publish()
        XCTAssertEqual(report.outcome, .published, "\(report.guards)")
        let now = try stations(version: 2)
        XCTAssertEqual(now[7731]?.enabled, false, "the closed s_id stays closed")
        XCTAssertEqual(now[7731]?.operatorID, closed.operatorID)
        let opened = try XCTUnwrap(now.first { $0.value.name == "奥飛騨温泉口" && $0.value.enabled })
        XCTAssertGreaterThan(opened.key, try stations(version: 1).keys.max()!, "a new s_id")
        try assertNoStationIDNamesAnotherStation()
    }

    /// A fix of the wrong station: it renames 新橋 (s_id 1274) 田町 and moves it onto 田町, 2.5 km
    /// away. The s_id would name another station: refused, FORCE_PUBLISH too, until decided;
    /// a decision that names another station than the version has keeps it refused.
    func testAFixThatHandsAnIDToAnotherStationWaitsForADecision() async throws {
        try ("action,table,match,field,value,expect,note\nset,stations,s_id=1274,station,田町,station=新橋,a fix\n"
             + "move,stations,s_id=1274,,35.645736 139.747575,station=田町,a fix\n").write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
        let before = try folderDigests(dist)
        for force in [false, true] {
            let report = try await pipeline(force: force).publish()
            XCTAssertEqual(report.outcome, .refused)
            XCTAssertEqual(report.identity?.undecided.map(\.stationID), [1274])
            XCTAssertEqual(report.identity?.undecided.first?.reason, "another name 2483 m away")
        }
        XCTAssertEqual(try folderDigests(dist), before)
        let decisions = raw + "/identity.csv"
        try "s_id,decision,expect,note\n1274,same,station=有楽町,a mistaken decision\n".write(toFile: decisions, atomically: true, encoding: .utf8)
        do {
            _ = try await pipeline().plan()
            XCTFail("a decision for another station than the run gives is bad input")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/identity.csv:2: expect"])
        }
        try "s_id,decision,expect,note\n1274,same,station=田町,moved and renamed on purpose\n".write(toFile: decisions, atomically: true, encoding: .utf8)
        let decided = try await pipeline().publish()
        XCTAssertEqual(decided.outcome, .published, "\(decided.guards)")
        XCTAssertEqual(decided.identity?.entries.first { $0.stationID == 1274 }?.decided, "same")
        XCTAssertEqual(try stations(version: 2)[1274]?.name, "田町")
        // The decision and the fix hold on the next runs: the fix explains the published row.
        try "action,table,match,field,value,expect,note\nset,stations,s_id=1274,station,田町,,a fix\nmove,stations,s_id=1274,,35.645736 139.747575,,a fix\n"
            .write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
        let again = try await pipeline().plan()
        XCTAssertEqual(again.report.outcome, .unchanged, "\(again.report.guards)")
        // A decision that retires an s_id a fix still changes is an error at its line.
        try "s_id,decision,expect,note\n1274,new,station=田町,retire it\n".write(toFile: decisions, atomically: true, encoding: .utf8)
        do {
            _ = try await pipeline().plan()
            XCTFail("a fix of an s_id the decisions retire is bad input")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/identity.csv:2: decision"])
        }
    }

    /// Three neighbouring tram stops of 長崎電気軌道 (100 to 170 m apart), each shifted 120 m east
    /// and renamed (口 added), with their upstream ids changed too, or kept: no s_id passes to a
    /// neighbour. With its id each stop keeps its s_id, renamed; without, each s_id is named
    /// as the orphan of its own stop.
    func testStopsShiftedAndRenamedTogetherMoveNoRecordToANeighbour() async throws {
        let stops = ["8946": "新地中華街", "8947": "西浜町", "8948": "観光通"]
        let before = try stations(version: 1).filter { stops.values.contains($0.value.name) && $0.value.enabled }
        XCTAssertEqual(before.count, 3)
        for keepIDs in [false, true] {
            if keepIDs {
                Files.remove(folder)
                try await setUp()
            }
            try edit("station.csv") { f in
                guard stops[f[1]] != nil else { return f }
                var f = f
                f[2] += "口"
                f[3] += "口"
                f[6] = String(format: "%.6f", Double(f[6])! + 120 / (111_320 * cos(Double(f[5])! * .pi / 180)))
                if !keepIDs { f[1] = String(Int(f[1])! + 200_000) }
                return f
            }
            let plan = try await pipeline().plan()
            XCTAssertEqual(plan.report.identity?.undecided ?? [], [], "keep ids \(keepIDs)")
            let forced = try await pipeline(force: true).publish()
            XCTAssertEqual(forced.outcome, .published)
            let now = try stations(version: 2)
            for (id, s) in before {
                if keepIDs {
                    XCTAssertEqual(now[id]?.name, s.name + "口", "s_id \(id) \(s.name): its id, its line and a variant of its name")
                    continue
                }
                // No id: a variant of the name 120 m away is not proof (the history has none that
                // was one station), so the s_id retires, named as the orphan of its own stop.
                let orphan = try XCTUnwrap(forced.identity?.orphans.first { $0.stationID == id }, "s_id \(id) \(s.name)")
                XCTAssertEqual(orphan.successor.flatMap { now[$0]?.name }, s.name + "口", "s_id \(id) \(s.name)")
            }
            try assertNoStationIDNamesAnotherStation()
        }
    }

    /// A closed line reopened by another operator, its stations in order (神岡鉄道's closed
    /// 神岡大橋 and 奥飛騨温泉口, s_ids 7730 and 7731, on a JR東海 line first closed, then open):
    /// the line continues, so its stations keep their s_ids, transferred, as the apps' master
    /// keeps 山田線's under 三陸鉄道 (a lone new station there is another: the test above).
    func testAClosedLineReopenedByAnotherOperatorKeepsItsStations() async throws {
        let closed = try stations(version: 1).filter { [7730, 7731].contains($0.key) }
        XCTAssertEqual(closed.values.map(\.enabled), [false, false])
        func addLine(open: Bool) throws {
            try edit("line.csv") { $0[0] == "99999" ? nil : $0 }
            try edit("station.csv") { ["99991", "99992"].contains($0[1]) ? nil : $0 }
            try edit("register.csv") { ["9999901", "9999902"].contains($0[0]) ? nil : $0 }
            let closedFlag = open ? "0" : "1"
            try (try String(contentsOfFile: release + "/line.csv", encoding: .utf8) + "99999,99999,JR神岡線,じぇいあーるかみおかせん,NULL,2,3,NULL,NULL,\(closedFlag),NULL\n")
                .write(toFile: release + "/line.csv", atomically: true, encoding: .utf8)
            try (try String(contentsOfFile: release + "/station.csv", encoding: .utf8)
                 + "9999901,99991,神岡大橋,神岡大橋,かみおかおおはし,36.323998,137.300685,21,506-1100,飛騨市神岡町,\(closedFlag),NULL,NULL,heat\n"
                 + "9999902,99992,奥飛騨温泉口,奥飛騨温泉口,おくひだおんせんぐち,36.319349,137.306931,21,506-1111,飛騨市神岡町,\(closedFlag),NULL,NULL,heat\n")
                .write(toFile: release + "/station.csv", atomically: true, encoding: .utf8)
            try (try String(contentsOfFile: release + "/register.csv", encoding: .utf8) + "9999901,99999,1,NULL\n9999902,99999,2,NULL\n")
                .write(toFile: release + "/register.csv", atomically: true, encoding: .utf8)
        }
        try addLine(open: false)
        let second = try await pipeline(force: true).publish()
        XCTAssertEqual(second.outcome, .published)
        try addLine(open: true)
        let third = try await pipeline(force: true).publish()
        XCTAssertEqual(third.outcome, .published)
        XCTAssertEqual(third.identity?.undecided ?? [], [])
        let now = try stations(version: 3), jrTokai = try XCTUnwrap(now.values.first { $0.name == "飛騨古川" && $0.enabled }?.operatorID)
        for (id, s) in closed {
            XCTAssertEqual(now[id]?.enabled, true, "s_id \(id)")
            XCTAssertEqual(now[id]?.name, s.name, "s_id \(id)")
            XCTAssertEqual(now[id]?.operatorID, jrTokai, "s_id \(id) is JR東海's now")
        }
    }

    /// An older release copied into raw/ (v20260227 over the published v20260529's raw/): plan
    /// and publish refuse it as fetch does (bad input, naming the source), the dist untouched;
    /// told to take it, the run goes on to the guards.
    func testAnOlderReleaseInRawIsRefusedUnlessAllowed() async throws {
        Files.remove(release)
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabaseEarlier, toPath: release)
        let before = try folderDigests(dist)
        for publish in [false, true] {
            do {
                _ = publish ? try await pipeline(force: true).publish() : try await pipeline(force: true).plan().report
                XCTFail("an older release is refused (publish \(publish))")
            } catch let e as StationError {
                XCTAssertEqual(e.kind, .badInput)
                XCTAssertEqual(e.diagnostics.map(\.location.file), ["station_database"])
            }
        }
        XCTAssertEqual(try folderDigests(dist), before)
        var settings = PublishSettings(raw: raw, build: folder + "/build", dist: dist)
        settings.allowOlderRelease = true
        let plan = try await Pipeline(settings).plan()
        XCTAssertEqual(plan.report.releases.map(\.description), ["station_database v20260529 -> v20260227"])
    }

    /// A decision a version applied is history: the upstream renaming its station again
    /// (観光通 to 観光通り, decided, then back) neither breaks the run nor reopens the question;
    /// a decision whose `expect` never matched any station is an error at its line.
    func testADecisionAVersionAppliedDoesNotGoStale() async throws {
        func rename(_ name: String) throws { try edit("station.csv") { f in guard f[1] == "8948" else { return f }; var f = f; (f[2], f[3]) = (name, name); return f } }
        let id = try XCTUnwrap(try ids("観光通", version: 1).first)
        try rename("観光通り")
        try "s_id,decision,expect,note\n\(id),same,station=観光通り,the stop renamed\n".write(toFile: raw + "/identity.csv", atomically: true, encoding: .utf8)
        let decided = try await pipeline(force: true).publish()
        XCTAssertEqual(decided.outcome, .published, "\(decided.guards)")
        XCTAssertEqual(try Registry.load(path: raw + "/registry.csv").decision(station: id), "same station=観光通り")
        try rename("観光通")
        let back = try await pipeline(force: true).publish()
        XCTAssertEqual(back.outcome, .published, "\(back.guards)")
        XCTAssertEqual(back.identity?.undecided ?? [], [])
        XCTAssertEqual(try stations(version: 3)[id]?.name, "観光通")
        try "s_id,decision,expect,note\n\(id),same,station=出島口,no such stop\n".write(toFile: raw + "/identity.csv", atomically: true, encoding: .utf8)
        do {
            _ = try await pipeline().plan()
            XCTFail("a decision that never matched is bad input")
        } catch let e as StationError where e.kind == .badInput {
            XCTAssertEqual(e.diagnostics.map { "\($0.location)" }, ["raw/identity.csv:2: expect"])
        }
    }

    /// The upstream deletes 秋葉原 and gives 神田's id the name 秋葉原, where 神田 stands (862 m
    /// from 秋葉原): 神田's s_id stays with its station, renamed (its id, its place); 秋葉原's
    /// retires, named as the orphan of the station that took its name, and no row is suggested:
    /// a merge folds rows of one place, and 神田 is not 秋葉原's. No record moves.
    func testANameTakenFromARetiredStationMovesNoRecord() async throws {
        try edit("station.csv") { f in
            if f[1] == "1300" { return nil }
            var f = f
            if f[1] == "1301" { f[2] = "秋葉原"; f[3] = "秋葉原" }
            return f
        }
        try edit("register.csv") { $0[0] == "1130222" ? nil : $0 }
        let report = try await pipeline(force: true).publish()
        XCTAssertEqual(report.outcome, .published, "\(report.guards)")
        let orphan = try XCTUnwrap(report.identity?.orphans.first { $0.stationID == 1315 })
        XCTAssertEqual(orphan.successor, 1316)
        XCTAssertNil(orphan.decision)
        XCTAssertEqual(try stations(version: 2)[1316]?.name, "秋葉原")
        XCTAssertEqual(try stations(version: 2)[1315]?.enabled, false)
        try assertNoStationIDNamesAnotherStation()
    }

    /// 新橋 keeps its upstream id and becomes 新田町, 2.5 km away: nothing but the id says it is
    /// the same station, so its s_ids retire, listed as orphaned: the id names the new one.
    /// Named, not refused: only two candidates competing wait for a decision.
    func testAnIDThatAloneLinksTwoStationsIsAnOrphan() async throws {
        try edit("station.csv") { f in
            guard f[1] == "1259" else { return f }
            var f = f
            (f[2], f[3], f[5], f[6]) = ("新田町", "新田町", "35.645736", "139.747575")
            return f
        }
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.identity?.undecided ?? [], [])
        let orphans = try XCTUnwrap(plan.report.identity?.orphans)
        XCTAssertEqual(Set(orphans.map(\.stationID)), Set(try ids("新橋", version: 1)))
        XCTAssertTrue(orphans.allSatisfy { $0.reason?.hasSuffix("the source's id names it") ?? false }, "\(orphans.map(\.reason))")
    }

    /// Every station renamed: each keeps its s_id (its key, its place), and the rename guard
    /// refuses the version; FORCE_PUBLISH publishes it.
    func testEveryStationRenamedIsRefusedUntilForced() async throws {
        try edit("station.csv") { f in var f = f; f[3] = f[3] + "新"; return f }
        let before = try folderDigests(dist)
        let refused = try await pipeline().publish()
        XCTAssertEqual(refused.outcome, .refused)
        XCTAssertTrue(refused.guards.violations.contains { $0.contains("--max-renamed") }, "\(refused.guards.violations)")
        XCTAssertEqual(refused.guards.undecided, [])
        XCTAssertEqual(try folderDigests(dist), before, "the dist is untouched")
        let forced = try await pipeline(force: true).publish()
        XCTAssertEqual(forced.outcome, .published)
        let was = try stations(version: 1), now = try stations(version: 2)
        for (id, s) in was where s.enabled && now[id]?.enabled == true { XCTAssertEqual(now[id]?.name, s.name + "新", "s_id \(id)") }
        let renamed = was.count { $0.value.name != now[$0.key]?.name }
        XCTAssertGreaterThan(renamed, 9_000)
        XCTAssertEqual(forced.identity?.entries.count { $0.kind == .renamed }, renamed)
        XCTAssertEqual(forced.identity?.undecided ?? [], [])
    }

    /// Every station moved 460 m (another datum): each keeps its s_id (its name), and the
    /// guard on moves over 300 m refuses the version; FORCE_PUBLISH publishes it.
    func testEveryStationMovedIsRefusedUntilForced() async throws {
        try edit("station.csv") { f in
            var f = f
            f[5] = String(format: "%.6f", Double(f[5])! + 0.00414)
            return f
        }
        let refused = try await pipeline().publish()
        XCTAssertEqual(refused.outcome, .refused)
        XCTAssertTrue(refused.guards.violations.contains { $0.contains("--max-moved-far") }, "\(refused.guards.violations)")
        XCTAssertEqual(refused.guards.undecided, [])
        let forced = try await pipeline(force: true).publish()
        XCTAssertEqual(forced.outcome, .published)
        let was = try stations(version: 1), now = try stations(version: 2)
        for (id, s) in was where s.enabled { XCTAssertEqual(now[id]?.name, s.name, "s_id \(id)") }
        try assertNoStationIDNamesAnotherStation()
    }
}

/// A native master's own s_ids (the apps' master) that would name other stations: refused,
/// FORCE_PUBLISH or not, until raw/identity.csv holds the maintainer's decision; and a
/// station renumbered in the master, which orphans its s_id.
final class MasterIdentityTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var dist: String { folder + "/dist" }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("master-identity-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    func pipeline(force: Bool = false) -> Pipeline {
        Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist, force: force))
    }

    /// stations.csv with each row passed through `body` (nil drops it), and rows added.
    func editStations(_ body: ([String]) -> [String]?, adding: [String] = []) throws {
        let path = raw + "/stations.csv"
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines.removeFirst()
        let rows = lines.compactMap { body($0.split(separator: ",", omittingEmptySubsequences: false).map(String.init))?.joined(separator: ",") }
        try ([header] + rows + adding).map { $0 + "\n" }.joined().write(toFile: path, atomically: true, encoding: .utf8)
    }

    func writeDecisions(_ rows: String...) throws {
        try ("s_id,decision,expect,note\n" + rows.map { $0 + "\n" }.joined()).write(toFile: raw + "/identity.csv", atomically: true, encoding: .utf8)
    }

    /// The master swaps two stations' s_ids 8 km apart: each s_id would name the other station.
    func testSwappedSIDsInAMasterWaitForADecision() async throws {
        _ = try await pipeline().publish()
        let rows = try String(contentsOfFile: raw + "/stations.csv", encoding: .utf8).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let three = rows.first { $0.first == "3" }!, forty = rows.first { $0.first == "40" }!
        try editStations { f in
            guard f[0] == "3" || f[0] == "40" else { return f }
            var other = f[0] == "3" ? forty : three
            other[0] = f[0]
            return other
        }
        let before = try folderDigests(dist)
        for force in [false, true] {
            let plan = try await pipeline(force: force).plan()
            XCTAssertEqual(plan.report.outcome, .refused, "force \(force)")
            XCTAssertEqual(plan.report.identity?.undecided.map(\.stationID), [3, 40])
            XCTAssertEqual(plan.report.identity?.undecided.first?.decision, "3,same,station=駅40;o_id=1,the same station (another name 8228 m away)")
            let published = try await pipeline(force: force).publish()
            XCTAssertEqual(published.outcome, .refused, "force \(force)")
            XCTAssertEqual(published.exitStatus, .guardRefused)
            XCTAssertEqual(try folderDigests(dist), before, "the dist is untouched")
        }
        try writeDecisions("3,same,station=駅40,the master renumbered them", "40,same,station=駅3,the master renumbered them")
        // Decided, the identities pass; the moves over 5 km and the share renamed are still the guards' to refuse.
        let unforced = try await pipeline().plan()
        XCTAssertEqual(unforced.report.guards.undecided, [])
        XCTAssertEqual(unforced.report.outcome, .refused)
        let decided = try await pipeline(force: true).publish()
        XCTAssertEqual(decided.outcome, .published, "\(decided.guards)")
        XCTAssertEqual(decided.identity?.entries.filter { $0.decided == "same" }.map(\.stationID), [3, 40])
        XCTAssertEqual(decided.identity?.undecided ?? [], [])
    }

    /// The master swaps the s_ids of two neighbouring stations, 222 m apart: each would be
    /// "renamed where it stands" while the other stands where it stood. Refused, forced or not.
    func testNeighboursSwappedInAMasterWaitForADecision() async throws {
        _ = try await pipeline().publish()
        try editStations { f in
            guard f[0] == "1" || f[0] == "2" else { return f }
            var f = f
            f[1] = f[0] == "1" ? "駅2" : "駅1"
            f[6] = f[0] == "1" ? "35.604000" : "35.602000"
            return f
        }
        let plan = try await pipeline(force: true).plan()
        XCTAssertEqual(plan.report.outcome, .refused)
        XCTAssertEqual(plan.report.identity?.undecided.map(\.stationID), [1, 2])
    }

    /// A `merge`: the master drops 駅60's row, its station served from 駅61's now. The decision
    /// retires s_id 60 into 61: the version lists the pair in renumbered_stations (the apps
    /// carry the records over) and publishes s_id 60 no more; the registry keeps it, and the
    /// next version keeps the pair with the version that introduced it.
    func testAMergeDecisionRenumbersTheMergedStation() async throws {
        _ = try await pipeline().publish()
        try editStations { $0[0] == "60" ? nil : $0 }
        let lines = try String(contentsOfFile: raw + "/stations_lines.csv", encoding: .utf8).replacingOccurrences(of: "\n21,60,60\n", with: "\n")
        try lines.write(toFile: raw + "/stations_lines.csv", atomically: true, encoding: .utf8)
        try writeDecisions("60,merge,station=駅61;o_id=2,one station now")
        let merged = try await pipeline(force: true).publish()
        XCTAssertEqual(merged.outcome, .published, "\(merged.guards)")
        let entry = try XCTUnwrap(merged.identity?.entries.first { $0.stationID == 60 })
        XCTAssertEqual(entry.kind, .merged)
        XCTAssertEqual(entry.successor, 61)
        func renumbered(_ version: Int) throws -> [[Int]] {
            let db = try SQLiteDatabase(path: "\(dist)/\(version)/stations.sqlite", mode: .readOnly)
            defer { db.close() }
            return try db.query("SELECT new_s_id, old_s_id, version FROM renumbered_stations").map { $0.map { $0.intValue ?? 0 } }
                + [[try XCTUnwrap(db.scalarInt("SELECT count(*) FROM stations WHERE s_id = 60"))]]
        }
        XCTAssertEqual(try renumbered(2), [[61, 60, 2], [0]])
        XCTAssertTrue(try Registry.load(path: raw + "/registry.csv").contains(.station, 60))
        try editStations { $0[0] == "3" ? { var f = $0; f[1] = "駅3新"; return f }($0) : $0 }
        let next = try await pipeline(force: true).publish()
        XCTAssertEqual(next.outcome, .published, "\(next.guards)")
        XCTAssertEqual(try renumbered(3), [[61, 60, 2], [0]])
    }

    /// The master gives 駅5 a new s_id: the old one retires while its station lives on. A
    /// native master's retirement is its maintainer's word: published as written, the orphan
    /// named with its survivor and the row that would keep it; a `new` records the decision.
    func testARenumberedStationIsAnOrphan() async throws {
        _ = try await pipeline().publish()
        let five = try String(contentsOfFile: raw + "/stations.csv", encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("5,") }!
        try editStations({ $0[0] == "5" ? nil : $0 }, adding: ["500" + five.dropFirst(1)])
        let lines = try String(contentsOfFile: raw + "/stations_lines.csv", encoding: .utf8).replacingOccurrences(of: "\n11,5,5\n", with: "\n11,500,5\n")
        try lines.write(toFile: raw + "/stations_lines.csv", atomically: true, encoding: .utf8)
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        let orphan = try XCTUnwrap(plan.report.identity?.orphans.first)
        XCTAssertEqual(orphan.stationID, 5)
        XCTAssertEqual(orphan.successor, 500)
        XCTAssertEqual(orphan.decision, "5,same,station=駅5;o_id=1,keep the s_id: the same station as s_id 500")
        XCTAssertEqual(plan.report.guards.undecided, [], "a retirement is no move")
        try writeDecisions("5,new,station=駅5,the master gave it s_id 500")
        let decided = try await pipeline().publish()
        XCTAssertEqual(decided.outcome, .published, "\(decided.guards)")
        XCTAssertEqual(decided.identity?.entries.first { $0.stationID == 5 }?.decided, "new")
    }
}

/// The apps' own master (Tests/Fixtures/apps_master.py, from the upstream's v20260227)
/// published, then raw/ switched to the upstream's v20260529 with the same registry, as
/// a maintainer does it: the plan's identity review and the forced publish (issue 34).
final class MasterSwitchPublishTests: XCTestCase {
    func testSwitchingTheAppsMasterToTheUpstreamMovesNoRecord() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("master-switch-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        let raw = folder + "/raw", dist = folder + "/dist"
        let python = try BuiltTools.required("python3", debianPackage: "python3")
        let run = try runWithTimeout(python, [RepositoryData.root + "/Tests/Fixtures/apps_master.py", RepositoryData.stationDatabaseEarlier, raw,
                                              folder + "/truth.csv"], in: RepositoryData.root, timeout: 120)
        XCTAssertEqual(run.status, 0, run.err)
        func pipeline(force: Bool = false) -> Pipeline { Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: dist, force: force)) }
        let first = try await pipeline().publish()
        XCTAssertEqual(first.outcome, .published)

        for name in NativeMaster.files { Files.remove(raw + "/" + name) }
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase, toPath: raw + "/station_database")
        try FileManager.default.copyItem(atPath: RepositoryData.raw + "/sources.json", toPath: raw + "/sources.json")
        let plan = try await pipeline().plan()
        let identity = try XCTUnwrap(plan.report.identity)
        XCTAssertEqual(identity.undecided, [], "no s_id would name another station")
        let v1 = try SQLiteDatabase(path: dist + "/1/stations.sqlite", mode: .readOnly)
        let live = try XCTUnwrap(try v1.scalarInt("SELECT count(*) FROM stations WHERE enabled = 1"))
        v1.close()
        XCTAssertLessThanOrEqual(Double(identity.orphans.count), 0.001 * Double(live), "orphans: \(identity.orphans.map(\.name))")
        // The names are written another way (東京駅 is 東京): the rename guard asks for a look.
        XCTAssertEqual(plan.report.outcome, .refused)
        XCTAssertTrue(plan.report.guards.violations.contains { $0.contains("--max-renamed") })
        let forced = try await pipeline(force: true).publish()
        XCTAssertEqual(forced.outcome, .published)
        XCTAssertEqual(forced.identity?.undecided ?? [], [])
    }
}

/// The four files of a native master (docs/sources.md §1).
enum NativeMaster {
    static let files = ["operators.csv", "lines.csv", "stations.csv", "stations_lines.csv"]
}
