import BuildDB
import Foundation
import Ingest
import Publishing
import StationCore
import TestSupport
import XCTest

/// The labeled corpus of identity transitions (Tests/Fixtures/identity_corpus.py): the
/// upstream's own releases, the real events of its history each on the prefectures it touched
/// (labeled by the upstream's id, renumbered ids bridged by name and place, and by hand),
/// the apps' master and its history, and what careless upstreams do. Each step is published
/// over the one before as the nightly does, and every label held against what the versions
/// say: expected against got, in docs/identity-corpus.md. With STATIONDB_HISTORY=national
/// (`make history`) the whole history, every release national, one after the other, too.
final class IdentityCorpusTests: XCTestCase {
    struct Label {
        var fromStep: Int, fromKey: String, toStep: Int, toKey: String, expect: String, note: String
    }

    /// What became of a labeled s_id: the columns of the confusion table.
    enum Got: String, CaseIterable {
        case kept, merged, named = "orphan named", contested, retired, new, silent = "silent orphan", wrong = "wrong link"
    }

    /// One step as a run left it: each source key's s_id, the live s_ids, the review, and
    /// the registry the next step starts from.
    struct Outcome {
        var ids: [String: Int] = [:]
        var everID: Set<Int> = []
        var live: Set<Int> = []
        var review: IdentityReview?
        var refused = false
        var registry: [UInt8] = []

        init(registry: [UInt8], staging: Staging, refused: Bool? = nil) throws {
            let parsed = try Registry.parse(CSVReader.parse(registry, file: Registry.fileName))
            for id in parsed.ids(.station) { for key in parsed.keys(.station, id) ?? [] where ids[key] == nil { ids[key] = id } }
            everID = Set(parsed.ids(.station))
            live = Set(staging.network.stations.filter(\.enabled).map(\.id))
            review = StagingMeta.identity(in: staging.meta).review
            self.refused = refused ?? !(review?.undecided.isEmpty ?? true)
            self.registry = registry
        }
    }

    nonisolated(unsafe) static var corpus: String?
    /// Each transition as published, once per test process.
    nonisolated(unsafe) static var published: [String: [Int: Outcome]] = [:]
    static var national: Bool { ProcessInfo.processInfo.environment["STATIONDB_HISTORY"] == "national" }

    /// The corpus, written once per test process.
    static func corpusFolder() throws -> String {
        if let corpus { return corpus }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("identity-corpus-\(getpid())").path
        Files.remove(folder)
        let python = try BuiltTools.required("python3", debianPackage: "python3")
        let run = try runWithTimeout(python, [RepositoryData.root + "/Tests/Fixtures/identity_corpus.py", folder] + (national ? ["--national"] : []),
                                     in: RepositoryData.root, timeout: 600)
        guard run.status == 0 else { throw BuiltTools.FixtureFailure("identity_corpus.py failed (exit \(run.status)): \(run.err)") }
        corpus = folder
        return folder
    }

    override class func tearDown() { if let corpus { Files.remove(corpus) } }

    static func rows(_ path: String) throws -> [[String: String]] {
        let table = try CSVReader.read(path: path)
        return table.records.map { r in Dictionary(uniqueKeysWithValues: table.header.map { ($0, table.string(r, table.column($0))) }) }
    }

    static func labels(_ transition: String, in corpus: String) throws -> [Label] {
        try rows("\(corpus)/\(transition)/labels.csv").map {
            Label(fromStep: Int($0["from_step"]!) ?? 0, fromKey: $0["from_key"]!, toStep: Int($0["to_step"]!) ?? 0, toKey: $0["to_key"]!,
                  expect: $0["expect"]!, note: $0["note"]!)
        }
    }

    static func stepFolders(_ transition: String, in corpus: String) throws -> [Int] {
        try FileManager.default.contentsOfDirectory(atPath: "\(corpus)/\(transition)/steps").compactMap(Int.init).sorted()
    }

