import ArgumentParser
import Dispatch
import FoundationEssentials
import Glibc
import Priority
import StationModel

struct PriorityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Give every station its map weight: hand weights 1..10, grid-mesh weights 11..13.",
        discussion: """
        The map clients draw at most N pins per view, ordered by weight then by
        distance from the centre, so weights decide what every user sees. Without a
        subcommand this runs `assign`. The other subcommands judge a weighting
        (report, map) or help the maintainers keep raw/weights.csv (suggest).

          stationdb priority --staging build/staging.bin --hand raw/weights.csv --out build/weights.csv
          stationdb priority report --bundle dist/5/stations.sqlite --compare-random
          stationdb priority suggest --staging build/staging.bin --limit 100
          stationdb priority map --staging build/staging.bin --weights build/weights.csv --out build/weights.svg
        """,
        subcommands: [PriorityAssignCommand.self, PriorityReportCommand.self, PrioritySuggestCommand.self,
                      PriorityMapCommand.self, PriorityBenchCommand.self],
        defaultSubcommand: PriorityAssignCommand.self
    )
}

/// `--seed`, shared by the subcommands that draw lots.
struct SeedOption: ParsableArguments {
    @Option(help: "Seed of the lottery (the Makefile's SEED). Same inputs and seed, same weights.")
    var seed: UInt64 = StationHash.defaultSeed
}

/// Reads the hand weights: an explicit path must exist; without one,
/// raw/weights.csv is used when present and no hand weights otherwise.
func readHandWeights(_ path: String?, network: RailNetwork) throws -> (weights: [HandWeight], warnings: [String]) {
    if let path { return try HandWeights.read(path: path, label: path, network: network) }
    let fallback = "raw/weights.csv"
    guard FileManager.default.fileExists(atPath: fallback) else {
        note("priority: no \(fallback); assigning without hand weights")
        return ([], [])
    }
    return try HandWeights.read(path: fallback, label: fallback, network: network)
}

/// readHandWeights against the stations' s_ids and enabled flags alone.
func readHandWeights(_ path: String?, points: StationPoints) throws -> (weights: [HandWeight], warnings: [String]) {
    if let path { return try HandWeights.read(path: path, label: path, points: points) }
    let fallback = "raw/weights.csv"
    guard FileManager.default.fileExists(atPath: fallback) else {
        note("priority: no \(fallback); assigning without hand weights")
        return ([], [])
    }
    return try HandWeights.read(path: fallback, label: fallback, points: points)
}

/// "11:2nd:1,12:5km:2" or with density "12:5km:1:8:3" (one more pick per 8 stations, at most 3).
func parseTiers(_ text: String) throws -> [MeshTier] {
    try text.split(separator: ",").map { item in
        let p = item.split(separator: ":").map(String.init)
        guard p.count == 3 || p.count == 5, let w = Int(p[0]), (11...12).contains(w), let level = MeshLevel(rawValue: p[1]),
              let picks = Int(p[2]), picks >= 0 else {
            throw ValidationError("bad tier '\(item)': expected weight:level:picks[:stationsPerExtraPick:maxPicks], weight 11 or 12, level one of \(MeshLevel.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if p.count == 5 {
            guard let step = Int(p[3]), step > 0, let most = Int(p[4]), most >= picks else { throw ValidationError("bad tier '\(item)'") }
            return MeshTier(weight: w, level: level, picks: picks, stationsPerExtraPick: step, maxPicks: most)
        }
        return MeshTier(weight: w, level: level, picks: picks)
    }
}

func describeCounts(_ weights: [Int: Int], network: RailNetwork) -> String {
    let c = PriorityAssigner.counts(weights, liveOnly: network)
    let live = network.stations.count(where: \.enabled)
    return "\(live) live stations: hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13])"
}

struct PriorityAssignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Assign every station's weight and write build/weights.csv (the default subcommand).",
        discussion: """
        Hand weights (1..10) come from the hand file (s_id, weight, optional note);
        a bad row (unknown s_id, duplicate, weight outside 1..10) stops with exit 2
        naming file and line. Every other live station gets a machine weight from
        Japan's grid squares: in each 10 km (2nd mesh) square the first ticket of a
        seeded lottery gets 11; in each 5 km square the first ticket, and one more
        per 6 stations in it, get 12; the rest get 13. Hand-weighted stations take
        the first places of their squares. Disabled stations get 13 unless hand-
        weighted. A station's weight depends only on the stations in its own
        squares, so a one-station fix changes weights only there. The summary on
        stderr gives the counts per weight and, with --previous, how many weights
        changed against that bundle.

          stationdb priority --staging build/staging.bin --hand raw/weights.csv --out build/weights.csv --previous dist/current.sqlite
        """
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Hand weights CSV (s_id, weight, note). Default: raw/weights.csv when present.")
    var hand: String?

    @Flag(help: "Assign machine weights only, even if raw/weights.csv exists (make passes this when RAW has no weights.csv).")
    var noHand = false

    @Option(help: "Where to write s_id,weight.")
    var out = "build/weights.csv"

    @OptionGroup var seed: SeedOption

    @Option(help: "A previous bundle (.sqlite) to count changed weights against.")
    var previous: String?

    @Option(help: ArgumentHelp("Machine tiers, e.g. 11:2nd:1,12:5km:2 (for tuning with `report`).", visibility: .hidden))
    var tiers: String?

    func run() throws {
        // Only the stations' s_id, position and enabled flag matter here: the
        // lean read skips every name, line and operator of the staging file.
        let points = try StagingFile.readStationPoints(from: staging)
        let hand = noHand ? (weights: [], warnings: []) : try readHandWeights(hand, points: points)
        for w in hand.warnings { note(w) }
        var config = PriorityConfig(seed: seed.seed)
        if let tiers { config.tiers = try parseTiers(tiers) }
        let weights = PriorityAssigner.weights(points: points, hand: hand.weights, config: config)
        try WeightsWriter.write(ids: points.ids, weights: weights, to: out)
        let c = PriorityAssigner.counts(weights, points: points)
        let live = points.enabled.reduce(0) { $1 ? $0 + 1 : $0 }
        note("priority: \(live) live stations: hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13]); wrote \(out)")
        if let previous {
            let before = Dictionary(uniqueKeysWithValues: try WeightedStations.read(bundle: previous).map { ($0.id, $0.weight) })
            let current = Dictionary(uniqueKeysWithValues: zip(points.ids, weights))
            let c = WeightChanges.between(previous: before, current: current)
            note("priority: against \(previous): \(c.changed) weights changed, \(c.added) new stations, \(c.removed) gone")
        }
    }
}

