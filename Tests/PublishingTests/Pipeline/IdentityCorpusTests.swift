import BuildDB
import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// The labeled corpus of identity transitions (Tests/Fixtures/identity_corpus.py: real
/// releases, the apps' master and its history, and what careless upstreams do), each step
/// published over the one before as the nightly does (FORCE_PUBLISH, so that a sequence goes
/// on past the guards' limits; never past a contested s_id), and every label held against
/// what the versions say: expected against got, in docs/identity-corpus.md.
final class IdentityCorpusTests: XCTestCase {
    struct Label {
        var fromStep: Int, fromKey: String, toStep: Int, toKey: String, expect: String, note: String
    }

    /// What became of a labeled s_id: the columns of the confusion table.
    enum Got: String, CaseIterable {
        case kept, named = "orphan named", contested, retired, new, silent = "silent orphan", wrong = "wrong link"
    }

    /// One transition's steps as published: each step's s_id of every source key, the live
    /// s_ids, the review, and whether the step was refused for an undecided s_id.
    struct Steps {
        var ids: [Int: [String: Int]] = [:]
        var live: [Int: Set<Int>] = [:]
        var everID: [Int: Set<Int>] = [:]
        var review: [Int: IdentityReview] = [:]
        var contested: [Int: Set<Int>] = [:]
        /// The steps refused (the dist stays at the step before, as the nightly's would).
        var refused: Set<Int> = []
        var reports: [Int: RunReport] = [:]
    }

    nonisolated(unsafe) static var corpus: String?
    /// Each transition as published, once per test process.
    nonisolated(unsafe) static var published: [String: Steps] = [:]

    /// The corpus, written once per test process.
    static func corpusFolder() throws -> String {
        if let corpus { return corpus }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-corpus-\(getpid())").path
        Files.remove(folder)
        let python = try BuiltTools.required("python3", debianPackage: "python3")
        let run = try runWithTimeout(python, [RepositoryData.root + "/Tests/Fixtures/identity_corpus.py", folder], in: RepositoryData.root, timeout: 300)
        guard run.status == 0 else { throw BuiltTools.FixtureFailure("identity_corpus.py failed (exit \(run.status)): \(run.err)") }
        corpus = folder
        return folder
    }

    override class func tearDown() { if let corpus { Files.remove(corpus) } }

    static func rows(_ path: String) throws -> [[String: String]] {
        let table = try CSVReader.read(path: path)
        return table.records.map { r in Dictionary(uniqueKeysWithValues: table.header.map { ($0, table.string(r, table.column($0))) }) }
    }

    /// Publishes each step of `transition` over the one before, in a folder of its own, with
    /// FORCE_PUBLISH but for the apps' history, which the nightly's guards must pass.
    func publish(_ transition: String, in corpus: String) async throws -> Steps {
        if let done = Self.published[transition] { return done }
        let force = transition != "apps_history"
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(transition)-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        let raw = folder + "/raw", pipeline = Pipeline(PublishSettings(raw: raw, build: folder + "/build", dist: folder + "/dist", force: force))
        var steps = Steps()
        let stepFolders = try FileManager.default.contentsOfDirectory(atPath: "\(corpus)/\(transition)/steps").compactMap(Int.init).sorted()
        for step in stepFolders {
            // The step's sources replace raw/'s; the registry stays, as raw/ is committed.
            try Files.createFolder(raw)
            for name in try FileManager.default.contentsOfDirectory(atPath: raw) where name != Registry.fileName { Files.remove(raw + "/" + name) }
            for name in try FileManager.default.contentsOfDirectory(atPath: "\(corpus)/\(transition)/steps/\(step)") {
                try FileManager.default.copyItem(atPath: "\(corpus)/\(transition)/steps/\(step)/\(name)", toPath: raw + "/" + name)
            }
            let report = try await pipeline.publish()
            steps.reports[step] = report
            let registryPath = report.outcome == .refused ? folder + "/build/" + StagingFile.defaultName + ".registry.csv" : raw + "/" + Registry.fileName
            let registry = try Registry.load(path: registryPath)
            var ids: [String: Int] = [:]
            for id in registry.ids(.station) { for key in registry.keys(.station, id) ?? [] where ids[key] == nil { ids[key] = id } }
            steps.ids[step] = ids
            steps.everID[step] = Set(registry.ids(.station))
            steps.review[step] = report.identity
            steps.contested[step] = Set(report.identity?.undecided.map(\.stationID) ?? [])
            let staging = try StagingFile.read(from: folder + "/build/" + StagingFile.defaultName)
            steps.live[step] = Set(staging.network.stations.filter(\.enabled).map(\.id))
            if report.outcome == .refused { steps.refused.insert(step) }
        }
        Self.published[transition] = steps
        return steps
    }

