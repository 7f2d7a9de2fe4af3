import BuildDB
import Ingest
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// The maintainer's loop through the library: plan (nothing written but build/),
/// then publish (the planned bytes), on a small native master.
final class PlanTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var build: String { folder + "/build" }
    var dist: String { folder + "/dist" }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("plan-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    func pipeline(force: Bool = false) -> Pipeline {
        Pipeline(PublishSettings(raw: raw, build: build, dist: dist, force: force))
    }

    func writeFixes(_ rows: String...) throws {
        try ("action,table,match,field,value,expect,note\n" + rows.map { $0 + "\n" }.joined()).write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
    }

    func inode(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    /// raw/registry.csv with one name edited by hand (its keys kept): plan exited 5, blaming a
    /// publish that exited 5, while publish said nothing changed and left the edit. Both refuse
    /// it alike (exit 2): the row that differs from the published registry, and how to put it back.
    func testARegistryEditedByHandIsSaidAlikeByPlanAndPublish() async throws {
        _ = try await pipeline().publish()
        let registry = try String(contentsOfFile: raw + "/registry.csv", encoding: .utf8)
        try registry.replacingOccurrences(of: ",駅7,", with: ",駅七,").write(toFile: raw + "/registry.csv", atomically: true, encoding: .utf8)
        let line = (registry.split(separator: "\n").firstIndex { $0.contains(",駅7,") } ?? 0) + 1
        var said: [[Diagnostic]] = []
        for run in [{ _ = try await self.pipeline().plan() }, { _ = try await self.pipeline().publish() }] as [() async throws -> Void] {
            do {
                try await run()
                XCTFail("the edit was taken")
            } catch {
                said.append(error.station(.badInput)?.diagnostics ?? [])
            }
        }
        XCTAssertEqual(said.first, said.last, "plan and publish say the same")
        XCTAssertEqual(said.first?.first?.location, SourceLocation(file: raw + "/registry.csv", line: line, field: "name"))
        XCTAssertTrue(said.first?.last?.message.contains("cp \(dist)/1/registry.csv \(raw)/registry.csv") ?? false, "\(said)")
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 1)
        // Put back, nothing changed.
        try registry.write(toFile: raw + "/registry.csv", atomically: true, encoding: .utf8)
        let again = try await pipeline().publish()
        XCTAssertEqual(again.outcome, .unchanged)
    }

    /// What a plan prepared is published only while it is what would be published:
    /// another version in between, or a file of it changed, and it is made again.
    func testAStaleOrChangedCandidateIsMadeAgain() async throws {
        _ = try await pipeline().publish()
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,")
        _ = try await pipeline().plan()
        // Damaged after the plan: the publish makes it again, and what goes out is whole.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: build + "/staging.bin.candidate/stations.sqlite"))
        handle.seek(toFileOffset: 100)
        handle.write(Data([0x42]))
        handle.closeFile()
        let damaged = try SHA256.hex(fileAt: build + "/staging.bin.candidate/stations.sqlite")
        let published = try await pipeline().publish()
        XCTAssertEqual(published.outcome, .published)
        XCTAssertNotEqual(try SHA256.hex(fileAt: dist + "/2/stations.sqlite"), damaged, "the damaged file is not what goes out")
        let manifest = try PublishedBundle.read(path: dist + "/2/manifest.json")
        for (name, digest) in manifest.files ?? [:] { XCTAssertEqual(try SHA256.hex(fileAt: dist + "/2/" + name), digest, name) }

        // Planned against version 2, published after a version 3 came in between: made again against 3.
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=61,yomi,えきろくじゅういち,,")
        let plan3 = try await pipeline().plan()
        XCTAssertEqual(plan3.report.version, 3)
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=62,yomi,えきろくじゅうに,,")
        _ = try await pipeline().publish()
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 3)
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=61,yomi,えきろくじゅういち,,")
        let fourth = try await pipeline().publish()
        XCTAssertEqual(fourth.version, 4)
        let database = try SQLiteDatabase(path: dist + "/4/stations.sqlite", mode: .readOnly)
        XCTAssertEqual(try database.userVersion, 4, "the plan's version 3 is made again as version 4, not published as it was")
        database.close()
    }

    /// With versions 1 to 3 in dist and latest.json gone, plan said "version 4 would be
    /// published (against nothing published yet)" and a publish went out with no guard
    /// against version 3. Version folders without latest.json are a damaged dist (exit 3),
    /// and the message says how to restore it; nothing is written.
    func testVersionFoldersWithoutLatestAreADamagedDist() async throws {
        _ = try await pipeline().publish()
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,")
        _ = try await pipeline().publish()
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 2)
        try FileManager.default.removeItem(atPath: dist + "/latest.json")
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=61,yomi,えきろくじゅういち,,")
        let before = try published()
        for run in [{ _ = try await self.pipeline().plan() }, { _ = try await self.pipeline().publish() }] {
            do {
                try await run()
                XCTFail("expected a damaged dist")
            } catch let error as StationError where error.kind == .damaged {
                XCTAssertEqual(error.diagnostics.first?.location.file, dist + "/latest.json", "\(error)")
                for words in ["missing", "version folders 1, 2", "copy the latest.json the web server serves", "stationdb verify"] {
                    XCTAssertTrue("\(error)".contains(words), "\(words): \(error)")
                }
            }
            XCTAssertEqual(try published(), before, "dist/ and raw/ are as they were")
        }

        // A first publish killed between its folder's rename and latest.json left a folder no
        // one was told of: that is no damage, and its number is skipped.
        let fresh = folder + "/fresh"
        try FileManager.default.createDirectory(atPath: fresh, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: dist + "/1", toPath: fresh + "/1")
        let first = try await Pipeline(PublishSettings(raw: raw, build: build, dist: fresh)).publish()
        XCTAssertEqual(first.version, 2)
    }

    /// A change to raw/CREDITS.md alone was never published: the tables were equal, so
    /// nothing changed, and the attribution CC BY-SA asks for stayed stale until the next
    /// change of the data. The credits (and the licence latest.json names) are part of what
    /// a version publishes: a change to them alone is a new version, the same tables.
    func testACreditsChangeAloneIsPublished() async throws {
        try "Data: the small network, CC BY-SA 4.0\n".write(toFile: raw + "/CREDITS.md", atomically: true, encoding: .utf8)
        _ = try await pipeline().publish()
        try "Data: the small network, by its maintainers, CC BY-SA 4.0\n".write(toFile: raw + "/CREDITS.md", atomically: true, encoding: .utf8)
        let (plan, events) = try await Events.collect { try await self.pipeline().plan() }
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        XCTAssertEqual(plan.report.version, 2)
        XCTAssertTrue(events.contains { ($0 as? AttributionChanged) == AttributionChanged(credits: true, license: false) }, "\(events)")
        let published = try await pipeline().publish()
        XCTAssertEqual(published.outcome, .published)
        XCTAssertEqual(try String(contentsOfFile: dist + "/2/CREDITS.md", encoding: .utf8), "Data: the small network, by its maintainers, CC BY-SA 4.0\n")
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.credits, "2/CREDITS.md")
        let difference = try BundleDifference.between(oldPath: dist + "/1/stations.sqlite", newPath: dist + "/2/stations.sqlite")
        XCTAssertTrue(difference.isEmpty, "the same tables")
        // A pull from 1 applies its patch, which changes nothing but the version.
        XCTAssertEqual(try String(contentsOfFile: dist + "/2/patch-from-1.sql", encoding: .utf8), "PRAGMA user_version = 2;\n")
        // And nothing more to publish after it.
        let again = try await pipeline().plan()
        XCTAssertEqual(again.report.outcome, .unchanged)
    }

    /// A fix that re-enabled a station the sources no longer give published a live station
    /// on no line, without a word: the apps show its pin but list it under no line. The run
    /// warns at the fix's line, and `make lint` lists it (rule no-line).
    func testAFixEnablingAStationOnNoLineIsWarnedOf() async throws {
        _ = try await pipeline().publish()
        // The source drops station 7 (and its place on the line): it is kept, disabled.
        let stations = try String(contentsOfFile: raw + "/stations.csv", encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("7,") }
        try (stations.joined(separator: "\n") + "\n").write(toFile: raw + "/stations.csv", atomically: true, encoding: .utf8)
        let lines = try String(contentsOfFile: raw + "/stations_lines.csv", encoding: .utf8).split(separator: "\n").filter { $0 != "11,7,7" }
        try (lines.joined(separator: "\n") + "\n").write(toFile: raw + "/stations_lines.csv", atomically: true, encoding: .utf8)
        try writeFixes("enable,stations,s_id=7,,,station=駅7,brought back")
        let (plan, events) = try await Events.collect { try await self.pipeline().plan() }
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        let warnings = events.compactMap { ($0 as? StationCore.Warning)?.diagnostic }.filter { $0.location.file.hasSuffix("fixes.csv") }
        XCTAssertEqual(warnings.map(\.location.line), [2], "\(events)")
        XCTAssertTrue(warnings.first?.message.contains("s_id 7 駅7") ?? false, "\(warnings)")
        XCTAssertTrue(warnings.first?.message.contains("on no line") ?? false, "\(warnings)")
        let lint = try await Lint.run(IngestOptions(rawFolder: raw), handWeights: nil)
        XCTAssertEqual(lint.findings.filter { $0.rule == LintRule.noLine.rawValue }.map(\.line), [2])

        // Given a line again, it is no news.
        try SmallNetwork.write(to: raw)
        let (_, again) = try await Events.collect { try await self.pipeline().plan() }
        XCTAssertFalse(again.contains { ($0 as? StationCore.Warning)?.diagnostic.location.file.hasSuffix("fixes.csv") ?? false }, "\(again)")
    }

    func modified(_ path: String) throws -> Date {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
    }

    /// dist/ and raw/, every file by digest: what a plan must leave as it was.
    func published() throws -> [String: String] {
        try folderDigests(dist).mapKeys { "dist/" + $0 }.merging(try folderDigests(raw).mapKeys { "raw/" + $0 }) { a, _ in a }
    }

    func testPlanWritesNothingButBuildAndPublishTakesThePlannedBytes() async throws {
        var plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        XCTAssertEqual(plan.report.exitStatus, .differences)
        XCTAssertEqual(plan.report.version, 1)
        XCTAssertNil(plan.report.baseline)
        XCTAssertFalse(Files.exists(dist), "a plan creates no dist")
        XCTAssertFalse(Files.exists(raw + "/registry.csv"), "a plan writes nothing into raw/")
        let first = try await pipeline().publish()
        XCTAssertEqual(first.outcome, .published)
        XCTAssertEqual(first.version, 1)

        // Station 5 onto station 45's line (~2.2 km), station 7 renamed.
        try writeFixes("move,stations,s_id=5,,35.610000 139.720000,station=駅5,resurveyed",
                       "set,stations,s_id=7,station,新駅7,station=駅7,renamed")
        let before = try published()
        plan = try await pipeline().plan()
        XCTAssertEqual(try published(), before, "dist/ and raw/ byte for byte as they were")
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        XCTAssertEqual(plan.report.version, 2)
        XCTAssertEqual(plan.report.baseline?.version, 1)
        XCTAssertTrue(plan.report.guards.passed)
        let moved = try XCTUnwrap(plan.changes?.entries("stations", .moved).first)
        XCTAssertEqual(moved.id, 5)
        XCTAssertEqual(moved.name, "駅5 (東日本旅客鉄道)")
        XCTAssertGreaterThan(moved.metres ?? 0, 1_000)
        XCTAssertEqual(plan.changes?.entries("stations", .renamed).map(\.id), [7])
        XCTAssertEqual(Set(plan.changes?.notable.map(\.id) ?? []), [5, 7], "every move over 1 km and every rename is for a second look")
        XCTAssertEqual(plan.report.changes["stations"]?["moved"], 1)
        // The map of what the apps would show, the candidate against the published version.
        XCTAssertEqual(plan.preview, build + "/preview.html")
        let page = try String(contentsOfFile: build + "/preview.html", encoding: .utf8)
        XCTAssertTrue(page.contains("新駅7"), "the candidate's names are in the page")

        let candidate = try folderDigests(build + "/staging.bin.candidate")
        let planned = try inode(build + "/staging.bin.candidate/stations.sqlite")
        let staging = try modified(build + "/staging.bin"), weights = try modified(build + "/weights.csv")
        let second = try await pipeline().publish()
        XCTAssertEqual(second.outcome, .published)
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(try folderDigests(dist + "/2"), candidate, "the very files the plan prepared")
        XCTAssertEqual(try inode(dist + "/2/stations.sqlite"), planned, "moved into dist, not made again")
        XCTAssertEqual(try modified(build + "/staging.bin"), staging, "ingest was not redone")
        XCTAssertEqual(try modified(build + "/weights.csv"), weights, "priority was not redone")

        plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .unchanged)
        XCTAssertEqual(plan.report.exitStatus, .success)
        XCTAssertEqual(plan.report.version, 2)
    }

    func testAGuardWouldRefuseAndThePublishDoesRefuse() async throws {
        _ = try await pipeline().publish()
        // 10 of 100 stations disabled: over the nightly's 2%.
        try writeFixes((1...10).map { "disable,stations,s_id=\($0),,,," }.joined(separator: "\n"))
        let before = try published()
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .refused)
        XCTAssertEqual(plan.report.exitStatus, .guardRefused)
        XCTAssertFalse(plan.report.guards.passed)
        XCTAssertEqual(plan.report.guards.violations.count, 1)
        XCTAssertEqual(plan.report.changes["stations"]?["disabled"], 10)
        let refused = try await pipeline().publish()
        XCTAssertEqual(refused.outcome, .refused)
        XCTAssertEqual(try published(), before, "a refused publish leaves dist/ and raw/ as they were")
        // A forced plan plans: it said "published anyway" of a version it had not published.
        let forcedPlan = try await pipeline(force: true).plan().report
        XCTAssertEqual(forcedPlan.outcome, .wouldPublish)
        for format in [RunReport.Format.text, .markdown] {
            let rendered = try forcedPlan.render(format).replacingOccurrences(of: "would be published anyway", with: "")
            XCTAssertFalse(rendered.contains("published anyway"), rendered)
        }
        let forced = try await pipeline(force: true).publish()
        XCTAssertEqual(forced.outcome, .published)
        XCTAssertTrue(forced.guards.forced)
        XCTAssertEqual(forced.version, 2)
    }

    func testAPlanAgainstTheServedDistReportsWhatTheLocalOneDoes() async throws {
        _ = try await pipeline().publish()
        try writeFixes("move,stations,s_id=5,,35.610000 139.720000,station=駅5,", "set,stations,s_id=60,yomi,えきろくじゅう,,")
        let server = try StaticServer(root: dist)
        let local = try await pipeline().plan()
        let remote = try await pipeline().plan(against: .url(server.baseURL))
        XCTAssertEqual(remote.report.baseline?.source, server.baseURL)
        XCTAssertEqual(remote.report.baseline?.version, local.report.baseline?.version)
        XCTAssertEqual(remote.report.baseline?.sha256, local.report.baseline?.sha256)
        XCTAssertEqual(remote.report.version, local.report.version)
        XCTAssertEqual(remote.report.outcome, local.report.outcome)
        XCTAssertEqual(remote.report.changes, local.report.changes)
        XCTAssertEqual(remote.changes?.entries, local.changes?.entries)
        XCTAssertFalse(local.changes?.entries.isEmpty ?? true)
        // The version read as the apps read it, and the registry it was published with.
        XCTAssertEqual(try SHA256.hex(fileAt: build + "/baseline/stations.sqlite"), try SHA256.hex(fileAt: dist + "/1/stations.sqlite"))
        XCTAssertEqual(try Files.read(build + "/baseline/registry.csv"), try Files.read(dist + "/1/registry.csv"))
    }

    /// Local dist at 2, the server at 1: `plan --against` named version 2, and the `make`
    /// after it published 3 against the local 2. The plan names the version the next
    /// publish makes, says that the dist is ahead of production, and compares with both:
    /// the changes the apps will see against the served version, the guards against both,
    /// and the candidate is the one the publish after it takes.
    func testAPlanAgainstProductionNamesTheVersionMakePublishesAndComparesWithBoth() async throws {
        _ = try await pipeline().publish()
        let served = folder + "/served"
        try FileManager.default.copyItem(atPath: dist, toPath: served)
        let server = try StaticServer(root: served)
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,")
        _ = try await pipeline().publish()
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=61,yomi,えきろくじゅういち,,")

        let (plan, events) = try await Events.collect { try await self.pipeline().plan(against: .url(server.baseURL)) }
        XCTAssertEqual(plan.report.version, 3, "the version the next publish makes, after the local 2")
        XCTAssertEqual(plan.report.baseline?.version, 1)
        XCTAssertEqual(plan.report.baseline?.source, server.baseURL)
        XCTAssertEqual(plan.report.changes["stations"], ["changed": 2], "what the apps at version 1 will see: both yomi")
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
        let said = events.compactMap { $0 as? PublishEvent }
        XCTAssertTrue(said.contains(.distAhead(dist: dist, versions: [2], url: server.baseURL, served: 1)), "\(said)")
        XCTAssertTrue(said.contains(.againstDist(dist: dist, version: 2, next: 3, changes: "stations +0 -0 ~1, 0 weight changes", violations: [])), "\(said)")
        XCTAssertTrue(try plan.report.render(.text).contains("version 3 would be published (against version 1 of \(server.baseURL))"))

        // The publish after it takes that very candidate, as version 3.
        let (published, publishEvents) = try await Events.collect { try await self.pipeline().publish() }
        XCTAssertEqual(published.version, 3)
        XCTAssertTrue(publishEvents.contains { ($0 as? PublishEvent) == .candidateTaken(version: 3, folder: build + "/staging.bin.candidate") }, "\(publishEvents)")

        // Nothing new since, and version 3 not deployed: nothing would change, against the dist's 3.
        let (same, sameEvents) = try await Events.collect { try await self.pipeline().plan(against: .url(server.baseURL)) }
        XCTAssertEqual(same.report.outcome, .unchanged)
        XCTAssertEqual(same.report.version, 3)
        XCTAssertEqual(same.report.baseline?.source, dist)
        XCTAssertTrue(sameEvents.contains { ($0 as? PublishEvent) == .distAhead(dist: dist, versions: [2, 3], url: server.baseURL, served: 1) }, "\(sameEvents)")

        // A dist that is not on production's line (behind it, or another publication): said, with what to do.
        let behind = folder + "/behind"
        try FileManager.default.createDirectory(atPath: behind, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: served + "/1", toPath: behind + "/1")
        try FileManager.default.copyItem(atPath: served + "/latest.json", toPath: behind + "/latest.json")
        let ahead = try StaticServer(root: dist)
        let (_, offEvents) = try await Events.collect {
            try await Pipeline(PublishSettings(raw: self.raw, build: self.build, dist: behind)).plan(against: .url(ahead.baseURL))
        }
        XCTAssertTrue(offEvents.contains { ($0 as? PublishEvent) == .distOffProduction(dist: behind, version: 1, url: ahead.baseURL, served: 3, next: 2) },
                      "\(offEvents)")

        // No version here at all (a second machine's fresh clone): the plan is a copy's, and said to be.
        let empty = folder + "/empty"
        let (_, emptyEvents) = try await Events.collect {
            try await Pipeline(PublishSettings(raw: self.raw, build: self.build, dist: empty)).plan(against: .url(ahead.baseURL))
        }
        XCTAssertTrue(emptyEvents.contains { ($0 as? PublishEvent) == .distEmpty(dist: empty, url: ahead.baseURL, served: 3) }, "\(emptyEvents)")
    }

    func testALiveLineWithoutStationsIsRefusedAndLintNamesIt() async throws {
        try "l_id,line,o_id,enabled,l_type\n11,山手線,1,1,\n21,銀座線,2,1,\n31,空線,2,1,\n".write(toFile: raw + "/lines.csv", atomically: true, encoding: .utf8)
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .refused, "the first version too: it is the bundle itself that is wrong")
        XCTAssertTrue(plan.report.guards.violations.contains { $0.contains("空線") }, "\(plan.report.guards.violations)")
        let lint = try await Lint.run(IngestOptions(rawFolder: raw), handWeights: nil)
        XCTAssertEqual(lint.findings.filter { $0.rule == LintRule.emptyLine.rawValue }.map(\.field), ["l_id 31"])

        try writeFixes("disable,lines,l_id=31,,,line=空線,no stations yet")
        let fixed = try await pipeline().plan()
        XCTAssertEqual(fixed.report.outcome, .wouldPublish)
        XCTAssertTrue(fixed.report.guards.passed)
    }

    /// An StationError of bad input's locations, for a fixes.csv that must be refused.
    func refusal(_ rows: String...) async throws -> [Diagnostic] {
        try ("action,table,match,field,value,expect,note\n" + rows.map { $0 + "\n" }.joined()).write(toFile: raw + "/fixes.csv", atomically: true, encoding: .utf8)
        do {
            _ = try await pipeline().plan()
            XCTFail("expected bad input")
            return []
        } catch let error as StationError where error.kind == .badInput {
            return error.diagnostics
        }
    }

    func testMistakesInFixesAreErrorsAtTheirLine() async throws {
        // A mistyped but existing s_id: the row is named by what it really is.
        var found = try await refusal("move,stations,s_id=15,,35.6 139.7,station=駅5,")
        XCTAssertEqual(found.map(\.location), [SourceLocation(file: "raw/fixes.csv", line: 2, field: "expect")])
        XCTAssertTrue(found[0].message.contains("駅15"), found[0].message)

        // Two fixes giving one field two values: both lines named.
        found = try await refusal("set,stations,s_id=3,yomi,えきさん,,", "set,stations,s_id=3,yomi,えきみっつ,,")
        XCTAssertEqual(found.map(\.location), [SourceLocation(file: "raw/fixes.csv", line: 3, field: "value")])
        XCTAssertTrue(found[0].message.contains("line 2"), found[0].message)
        found = try await refusal("disable,stations,s_id=3,,,,", "enable,stations,s_id=3,,,,")
        XCTAssertEqual(found.map(\.location.line), [3])
        found = try await refusal("move,stations,s_id=3,,35.6 139.7,,", "move,stations,s_id=3,,35.7 139.7,,")
        XCTAssertEqual(found.map(\.location.line), [3])

        // What a fix makes of its row is checked at its line.
        found = try await refusal("move,stations,s_id=3,,0 0,,")
        XCTAssertEqual(found.map(\.location), [SourceLocation(file: "raw/fixes.csv", line: 2, field: "value")])
        found = try await refusal("set,stations,s_id=3,o_id,9,,")
        XCTAssertEqual(found.map(\.location), [SourceLocation(file: "raw/fixes.csv", line: 2, field: "value")])

        // The same value twice is no conflict.
        try writeFixes("set,stations,s_id=3,yomi,えきさん,,", "set,stations,s_id=3,yomi,えきさん,,")
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .wouldPublish)
    }

    func testAMissingRegistryComesBackFromThePublishedVersion() async throws {
        _ = try await pipeline().publish()
        let registry = try Files.read(raw + "/registry.csv")
        XCTAssertEqual(registry, try Files.read(dist + "/1/registry.csv"))
        unlink(raw + "/registry.csv")
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .unchanged, "the published version's registry gives the same IDs")
        XCTAssertFalse(Files.exists(raw + "/registry.csv"), "a plan only reads it")
        let report = try await pipeline().publish()
        XCTAssertEqual(report.outcome, .unchanged)
        XCTAssertEqual(try Files.read(raw + "/registry.csv"), registry, "restored for the maintainer to commit")
    }

    /// After deleting both raw/registry.csv and dist/1/registry.csv, a publish said
    /// "raw/registry.csv updated (10554 new IDs)": every station under a new s_id. Where a
    /// version is published and no registry can be found, plan and publish refuse (exit 2).
    func testARegistryIsNeverRebuiltFromNothing() async throws {
        _ = try await pipeline().publish()
        unlink(raw + "/registry.csv")
        unlink(dist + "/1/registry.csv")
        let before = try published()
        for run in ["plan", "publish"] {
            do {
                _ = run == "plan" ? try await pipeline().plan().report : try await pipeline().publish()
                XCTFail("\(run): expected bad input")
            } catch let error as StationError where error.kind == .badInput {
                XCTAssertEqual(error.diagnostics.map(\.location), [SourceLocation(file: raw + "/registry.csv")], run)
            }
            XCTAssertEqual(try published(), before, "\(run): dist/ and raw/ as they were")
        }
    }

    /// After `sqlite3 dist/2/stations.sqlite "update stations set station='改竄' where s_id=1"`,
    /// plan reported a phantom rename, publish made patch-from-2.sql from the changed copy and
    /// verify said ok. The baseline is checked against what was published (exit 3), and verify
    /// checks every version's files.
    func testAChangedPublishedVersionIsNeverABaselineAndVerifyFindsIt() async throws {
        _ = try await pipeline().publish()
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,")
        _ = try await pipeline().publish()
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 2)
        for version in [2, 1] {
            let path = dist + "/\(version)/stations.sqlite"
            let original = try Files.read(path)
            let database = try SQLiteDatabase(path: path, mode: .readWrite)
            try database.execute("UPDATE stations SET station = '改竄' WHERE s_id = 1")
            database.close()
            XCTAssertThrowsError(try BundleVerifier.verify(path: dist), "version \(version)") { error in
                XCTAssertTrue(error.station(.damaged) != nil, "a damaged dist is exit 3, by the one rule: \(error)")
            }
            if version == 2 {
                try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,", "set,stations,s_id=61,yomi,えきろくじゅういち,,")
                let before = try published()
                for run in ["plan", "publish"] {
                    do {
                        _ = run == "plan" ? try await pipeline().plan().report : try await pipeline().publish()
                        XCTFail("\(run): expected an environment error (exit 3)")
                    } catch let error as StationError where error.kind == .environment {
                        XCTAssertTrue(error.message.contains(path), error.message)
                    }
                    XCTAssertEqual(try published(), before, run)
                }
            }
            try Files.write(original, to: path)
            XCTAssertNoThrow(try BundleVerifier.verify(path: dist))
        }
    }

    /// A station name `![x](http://...)`, `<details>` or `@everyone` went into a pull request's
    /// comment as markup (an image fetched, a section opened, everyone notified), and an escape
    /// sequence into the terminal. Markdown shows it as text; text shows control characters as \u{..}.
    func testWhatASourceSaysReadsAsTextInEveryReport() async throws {
        _ = try await pipeline().publish()
        let hostile = "![x](http://tracker.invalid/x.png) <details><summary>ok</summary> @everyone *b* `c` \u{1B}[31mred\u{7}"
        try writeFixes("set,stations,s_id=7,station,\(hostile),station=駅7,")
        let report = try await pipeline().plan().report
        XCTAssertEqual(report.entries?.filter { $0.kind == .renamed }.map(\.new), [hostile], "the bundle holds it as written")
        let markdown = try report.render(.markdown), text = try report.render(.text)
        for (format, rendered) in [("markdown", markdown), ("text", text)] {
            XCTAssertFalse(rendered.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 }, "\(format): \(rendered)")
        }
        XCTAssertTrue(text.contains("\\u{1B}[31mred\\u{7}"), text)
        for markup in ["![x](", "[x](", "<details><summary>ok", "@everyone", "*b*", "`c`"] {
            XCTAssertFalse(markdown.contains(markup), "\(markup) in:\n\(markdown)")
        }
    }

    /// A rename published in version 2 was printed as "look at this: fixes.csv:13 ..." on every
    /// later plan and publish, and lint's count stayed one higher. "Look at these" is what a
    /// version changes against its baseline, in every format; raw/ is named as the repository
    /// names it, not by the machine's path.
    func testAPublishedChangeIsNoNewsInTheVersionsAfterIt() async throws {
        _ = try await pipeline().publish()
        let rename = "set,stations,s_id=7,station,新駅7,station=駅7,renamed"
        try writeFixes(rename)
        let second = try await pipeline().publish()
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(second.review.map { $0.prefix { $0 != " " } }, ["raw/fixes.csv:2:"], "\(second.review)")
        XCTAssertEqual(second.lookAtThese.count, 2, "the rename, and the fix that makes it: \(second.lookAtThese)")
        let lintAtTwo = try XCTUnwrap(second.lintWarnings)
        // Right after it, nothing changed: the lint report is made again without the rename (it
        // feeds latest.json's count too), and nothing is looked at.
        let again = try await pipeline().plan().report
        XCTAssertEqual(again.outcome, .unchanged)
        XCTAssertEqual(again.lintWarnings, lintAtTwo - 1)
        let lintFile = try JSONDecoder().decode(LintReport.self, from: Data(try Files.read(build + "/lint.json")))
        XCTAssertEqual(lintFile.byRule[LintRule.review.rawValue], 0)

        try writeFixes(rename, "set,stations,s_id=8,yomi,えきはち,,")
        let plan = try await pipeline().plan().report
        XCTAssertEqual(plan.outcome, .wouldPublish)
        let third = try await pipeline().publish()
        let unchanged = try await pipeline().plan().report
        XCTAssertEqual(unchanged.outcome, .unchanged)
        for (what, report) in [("plan", plan), ("publish", third), ("plan of nothing", unchanged)] {
            XCTAssertEqual(report.review, [], what)
            XCTAssertEqual(report.lookAtThese, [], what)
            XCTAssertEqual(report.lintWarnings, lintAtTwo - 1, what)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try report.render(.json).utf8)) as? [String: Any])
            XCTAssertEqual(json["review"] as? [String], [], what)
            XCTAssertFalse(try report.render(.markdown).contains("Look at these"), what)
            XCTAssertFalse(try report.render(.text).contains("look at these"), what)
        }
        let lint = try await Lint.run(IngestOptions(rawFolder: raw), handWeights: nil)
        XCTAssertEqual(lint.byRule[LintRule.review.rawValue], 0, "\(lint.findings)")
        XCTAssertEqual(lint.count, lintAtTwo - 1)
    }

    func testTheReportAsJSON() async throws {
        _ = try await pipeline().publish()
        try writeFixes("set,stations,s_id=60,yomi,えきろくじゅう,,")
        let plan = try await pipeline().plan()
        let json = try JSONSerialization.jsonObject(with: Data(try plan.report.json())) as? [String: Any]
        XCTAssertEqual(json?["command"] as? String, "plan")
        XCTAssertEqual(json?["outcome"] as? String, "would_publish")
        XCTAssertEqual(json?["published"] as? Bool, false)
        XCTAssertEqual(json?["version"] as? Int, 2)
        XCTAssertEqual(json?["exit_status"] as? Int, 1)
        XCTAssertEqual((json?["rows"] as? [String: Int])?["stations"], 100)
        XCTAssertEqual((json?["changes"] as? [String: [String: Int]])?["stations"], ["changed": 1])
        XCTAssertEqual((json?["guards"] as? [String: Any])?["passed"] as? Bool, true)
        XCTAssertEqual(json?["lint_warnings"] as? Int, plan.report.lintWarnings)
        XCTAssertEqual((json?["entries"] as? [[String: Any]])?.count, 1)
        let decoded = try JSONDecoder().decode(RunReport.self, from: Data(try plan.report.json()))
        XCTAssertEqual(decoded.outcome, .wouldPublish)
    }
}