/// --bundle, or --staging with --weights: the stations a report or map looks at.
struct WeightedStationsOptions: ParsableArguments {
    @Option(help: "Any bundle (.sqlite with a stations table holding s_id, lat, lng, weight, enabled).")
    var bundle: String?

    @Option(help: "A staging file, with --weights.")
    var staging: String?

    @Option(help: "A weights CSV (s_id,weight) from `stationdb priority`, with --staging.")
    var weights: String?

    func load() throws -> [WeightedStation] {
        if let bundle {
            guard staging == nil, weights == nil else { throw ValidationError("give --bundle, or --staging with --weights, not both") }
            return try WeightedStations.read(bundle: bundle)
        }
        guard let staging, let weights else { throw ValidationError("give --bundle PATH, or --staging PATH --weights PATH") }
        let network = try StagingFile.read(from: staging).network
        return WeightedStations.from(network: network, weights: try StationWeightsFile.read(from: weights))
    }
}

struct PriorityReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Score a weighting by replaying the clients' map query over random viewports.",
        discussion: """
        Draws phone-shaped viewports (latitude spans log-uniform from 0.05 to 13
        degrees, centred near random live stations), runs the clients' query (ORDER
        BY weight, distance LIMIT N on the view enlarged 1.1x) and prints, over the
        viewports holding more than N stations:
          coverage        share of the view's occupied 8x8 cells showing at least one pin
          pan stability   share of shown pins still shown after a 10% pan (among those still inside)
          zoom stability  the same after zooming out 10%
        Works on any bundle, so a weighting can be compared with a previous or
        foreign one. --compare-random also scores the same hand weights with the
        11/12/13 weights shuffled at random (same counts), the baseline a mesh
        weighting must beat.

          stationdb priority report --bundle dist/5/stations.sqlite --compare-random
          stationdb priority report --staging build/staging.bin --weights build/weights.csv --pins 50,100,300
        """
    )

    @OptionGroup var stations: WeightedStationsOptions

    @Option(help: "How many viewports to draw.")
    var viewports = 1000

    @Option(help: "Pins per view (the clients' N); a comma list scores several.")
    var pins = "100"

    @OptionGroup var seed: SeedOption

    @Flag(help: "Also score a uniform random 11/12/13 assignment with the same hand weights and counts.")
    var compareRandom = false

    func run() throws {
        let pinCounts = pins.split(separator: ",").compactMap { Int($0.trimmingWhitespace()) }
        guard !pinCounts.isEmpty, pinCounts.allSatisfy({ $0 > 0 }) else { throw ValidationError("--pins: expected positive integers, e.g. 100 or 50,100,300") }
        guard viewports > 0 else { throw ValidationError("--viewports must be positive") }
        let ours = try stations.load()
        let random = compareRandom ? WeightedStations.randomMachineWeights(ours, seed: seed.seed) : nil
        var c = [Int](repeating: 0, count: 14)
        for s in ours where s.enabled && (1...13).contains(s.weight) { c[s.weight] += 1 }
        print("stations: \(ours.count(where: \.enabled)) live; hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13])")
        print("viewports: \(viewports) drawn with seed \(seed.seed), latitude spans 0.05..13 degrees, phone-shaped")
        for n in pinCounts {
            let config = ViewportReportConfig(viewports: viewports, pins: n, seed: seed.seed)
            let a = ViewportReport.run(stations: ours, config: config)
            print("")
            print("N = \(n): \(a.overall.viewports) viewports hold more than \(n) stations")
            print(pad("", 22) + pad("views", 7) + pad("coverage", 10) + pad("pan", 8) + "zoom")
            func row(_ label: String, _ s: ViewportScore) {
                print(pad(label, 22) + pad(String(s.viewports), 7) + pad(f3(s.coverage), 10) + pad(f3(s.panStability), 8) + f3(s.zoomStability))
            }
            row("these weights", a.overall)
            for band in a.bands { row("  " + band.label, band.score) }
            if let random {
                let b = ViewportReport.run(stations: random, config: config)
                row("random 11/12/13", b.overall)
                for band in b.bands { row("  " + band.label, band.score) }
                print(pad("difference", 29) + pad(signed(a.overall.coverage - b.overall.coverage), 10)
                      + pad(signed(a.overall.panStability - b.overall.panStability), 8) + signed(a.overall.zoomStability - b.overall.zoomStability))
            }
        }
    }

    private func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s + " " : s + String(repeating: " ", count: n - s.count) }
    private func f3(_ v: Double) -> String { String(fixed: v, decimals: 3) }
    private func signed(_ v: Double) -> String { String(fixed: v, decimals: 3, alwaysSigned: true) }
}