    /// What the steps did to each label's s_id (a: the s_id the from-key had; b: the s_id the
    /// to-key has). A refused step is judged on what it would have published, an s_id it
    /// contests as contested; its stations never had published s_ids to keep after it.
    static func judge(_ labels: [Label], _ steps: Steps) -> [(Label, Got)] {
        // A station with several keys, or split in two, is the same station under any of them.
        var targets: [String: Set<Int>] = [:]
        func group(_ l: Label) -> String { "\(l.fromStep)|\(l.fromKey)|\(l.toStep)" }
        for l in labels where !l.toKey.isEmpty && l.expect != "new" && l.expect != "merged" {
            if let b = steps.ids[l.toStep]?[l.toKey] { targets[group(l), default: []].insert(b) }
        }
        return labels.compactMap { l -> (Label, Got)? in
            if steps.refused.contains(l.fromStep) && l.fromStep != l.toStep { return nil }
            let a = l.fromKey.isEmpty ? nil : steps.ids[l.fromStep]?[l.fromKey]
            let b = l.toKey.isEmpty ? nil : steps.ids[l.toStep]?[l.toKey]
            let live = steps.live[l.toStep] ?? []
            if steps.refused.contains(l.toStep), let contested = steps.contested[l.toStep], contested.contains(a ?? -1) || contested.contains(b ?? -1) {
                return (l, .contested)
            }
            switch l.expect {
            case "new":
                guard let b else { return nil }
                return (l, (l.toStep > 1 && steps.everID[l.toStep - 1]?.contains(b) == true) ? .wrong : .new)
            case "retired":
                guard let a else { return nil }
                return (l, live.contains(a) ? .wrong : .retired)
            default:
                guard let a else { return nil }
                if l.expect != "merged", (targets[group(l)] ?? []).contains(a) { return (l, .kept) }
                let named = (l.fromStep...l.toStep).contains { s in
                    steps.review[s]?.entries.contains { ($0.kind == .orphaned || $0.kind == .merged) && $0.stationID == a && (b == nil || $0.successor == b) } ?? false
                }
                if named { return (l, .named) }
                if live.contains(a) { return (l, l.expect == "ambiguous" && b == nil ? .kept : .wrong) }
                // Nothing lives on where the station it named is closed too.
                return (l, b.map(live.contains) == false ? .retired : .silent)
            }
        }
    }

    /// The confusion table: expected (rows) against got (columns), as markdown.
    static func table(_ judged: [(Label, Got)]) -> String {
        let expectations = ["same", "merged", "retired", "new", "ambiguous"]
        var out = "| expected \\ got | " + Got.allCases.map(\.rawValue).joined(separator: " | ") + " | all |\n"
        out += "|---|" + Got.allCases.map { _ in "---:|" }.joined() + "---:|\n"
        for e in expectations {
            let row = judged.filter { $0.0.expect == e }
            guard !row.isEmpty else { continue }
            out += "| \(e) | " + Got.allCases.map { g in String(row.count { $0.1 == g }) }.joined(separator: " | ") + " | \(row.count) |\n"
        }
        return out
    }