    /// The nightly runs no decision and no FORCE_PUBLISH; a slice of the country takes FORCE_PUBLISH
    /// (its few stations trip the guards' percentages), which never passes a contested s_id.
    static func forced(_ transition: String) -> Bool { !["apps_history", "history_national"].contains(transition) }

    /// Publishes each step of `transition` over the one before, in a folder of its own; `decisions`
    /// is raw/identity.csv at a step.
    func publish(_ transition: String, in corpus: String, decisions: [Int: String] = [:]) async throws -> [Int: Outcome] {
        if decisions.isEmpty, let done = Self.published[transition] { return done }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-\(transition)-\(UUID().uuidString)").path
        defer { Files.remove(folder) }
        let raw = folder + "/raw", build = folder + "/build"
        let pipeline = Pipeline(PublishSettings(raw: raw, build: build, dist: folder + "/dist", force: Self.forced(transition)))
        var steps: [Int: Outcome] = [:]
        for step in try Self.stepFolders(transition, in: corpus) {
            // The step's sources replace raw/'s; the registry stays, as raw/ is committed.
            try Files.createFolder(raw)
            for name in try FileManager.default.contentsOfDirectory(atPath: raw) where name != Registry.fileName { Files.remove(raw + "/" + name) }
            for name in try FileManager.default.contentsOfDirectory(atPath: "\(corpus)/\(transition)/steps/\(step)") {
                try FileManager.default.copyItem(atPath: "\(corpus)/\(transition)/steps/\(step)/\(name)", toPath: raw + "/" + name)
            }
            if let rows = decisions[step] { try ("s_id,decision,expect,note\n" + rows).write(toFile: raw + "/identity.csv", atomically: true, encoding: .utf8) }
            let report = try await pipeline.publish()
            let refused = report.outcome == .refused
            let registry = try Files.read(refused ? build + "/" + StagingFile.defaultName + ".registry.csv" : raw + "/" + Registry.fileName)
            steps[step] = try Outcome(registry: registry, staging: try StagingFile.read(from: build + "/" + StagingFile.defaultName), refused: refused)
            XCTAssertNotEqual(report.outcome, .refused, "\(transition) step \(step): \(report.guards)", file: #filePath, line: #line)
        }
        if decisions.isEmpty { Self.published[transition] = steps }
        return steps
    }

    /// Each step of `transition` ingested over the registry the published step before it left
    /// (`published`), with `model`'s weights: what the model alone makes of each step.
    static func ingest(_ transition: String, in corpus: String, over published: [Int: Outcome], model: IdentityModel) async throws -> [Int: Outcome] {
        let registry = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-registry-\(UUID().uuidString).csv").path
        defer { Files.remove(registry) }
        var steps: [Int: Outcome] = [:]
        for step in try stepFolders(transition, in: corpus) {
            guard let before = published[step - 1] else { steps[step] = published[step]; continue }
            try AtomicFile.write(before.registry, to: registry)
            var options = IngestOptions(rawFolder: "\(corpus)/\(transition)/steps/\(step)", registryPath: registry)
            options.model = model
            let outcome = try await IngestPipeline.run(options)
            steps[step] = try Outcome(registry: outcome.registryText, staging: outcome.staging)
        }
        return steps
    }

    /// What the steps did to each label's s_id (a: the s_id the from-key had; b: the s_id the
    /// to-key has). The labels of one station (a key that lives on as several rows) are judged
    /// together: it is kept, merged or named as one of them. A refused step is judged on what it
    /// would have published, an s_id it contests as contested.
    static func judge(_ labels: [Label], _ steps: [Int: Outcome]) -> [(Label, Got)] {
        func group(_ l: Label) -> String { "\(l.fromStep)|\(l.fromKey)|\(l.toStep)" }
        // The upstream's key names a place (its id) and a row at it (an operator's, a kind's): a
        // merge into, or a survivor named at, another row of the place keeps the records there.
        func place(_ key: String) -> String {
            let p = key.split(separator: ":")
            return key.hasPrefix("station_database:station:") && p.count > 2 ? "\(p[2])" + (key.hasSuffix(":shinkansen") ? ":shinkansen" : "") : key
        }
        var heirs: [String: Set<Int>] = [:], places: [String: Set<String>] = [:]
        for l in labels where !l.toKey.isEmpty && !l.fromKey.isEmpty && l.expect != "new" {
            if let b = steps[l.toStep]?.ids[l.toKey] { heirs[group(l), default: []].insert(b) }
            places[group(l), default: []].insert(place(l.toKey))
        }
        var placesOf: [Int: [Int: Set<String>]] = [:]
        for (step, o) in steps { for (key, id) in o.ids { placesOf[step, default: [:]][id, default: []].insert(place(key)) } }
        return labels.compactMap { l -> (Label, Got)? in
            guard let from = steps[l.fromStep], let to = steps[l.toStep] else { return nil }
            if from.refused && l.fromStep != l.toStep { return nil }
            let a = l.fromKey.isEmpty ? nil : from.ids[l.fromKey]
            let b = l.toKey.isEmpty ? nil : to.ids[l.toKey]
            if to.refused, let contested = to.review?.undecided.map(\.stationID), contested.contains(a ?? -1) || contested.contains(b ?? -1) {
                return (l, .contested)
            }
            switch l.expect {
            case "new":
                guard let b else { return nil }
                return (l, l.toStep > 1 && steps[l.toStep - 1]?.everID.contains(b) == true ? .wrong : .new)
            case "retired":
                guard let a else { return nil }
                return (l, to.live.contains(a) ? .wrong : .retired)
            default:
                guard let a else { return nil }
                let targets = heirs[group(l)] ?? []
                if l.expect != "merged", targets.contains(a) { return (l, .kept) }
                func atPlace(_ id: Int) -> Bool { targets.contains(id) || !(placesOf[l.toStep]?[id] ?? []).isDisjoint(with: places[group(l)] ?? []) }
                let entries = (l.fromStep...l.toStep).flatMap { steps[$0]?.review?.entries.filter { $0.stationID == a } ?? [] }
                let merges = entries.filter { $0.kind == .merged }.compactMap(\.successor)
                if !merges.isEmpty { return (l, merges.allSatisfy(atPlace) ? .merged : .wrong) }
                if entries.contains(where: { $0.kind == .orphaned && ($0.successor.map(atPlace) ?? false || targets.isEmpty) }) { return (l, .named) }
                if to.live.contains(a) { return (l, l.expect == "ambiguous" && b == nil ? .kept : .wrong) }
                // Nothing lives on where the station it named is closed too.
                return (l, targets.contains(where: to.live.contains) ? .silent : .retired)
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

    /// The corpus's transitions but the national history, which `make history` replays apart.
    static func transitions(in corpus: String) throws -> [String] { try rows(corpus + "/index.csv").map { $0["transition"]! }.filter { $0 != "history_national" } }

    /// The apps' own history, version after version with the nightly's guards (no
    /// FORCE_PUBLISH): every version publishes with no decision, and the stations whose line
    /// passed to another operator are listed as transferred: 山田線's reopened under 三陸鉄道,
    /// 札幌市電's under 札幌市交通事業振興公社, 富山ライトレール's and 北神急行's.
    /// Every row the plan suggests publishes once applied, as written, in every transition of
    /// the corpus: none is bad input, none is refused, and none makes a wrong link.
    func testEverySuggestedRowPublishes() async throws {
        let corpus = try Self.corpusFolder()
        var applied = 0
        for name in try Self.transitions(in: corpus) {
            let steps = try await publish(name, in: corpus)
            var decisions: [Int: String] = [:]
            for (step, outcome) in steps {
                let rows = (outcome.review?.entries ?? []).compactMap(\.decision)
                if !rows.isEmpty { decisions[step] = rows.map { $0 + "\n" }.joined() }
                applied += rows.count
            }
            guard !decisions.isEmpty else { continue }
            let decided = try await publish(name, in: corpus, decisions: decisions)
            for (step, outcome) in decided.sorted(by: { $0.key < $1.key }) {
                XCTAssertEqual(outcome.review?.undecided ?? [], [], "\(name) step \(step)")
            }
            for (l, got) in Self.judge(try Self.labels(name, in: corpus), decided) where got == .wrong {
                XCTFail("\(name): a suggested row made a wrong link: \(l.fromStep) \(l.fromKey) -> \(l.toStep) \(l.toKey) (\(l.note))")
            }
        }
        XCTAssertGreaterThan(applied, 0, "the corpus has rows to apply")
    }

    func testTheAppsHistoryPublishesEveryVersionWithNoDecision() async throws {
        let corpus = try Self.corpusFolder()
        let steps = try await publish("apps_history", in: corpus)
        let review = try XCTUnwrap(steps[2]?.review)
        XCTAssertEqual(review.undecided, [])
        let labels = try Self.rows(corpus + "/apps_history/labels.csv").filter { $0["expect"] == "same" && $0["from_key"] != "" }
        let passed = Set(labels.filter { $0["note"]!.contains("passed") || $0["note"]!.contains("reopened") }.compactMap { Int($0["from_key"]!.dropFirst(2)) })
        XCTAssertGreaterThanOrEqual(passed.count, 11 + 14)
        XCTAssertEqual(Set(review.entries.filter { $0.kind == .transferred }.map(\.stationID)), passed)
    }

    func testTheCorpusHasNoWrongLinkAndNoSilentOrphan() async throws {
        let corpus = try Self.corpusFolder()
        var all: [(Label, Got)] = [], real: [(Label, Got)] = []
        var perTransition = "| transition | labels | kept | merged | orphan named | contested | wrong link | silent orphan |\n|---|---:|---:|---:|---:|---:|---:|---:|\n"
        for name in try Self.transitions(in: corpus) {
            let judged = Self.judge(try Self.labels(name, in: corpus), try await publish(name, in: corpus))
            all += judged
            if name.hasPrefix("history_") || name == "upstream_release" { real += judged }
            func n(_ g: Got) -> Int { judged.count { $0.1 == g } }
            perTransition += "| \(name) | \(judged.count) | \(n(.kept)) | \(n(.merged)) | \(n(.named)) | \(n(.contested)) | \(n(.wrong)) | \(n(.silent)) |\n"
            for (l, got) in judged where got == .wrong || got == .silent || (got == .contested && l.expect != "ambiguous") {
                XCTFail("\(name): \(got.rawValue): \(l.fromStep) \(l.fromKey) -> \(l.toStep) \(l.toKey), expected \(l.expect) (\(l.note))")
            }
            // A line handed on (JR西日本's 北陸本線), an operator folded into another (新京成電鉄, 泉北's
            // 大阪府都市開発): every station keeps its records, none is only named.
            if ["history_hokuriku_2024", "history_renumbered_2025"].contains(name) {
                for (l, got) in judged where [":company:4", ":company:142", ":company:198"].contains(where: l.fromKey.hasSuffix) && got != .kept && got != .merged {
                    XCTFail("\(name): \(got.rawValue), not kept or merged: \(l.fromStep) \(l.fromKey) -> \(l.toStep) \(l.toKey) (\(l.note))")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(all.count, 300)
        func keptShare(_ judged: [(Label, Got)]) -> Double {
            let same = judged.filter { $0.0.expect == "same" }
            return Double(same.count { $0.1 == .kept }) / Double(max(same.count, 1))
        }
        XCTAssertGreaterThanOrEqual(keptShare(real), 0.999, "same-station pairs kept on the real transitions")
        XCTAssertGreaterThanOrEqual(keptShare(all), 0.995, "same-station pairs kept")
        let text = """
            # The identity corpus: expected against got

            Written by `IdentityCorpusTests` (PublishingTests): each transition of
            Tests/Fixtures/identity_corpus.py published step over step (docs/maintaining.md,
            "Identities"). The transitions named `history_` are the upstream's own releases
            (Tests/Fixtures/station_database/history.tar.xz) around its real events, each on the
            prefectures it touched, labeled by the upstream's id (renumbered ids bridged by name
            and place) and by hand (history-events.csv); `make history` adds `history_national`,
            every release since v20211026, national, one after the other (its table and time:
            [identity-history.md](identity-history.md)). A row is what the label expects of an
            s_id, a column what the versions did with it: **kept** (it names the expected
            station), **merged** (it retired into the expected station: renumbered_stations
            carries its records), **orphan named** (it retired and the review names its
            survivor), **contested** (refused until decided), **retired**, **new**, and the two
            failures: **silent orphan** (retired while its station lives on, unnamed) and **wrong
            link** (it names, or merged into, another station). Same-station pairs kept: \(String(format: "%.2f", keptShare(all) * 100))%,
            on the real transitions \(String(format: "%.2f", keptShare(real) * 100))%.

            \(Self.table(all))
            \(perTransition)
            """
        try assertGolden(text, at: "docs/identity-corpus.md")
    }

    /// The labeled pairs of each step of `transition`, each over the registry the step before it
    /// makes from nothing (so that the pairs are the data's, not the weights'): a pair is one
    /// station when a `same` or `merged` label joins its s_id's key before and its station's key now.
    static func labeledPairs(_ transition: String, in corpus: String) async throws -> [(transition: String, pair: IdentityPair, match: Bool)] {
        let labels = try Self.labels(transition, in: corpus)
        let registry = FileManager.default.temporaryDirectory.appendingPathComponent("corpus-registry-\(UUID().uuidString).csv").path
        defer { Files.remove(registry) }
        var out: [(transition: String, pair: IdentityPair, match: Bool)] = []
        for step in try stepFolders(transition, in: corpus) where step > 1 {
            Files.remove(registry)
            let first = try await IngestPipeline.run(IngestOptions(rawFolder: "\(corpus)/\(transition)/steps/\(step - 1)", registryPath: registry))
            let before = try Outcome(registry: first.registryText, staging: first.staging)
            try AtomicFile.write(first.registryText, to: registry)
            var options = IngestOptions(rawFolder: "\(corpus)/\(transition)/steps/\(step)", registryPath: registry)
            options.keepsEvidence = true
            let outcome = try await IngestPipeline.run(options)
            let now = try Outcome(registry: outcome.registryText, staging: outcome.staging)
            var same = Set<[Int]>()
            for l in labels where l.fromStep == step - 1 && l.toStep == step && (l.expect == "same" || l.expect == "merged") {
                if let a = before.ids[l.fromKey], let b = now.ids[l.toKey] { same.insert([a, b]) }
            }
            out += outcome.identityPairs().map { (transition, $0, same.contains([$0.old, $0.new])) }
        }
        return out
    }

    /// What each transition of `names` judges to with `model`, step by step over the published steps: the table a weight must move.
    func judged(_ names: [String], in corpus: String, model: IdentityModel) async throws -> [String: [String: Int]] {
        var out: [String: [String: Int]] = [:]
        for name in names {
            let published = try await publish(name, in: corpus)
            let judged = Self.judge(try Self.labels(name, in: corpus), try await Self.ingest(name, in: corpus, over: published, model: model))
            out[name] = Dictionary(grouping: judged, by: { "\($0.0.expect) \($0.1.rawValue)" }).mapValues(\.count)
        }
        return out
    }

    /// identity-weights.csv is what the corpus's labeled pairs give (IdentityWeights), the key's
    /// weight bounded by the careless transitions: `scripts/estimate-identity-weights` writes it.
    /// The labeled pairs of the transitions the weights are estimated from, made once a process.
    nonisolated(unsafe) static var estimationPairs: [(transition: String, pair: IdentityPair, match: Bool)]?
    static func pairsOfTheEstimate(in corpus: String) async throws -> [(transition: String, pair: IdentityPair, match: Bool)] {
        if let estimationPairs { return estimationPairs }
        var pairs: [(transition: String, pair: IdentityPair, match: Bool)] = []
        for name in IdentityWeights.estimatedFrom(try Self.transitions(in: corpus)) {
            pairs += try await Self.labeledPairs(name, in: corpus)
        }
        estimationPairs = pairs
        return pairs
    }

    func testTheWeightsAreTheCorpusEstimate() async throws {
        let corpus = try Self.corpusFolder()
        let pairs = try await Self.pairsOfTheEstimate(in: corpus)
        let counts = IdentityWeights.count(pairs)
        let estimated = try IdentityModel(csv: Array(IdentityWeights.table(counts).utf8))
        let key = "key: the source's id for it"
        // The largest key weight (to a tenth) that leaves every careless transition without a wrong link.
        func holds(_ weight: Double) async throws -> Bool {
            var model = estimated
            for k in model.levels.indices where "\(model.levels[k].comparison): \(model.levels[k].level)" == key { model.levels[k].weight = weight }
            return try await judged(IdentityWeights.careless, in: corpus, model: model).values.allSatisfy { $0.keys.allSatisfy { !$0.hasSuffix(Got.wrong.rawValue) } }
        }
        var low = 0.0, high = estimated.levels.first { "\($0.comparison): \($0.level)" == key }!.weight
        if try await !holds(high) {
            while high - low > 0.05 {
                let mid = ((low + high) / 2 * 10).rounded() / 10
                if mid == low || mid == high { break }
                if try await holds(mid) { low = mid } else { high = mid }
            }
            high = low
        }
        let holdsAtBound = try await holds(high)
        XCTAssertTrue(holdsAtBound, "no key weight leaves the careless transitions without a wrong link")
        try assertGolden(IdentityWeights.table(counts, key: high), at: "Sources/StationCore/Model/identity-weights.csv")
    }

    /// Every weight matters: set to zero, or else flipped, each level changes the table of the
    /// labeled pairs (one station or two, against linked, possible or neither), and each
    /// threshold what the corpus's transitions judge (a weight nothing hangs on is a level to drop).
    func testEveryWeightMatters() async throws {
        let corpus = try Self.corpusFolder()
        let pairs = try await Self.pairsOfTheEstimate(in: corpus)
        let model = IdentityModel.estimated
        func table(_ m: IdentityModel) -> [String: Int] {
            // (link and possible are read here too; the margin needs whole runs, below.)
            let weight = Dictionary(m.levels.map { ("\($0.comparison): \($0.level)", $0.weight) }) { a, _ in a }
            var out: [String: Int] = [:]
            for (_, pair, match) in pairs {
                let total = pair.terms.reduce(0.0) { $0 + (weight["\($1.comparison): \($1.level)"] ?? $1.weight) }
                out["\(match) " + (total >= m.link ? "linked" : total >= m.possible ? "possible" : "neither"), default: 0] += 1
            }
            return out
        }
        let baseline = table(model)
        var idle: [String] = []
        for k in model.levels.indices where model.levels[k].weight != 0 {
            let changes = [0.0, -1.0].contains { factor in
                var mutated = model
                mutated.levels[k].weight *= factor
                return table(mutated) != baseline
            }
            if !changes { idle.append("\(model.levels[k].comparison): \(model.levels[k].level)") }
        }
        for threshold in ["link", "possible"] {
            let changes = [0.0, -1.0].contains { factor in
                var mutated = model
                if threshold == "link" { mutated.link *= factor } else { mutated.possible *= factor }
                return table(mutated) != baseline
            }
            if !changes { idle.append("threshold: \(threshold)") }
        }
        // The margin, through whole runs: what a slice of the corpus where rivals meet judges.
        let names = ["history_renames_2023", "ids_swapped", "duplicate_then_original_deleted"]
        let judgedNow = try await judged(names, in: corpus, model: model)
        var margin = false
        for factor in [0.0, -1.0] where !margin {
            var mutated = model
            mutated.margin *= factor
            margin = try await judged(names, in: corpus, model: mutated) != judgedNow
        }
        if !margin { idle.append("threshold: margin") }
        XCTAssertEqual(idle, [], "weights that change nothing the corpus judges, zeroed or flipped")
    }

    /// `make history`: every release since v20211026, national, one after the other as the
    /// nightly publishes them (one raw/, an empty registry at the start, no decision, no
    /// FORCE_PUBLISH): every night publishes or changes nothing, with no wrong link and no silent
    /// orphan. Writes docs/identity-history.md, night by night, with the replay's time. Without
    /// STATIONDB_HISTORY=national, the real events' slices of the corpus stand for it.
    func testTheWholeHistoryReplaysAsNightlies() async throws {
        let corpus = try Self.corpusFolder()
        guard Self.national else {
            XCTAssertGreaterThanOrEqual(try Self.transitions(in: corpus).count { $0.hasPrefix("history_") }, 9)
            return
        }
        let clock = ContinuousClock(), start = clock.now
        let steps = try await publish("history_national", in: corpus)
        let seconds = (clock.now - start) / .seconds(1)
        let labels = try Self.labels("history_national", in: corpus), judged = Self.judge(labels, steps)
        let tags = try String(contentsOfFile: corpus + "/history_national/steps/1/station_database/latest_info.json", encoding: .utf8)
        var nights = "| night | labels | kept | merged | orphan named | retired | new | silent orphan | wrong link |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        for step in steps.keys.sorted().dropFirst() {
            let night = judged.filter { $0.0.toStep == step }
            func n(_ g: Got) -> Int { night.count { $0.1 == g } }
            let release = (try? String(contentsOfFile: "\(corpus)/history_national/steps/\(step)/station_database/latest_info.json", encoding: .utf8))?
                .firstMatch(of: /"version": (\d+)/).map { "v" + $0.1 } ?? "step \(step)"
            nights += "| \(release) | \(night.count) | \(n(.kept)) | \(n(.merged)) | \(n(.named)) | \(n(.retired)) | \(n(.new)) | \(n(.silent)) | \(n(.wrong)) |\n"
        }
        for (l, got) in judged where got == .wrong || got == .silent || got == .contested {
            XCTFail("history_national: \(got.rawValue): \(l.fromStep) \(l.fromKey) -> \(l.toStep) \(l.toKey), expected \(l.expect) (\(l.note))")
        }
        let same = judged.filter { $0.0.expect == "same" }
        let text = """
            # The upstream's whole history, replayed as nightlies

            Written by `make history` (IdentityCorpusTests with STATIONDB_HISTORY=national): every
            release of Tests/Fixtures/station_database/history.tar.xz, \(tags.isEmpty ? "" : "")v20211026 to v20260529,
            published one after the other into one raw/ as the nightly does: an empty registry at
            the start, no decision, no FORCE_PUBLISH. Labels by the upstream's own id (renumbered ids
            bridged by name and place) and by hand (history-events.csv), judged as
            [identity-corpus.md](identity-corpus.md) says. Same-station pairs kept: \(String(format: "%.3f", Double(same.count { $0.1 == .kept }) / Double(max(same.count, 1)) * 100))%.
            \(steps.count) nights in \(Int(seconds.rounded())) s on this machine (\(String(format: "%.2f", seconds / Double(max(steps.count, 1)))) s a night: ingest, priority, build, publish).

            \(Self.table(judged))
            \(nights)
            """
        try Files.write(Array(text.utf8), to: RepositoryData.root + "/docs/identity-history.md")
    }
}