struct PrioritySuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "List stations that look like hand-weight candidates but have none.",
        discussion: """
        Ranks live stations without a hand weight by why a maintainer might pick
        them: Shinkansen stations, junctions of several lines, gateways where same-
        named stations of several operators meet, line ends. Prints CSV rows in
        raw/weights.csv's layout (s_id, weight, note) with a suggested weight and
        the reasons in the note, to review by hand; nothing is applied.

          stationdb priority suggest --staging build/staging.bin --hand raw/weights.csv --limit 200
        """
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Hand weights CSV; its stations are not suggested. Default: raw/weights.csv when present.")
    var hand: String?

    @Option(help: "At most this many suggestions.")
    var limit = 100

    func run() throws {
        let network = try StagingFile.read(from: staging).network
        let hand = try readHandWeights(hand, network: network)
        for w in hand.warnings { note(w) }
        print(HandWeightSuggestions.csv(HandWeightSuggestions.suggest(network: network, hand: hand.weights, limit: limit)), terminator: "")
    }
}

struct PriorityMapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw the stations coloured by weight as an SVG (optionally one viewport's pins).",
        discussion: """
        Hand weights red, 11 orange, 12 blue, 13 grey. With --viewport LAT,LNG,SPAN
        the map frames that phone-shaped view (SPAN degrees of latitude) and rings
        the pins the clients show. --png also converts with rsvg-convert where it is
        installed.

          stationdb priority map --staging build/staging.bin --weights build/weights.csv --out build/weights.svg
          stationdb priority map --bundle dist/5/stations.sqlite --viewport 35.68,139.76,0.5 --out tokyo.svg --png tokyo.png
        """
    )

    @OptionGroup var stations: WeightedStationsOptions

    @Option(help: "The SVG file to write.")
    var out: String

    @Option(help: "LAT,LNG,SPAN: frame this view and ring the pins it shows.")
    var viewport: String?

    @Option(help: "Pins per view (the clients' N) for --viewport.")
    var pins = 100

    @Option(help: "Also write a PNG with rsvg-convert.")
    var png: String?

    func run() throws {
        var view: Viewport?
        if let viewport {
            guard let v = Viewport(text: viewport) else { throw ValidationError("--viewport: expected LAT,LNG,SPAN in degrees, e.g. 35.68,139.76,0.5") }
            view = v
        }
        let svg = WeightMap.svg(stations: try stations.load(), viewport: view, pins: pins)
        try AtomicFile.write(svg, to: out)
        note("priority: wrote \(out)")
        if let png {
            let candidates = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"]
            guard let tool = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
                note("priority: rsvg-convert is not installed (Debian: librsvg2-bin); only the SVG was written")
                return
            }
            guard try runTool(tool, ["-o", png, out]) else { throw EnvironmentError("rsvg-convert failed on \(out)") }
            note("priority: wrote \(png)")
        }
    }
}