/// raw/renumbered.csv and raw/weights.csv: mistakes the maintainer makes in them.
final class MaintainerFileTests: XCTestCase {
    var folder = ""
    var raw: String { folder + "/raw" }
    var build: String { folder + "/build" }
    var dist: String { folder + "/dist" }

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("maintainer-\(UUID().uuidString)").path
        try SmallNetwork.write(to: raw)
    }

    override func tearDown() { Files.remove(folder) }

    /// The weight guard is opened wide: the hand-weight guard is what these tests are about.
    func pipeline(force: Bool = false) -> Pipeline {
        var guards = DiffGuards.nightly
        guards.maxWeightChurnPercent = 100
        return Pipeline(PublishSettings(raw: raw, build: build, dist: dist, guards: guards, force: force))
    }

    func write(_ text: String, to name: String) throws {
        try text.write(toFile: raw + "/" + name, atomically: true, encoding: .utf8)
    }

    func planError() async throws -> [String] {
        do {
            let plan = try await pipeline().plan()
            XCTFail("expected bad input, the plan says \(plan.report.outcome)")
        } catch let error as StationError where error.kind == .badInput {
            return error.diagnostics.map(\.description)
        }
        return []
    }

    /// A cycle (10 <- 11 and 11 <- 10, both live) and an old s_id that never existed were
    /// published: an app would move users' records round the cycle, or look for a station
    /// no version ever had. Both are errors at their line.
    func testRenumberingCyclesAndUnknownOldIDsAreErrorsAtTheirLine() async throws {
        _ = try await pipeline().publish()
        try write("new_s_id,old_s_id,version\n10,11,2\n11,10,2\n", to: "renumbered.csv")
        var errors = try await planError()
        XCTAssertEqual(errors, ["\(raw)/renumbered.csv:3: old_s_id: 11 <- 10 closes a cycle with line 2 (10 <- 11): a station cannot replace one that replaces it"])
        try write("new_s_id,old_s_id,version\n20,21,2\n21,22,2\n22,20,2\n", to: "renumbered.csv")
        errors = try await planError()
        XCTAssertEqual(errors, ["\(raw)/renumbered.csv:4: old_s_id: 22 <- 20 closes a cycle with lines 2, 3 (20 <- 21, 21 <- 22): a station cannot replace one that replaces it"])

        try write("new_s_id,old_s_id,version\n5,999,2\n", to: "renumbered.csv")
        errors = try await planError()
        XCTAssertEqual(errors, ["\(raw)/renumbered.csv:2: old_s_id: s_id 999 was never a station: neither the published version 1 nor \(raw)/registry.csv has it"])
        do {
            _ = try await pipeline().publish()
            XCTFail("the publish refuses it too")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.map(\.location), [SourceLocation(file: "\(raw)/renumbered.csv", line: 2, field: "old_s_id")])
        }
        XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 1)
    }

    func handWeights(_ ids: some Sequence<Int>) -> String {
        "s_id,weight,note\n" + ids.map { "\($0),\(1 + $0 % 10),pick \($0)\n" }.joined()
    }

    /// An empty, header-only or half-cut weights.csv published every lost pick as a
    /// weight change, under the weight guard. Like a guard, it is refused (exit 4) unless
    /// forced, and a plan says so.
    func testLosingTheHandWeightsIsRefusedLikeAGuard() async throws {
        try write(handWeights(stride(from: 2, through: 100, by: 5)), to: "weights.csv")   // 20 picks
        let first = try await pipeline().publish()
        XCTAssertEqual(first.outcome, .published)

        for (what, text) in [("header only", "s_id,weight,note\n"), ("empty", ""), ("half cut", handWeights(stride(from: 2, through: 50, by: 5)))] {
            try write(text, to: "weights.csv")
            let plan = try await pipeline().plan()
            XCTAssertEqual(plan.report.outcome, .refused, what)
            XCTAssertEqual(plan.report.exitStatus, .guardRefused, what)
            let kept = text.split(separator: "\n").count - 1
            XCTAssertEqual(plan.report.guards.violations.filter { $0.contains("hand weights") }, [
                "\(20 - max(0, kept)) of the 20 hand weights (stations with weight 1..10) of version 1 are gone, \(max(0, kept)) left "
                + "(\(fixed(Double(20 - max(0, kept)) * 5, decimals: 2))%), more than the limit of 10.00%: is weights.csv emptied or cut short?",
            ], what)
            let refused = try await pipeline().publish()
            XCTAssertEqual(refused.outcome, .refused, what)
            XCTAssertEqual(refused.exitStatus, .guardRefused, what)
            XCTAssertEqual(try PublishedBundle.latest(in: dist)?.version, 1, what)
        }
        // A pick or two dropped or moved on is an ordinary change.
        try write(handWeights(stride(from: 2, through: 90, by: 5)) + "3,4,new pick\n", to: "weights.csv")
        let plan = try await pipeline().plan()
        XCTAssertEqual(plan.report.outcome, .wouldPublish, "\(plan.report.guards.violations)")
        // Forced, the loss is published.
        try write("s_id,weight\n", to: "weights.csv")
        let forced = try await pipeline(force: true).publish()
        XCTAssertEqual(forced.outcome, .published)
        XCTAssertTrue(forced.guards.forced)
        // With no hand weights published, none lost.
        let next = try await pipeline().plan()
        XCTAssertEqual(next.report.outcome, .unchanged)
    }

    /// A re-tiered weights.csv (`priority suggest --retier`: the same stations at other levels)
    /// was listed weight by weight, burying a pick added beside it. Levels moved are one group,
    /// "N hand weights re-tiered", as the machine weights that follow the changes are; a pick
    /// added or dropped is a line of its own.
    func testReTieredHandWeightsAreOneGroup() async throws {
        let ids = Array(stride(from: 2, through: 100, by: 5))
        try write(handWeights(ids), to: "weights.csv")
        _ = try await pipeline().publish()
        let moved = ids.filter { $0 % 3 != 0 }
        try write("s_id,weight,note\n" + ids.map { "\($0),\(moved.contains($0) ? 10 - $0 % 10 : 1 + $0 % 10),pick \($0)\n" }.joined() + "3,4,new pick\n", to: "weights.csv")
        let plan = try await pipeline().plan()
        let weights = try XCTUnwrap(plan.report.entries).filter { $0.kind == .weight }
        XCTAssertEqual(weights.filter { $0.cause == ChangeCauses.retiered && $0.follows == true }.map(\.id), moved)
        XCTAssertEqual(weights.filter { $0.follows == nil }.map { [String($0.id), $0.new ?? "", $0.cause ?? ""] }, [["3", "4", ChangeCauses.handWeights]])
        let steps = Dictionary(grouping: moved) { "\(1 + $0 % 10) -> \(10 - $0 % 10)" }.map { "\($0.key): \($0.value.count)" }.sorted()
        let text = try plan.report.render(.text).split(separator: "\n").map(String.init).filter { $0.hasPrefix("  weight ") }
        let group = "\(moved.count) hand weights re-tiered (\(steps.joined(separator: ", "))): "
            + moved.map { "s_id \($0) 駅\($0) (\($0 <= 50 ? "東日本旅客鉄道" : "東京地下鉄"))" }.joined(separator: ", ")
        XCTAssertEqual(text.count, 2, text.joined(separator: "\n"))
        XCTAssertEqual(text.last, "  weight    " + group)
        let markdown = try plan.report.render(.markdown).split(separator: "\n").map(String.init).filter { $0.hasPrefix("| weight |") }
        XCTAssertEqual(markdown.last, "| weight | \(group) | \(ChangeCauses.retiered) |", "the markdown groups them too")
    }
}

extension Dictionary where Key == String {
    func mapKeys(_ transform: (String) -> String) -> [String: Value] {
        Dictionary(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