    /// The apps' own history, version after version with the nightly's guards (no
    /// FORCE_PUBLISH): every version publishes with no decision, and the stations whose line
    /// passed to another operator are listed as transferred: 山田線's reopened under 三陸鉄道,
    /// 札幌市電's under 札幌市交通事業振興公社, 富山ライトレール's and 北神急行's.
    func testTheAppsHistoryPublishesEveryVersionWithNoDecision() async throws {
        let corpus = try Self.corpusFolder()
        let steps = try await publish("apps_history", in: corpus)
        for (step, report) in steps.reports { XCTAssertEqual(report.outcome, .published, "step \(step): \(report.guards)") }
        let review = try XCTUnwrap(steps.reports[2]?.identity)
        XCTAssertEqual(review.undecided, [])
        XCTAssertEqual(review.orphans, [])
        // Each s_id whose line passed to another operator, as the labels name them.
        let labels = try Self.rows(corpus + "/apps_history/labels.csv").filter { $0["expect"] == "same" && $0["from_key"] != "" }
        let passed = Set(labels.filter { $0["note"]!.contains("passed") || $0["note"]!.contains("reopened") }.compactMap { Int($0["from_key"]!.dropFirst(2)) })
        XCTAssertGreaterThanOrEqual(passed.count, 11 + 14)
        XCTAssertEqual(Set(review.entries.filter { $0.kind == .transferred }.map(\.stationID)), passed)
    }

    func testTheCorpusHasNoWrongLinkAndNoSilentOrphan() async throws {
        let corpus = try Self.corpusFolder()
        var all: [(Label, Got)] = [], perTransition = "| transition | labels | kept | orphan named | contested | wrong link | silent orphan |\n|---|---:|---:|---:|---:|---:|---:|\n"
        for row in try Self.rows(corpus + "/index.csv") {
            let name = row["transition"]!
            let labels = try Self.rows("\(corpus)/\(name)/labels.csv").map {
                Label(fromStep: Int($0["from_step"]!) ?? 0, fromKey: $0["from_key"]!, toStep: Int($0["to_step"]!) ?? 0, toKey: $0["to_key"]!,
                      expect: $0["expect"]!, note: $0["note"]!)
            }
            let judged = Self.judge(labels, try await publish(name, in: corpus))
            all += judged
            func n(_ g: Got) -> Int { judged.count { $0.1 == g } }
            perTransition += "| \(name) | \(judged.count) | \(n(.kept)) | \(n(.named)) | \(n(.contested)) | \(n(.wrong)) | \(n(.silent)) |\n"
            for (l, got) in judged where got == .wrong || got == .silent || (got == .contested && l.expect != "ambiguous") {
                XCTFail("\(name): \(got.rawValue): \(l.fromStep) \(l.fromKey) -> \(l.toStep) \(l.toKey), expected \(l.expect) (\(l.note))")
            }
        }
        XCTAssertGreaterThanOrEqual(all.count, 300)
        let same = all.filter { $0.0.expect == "same" }
        let keptShare = Double(same.count { $0.1 == .kept }) / Double(max(same.count, 1))
        XCTAssertGreaterThanOrEqual(keptShare, 0.995, "same-station pairs kept")
        let text = """
            # The identity corpus: expected against got

            Written by `IdentityCorpusTests` (PublishingTests): each transition of
            Tests/Fixtures/identity_corpus.py published step over step (docs/maintaining.md,
            "Identities"). A row is what the label expects of an s_id, a column what the versions
            did with it: **kept** (it names the expected station), **orphan named** (it retired and
            the review names its survivor, for the maintainer's `same` or `merge`), **contested**
            (refused until decided), **retired**, **new**, and the two failures: **silent orphan**
            (retired while its station lives on, unnamed) and **wrong link** (it names another
            station). Same-station pairs kept: \(String(format: "%.2f", keptShare * 100))%.

            \(Self.table(all))
            \(perTransition)
            """
        try assertGolden(text, at: "docs/identity-corpus.md")
    }
}