struct PriorityBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Time the assignment on the national data and on a network scaled up to --scale stations.",
        discussion: """
        For `make bench`: times PriorityAssigner on the staging network (best of
        --runs), then on a synthetic network of --scale stations made by copying the
        live stations with small seeded offsets, and prints milliseconds, the ratio,
        and the peak resident memory. "assignment" is what `priority assign` runs
        (PriorityAssigner.weights over the stations' s_id, lat, lng, enabled
        arrays); "with the s_id dictionary" adds the [s_id: weight] dictionary API.
        The thread CPU times beside the wall times show the work alone when the
        machine is shared (a long run waits for the CPU more than a short one).

          stationdb priority bench --staging build/staging.bin --scale 1000000
        """
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Stations in the scaled-up network.")
    var scale = 1_000_000

    @Option(help: "Runs to take the best of.")
    var runs = 5

    func run() throws {
        let network = try StagingFile.read(from: staging).network
        let points = StationPoints(stations: network.stations)
        let national = best { _ = PriorityAssigner.weights(points: points, hand: []) }
        let nationalDict = best { _ = PriorityAssigner.assign(network: network, hand: []) }
        print("national: \(network.stations.count) stations, assignment \(ms(national.wall, 2)) ms, "
              + "with the s_id dictionary \(ms(nationalDict.wall, 2)) ms (best of \(runs))")
        let rssBefore = peakResidentKB()

        var big = RailNetwork()
        big.stations.reserveCapacity(scale)
        let live = network.stations.filter(\.enabled)
        guard !live.isEmpty else { throw InputError(SourceLocation(file: staging), "no live stations") }
        var rng = SeededGenerator(seed: 1)
        for i in 0..<scale {
            var s = live[i % live.count]
            s.id = i + 1
            s.lat += rng.below(20_001) - 10_000; s.lng += rng.below(20_001) - 10_000
            big.stations.append(s)
        }
        let bigPoints = StationPoints(stations: big.stations)
        let rssNetwork = peakResidentKB()
        let scaled = best(min(runs, 3)) { _ = PriorityAssigner.weights(points: bigPoints, hand: []) }
        let scaledDict = best(min(runs, 3)) { _ = PriorityAssigner.assign(network: big, hand: []) }
        let rssAfter = peakResidentKB()
        print("scaled: \(scale) stations, assignment \(ms(scaled.wall, 1)) ms = \(ratio(scaled.wall, national.wall))x national (budget 120x); "
              + "with the dictionary \(ms(scaledDict.wall, 1)) ms = \(ratio(scaledDict.wall, nationalDict.wall))x")
        let cpu = [national.cpu, nationalDict.cpu, scaled.cpu, scaledDict.cpu]
        print("thread CPU time (best of runs): national \(ms(cpu[0], 2)) ms, scaled \(ms(cpu[2], 1)) ms = \(ratio(cpu[2], cpu[0]))x; "
              + "with the dictionary \(ms(cpu[1], 2)) ms, \(ms(cpu[3], 1)) ms = \(ratio(cpu[3], cpu[1]))x")
        print("peak resident memory: \(rssBefore / 1024) MB national, \(rssNetwork / 1024) MB with the scaled network, \(rssAfter / 1024) MB after assigning it")
    }

    private func ms(_ seconds: Double, _ decimals: Int) -> String { String(fixed: seconds * 1000, decimals: decimals) }
    private func ratio(_ a: Double, _ b: Double) -> String { String(fixed: a / b, decimals: 1) }

    private func best(_ n: Int? = nil, _ body: () -> Void) -> (wall: Double, cpu: Double) {
        var best = Double.infinity, bestCPU = Double.infinity
        for _ in 0..<(n ?? runs) {
            let t0 = DispatchTime.now().uptimeNanoseconds, c0 = threadCPUSeconds()
            body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
            bestCPU = min(bestCPU, threadCPUSeconds() - c0)
        }
        return (best, bestCPU)
    }

    /// On a shared machine a long run waits for the CPU more than a short
    /// one, which inflates the wall-time ratio; this thread's CPU time shows
    /// the work alone.
    private func threadCPUSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private func peakResidentKB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss)
    }
}

/// Runs `tool` with `arguments` on this process's stdin, stdout and stderr and
/// waits for it: true when it exits with status 0.
private func runTool(_ tool: String, _ arguments: [String]) throws -> Bool {
    let argv = ([tool] + arguments).map { strdup($0) } + [nil]
    defer { for a in argv { free(a) } }
    var pid: pid_t = 0
    let rc = argv.withUnsafeBufferPointer { posix_spawn(&pid, tool, nil, nil, $0.baseAddress!, environ) }
    guard rc == 0 else { throw EnvironmentError("cannot run \(tool): \(String(cString: strerror(rc)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        guard errno == EINTR else { return false }
    }
    return status == 0
}
