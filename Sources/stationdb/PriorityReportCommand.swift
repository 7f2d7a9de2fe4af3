import ArgumentParser
import Priority
import StationCore

struct PriorityReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Score a weighting by replaying the clients' map query over random viewports.",
        discussion: Help.text(PackageResources.priorityreport_txt)
    )

    @OptionGroup var stations: WeightedStationsOptions

    @Option(help: "How many viewports to draw.")
    var viewports = 1000

    @Option(help: "Pins per view (the clients' N); a comma list scores several.")
    var pins = PinCounts(values: [100])

    @Option(help: ArgumentHelp("Draw every viewport with this latitude span in degrees (12.8 shows the whole country on a phone, 3.2 a region) instead of spans from 0.05 to 13.", valueName: "degrees"))
    var span: Double?

    @OptionGroup var seed: SeedOption

    @Option(help: ArgumentHelp("The weights to compare with besides random ones: a bundle, version folder or dist. Default: the version --bundle's was made from (previous_version), or with --staging the version --dist publishes now.", valueName: "bundle"))
    var previous: String?

    @Option(help: "With --staging: the dist whose published version is the previous weights.")
    var dist = "dist"

    // The random reference is always scored now; the flag stays for the scripts that give it.
    @Flag(help: ArgumentHelp("Kept for scripts: the random reference is always shown.", visibility: .hidden))
    var compareRandom = false

    @Flag(help: "With --staging alone: weigh the stations with each method, under RAW/weights.csv's hand weights and under a real master's density of them (the test bed), and compare.")
    var testBed = false

    @Option(help: "The raw folder whose weights.csv --test-bed also tries.")
    var raw = "raw"

    @Option(help: ArgumentHelp("Blue-noise settings to try with --test-bed: r11:r12[:exponent[:min11:min12:max11:max12[:northSouth]]].", visibility: .hidden))
    var blueNoise: String?

    @Flag(help: ArgumentHelp("With --test-bed, only the test bed and only blue noise (for tuning).", visibility: .hidden))
    var blueNoiseOnly = false

    func validate() throws {
        guard viewports > 0 else { throw ValidationError("--viewports must be positive") }
        if let span, !(0.01...45).contains(span) { throw ValidationError("--span: expected degrees from 0.01 to 45, got \(span)") }
        if testBed {
            guard stations.staging != nil, stations.bundle == nil, stations.weights == nil else {
                throw ValidationError("--test-bed weighs the stations itself: give --staging PATH alone")
            }
        } else {
            try stations.checkGiven()
        }
    }

    func run() throws {
        let pinCounts = pins.values
        if testBed { return try runTestBed(pinCounts) }
        let ours = try stations.load()
        let before = try previousWeights()
        var c = [Int](repeating: 0, count: 14)
        for s in ours where s.enabled && (1...13).contains(s.weight) { c[s.weight] += 1 }
        print("stations: \(ours.count(where: \.enabled)) live; hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13])")
        print("viewports: \(viewports) drawn with seed \(seed.seed), latitude spans \(span.map { "of \($0)" } ?? "0.05..13") degrees, phone-shaped")
        print("reference points: \(WeightingComparison.randomLabel) (what any weighting must beat), and "
              + (before.map { "\($0.label) (what these replace)" } ?? "no previous version (give --previous)"))
        for n in pinCounts {
            let config = ViewportReportConfig(viewports: viewports, pins: n, seed: seed.seed, span: span)
            let comparison = WeightingComparison.make(ours: ours, previous: before, config: config)
            let a = comparison.ours.result
            print("")
            print("N = \(n): \(a.overall.viewports) viewports hold more than \(n) stations")
            print(pad("", 34) + pad("views", 7) + pad("coverage", 10) + pad("pan", 8) + "zoom")
            func row(_ label: String, _ s: ViewportScore) {
                print(pad(label, 34) + pad(String(s.viewports), 7) + pad(f3(s.coverage), 10) + pad(f3(s.panStability), 8) + f3(s.zoomStability))
            }
            row(comparison.ours.label, a.overall)
            for band in a.bands { row("  " + band.label, band.score) }
            for reference in comparison.references {
                row(reference.label, reference.result.overall)
                for band in reference.result.bands { row("  " + band.label, band.score) }
            }
            for reference in comparison.references {
                let b = reference.result.overall
                print(pad("these - " + reference.label, 41) + pad(signed(a.overall.coverage - b.coverage), 10)
                      + pad(signed(a.overall.panStability - b.panStability), 8) + signed(a.overall.zoomStability - b.zoomStability))
            }
        }
    }

    /// The weights these replace, with how the report names them: --previous; else the version
    /// --bundle's was made from; else, for a staging file, the version --dist publishes now.
    func previousWeights() throws -> (label: String, stations: [WeightedStation])? {
        if let previous {
            return ("previous: \(previous)", try WeightedStations.read(bundle: BundleLocation.resolve(previous).databasePath))
        }
        if let bundle = stations.bundle {
            let location = try BundleLocation.resolve(bundle)
            let described = location.kind == .dist ? joinPath(bundle, DistLayout.latest) : joinPath(parentFolder(of: location.databasePath), DistLayout.manifest)
            guard Files.exists(described), let version = try PublishedBundle.read(path: described).previousVersion else { return nil }
            let dist = location.kind == .dist ? bundle : parentFolder(of: parentFolder(of: location.databasePath))
            let database = joinPath(joinPath(dist.isEmpty ? "." : dist, String(version)), DistLayout.database)
            guard Files.exists(database) else { return nil }
            return ("version \(version), published before", try WeightedStations.read(bundle: database))
        }
        let latest = joinPath(dist, DistLayout.latest)
        guard Files.exists(latest) else { return nil }
        let published = try PublishedBundle.read(path: latest)
        return ("version \(published.version), published now", try WeightedStations.read(bundle: joinPath(dist, published.database)))
    }

    /// Each method under two sets of hand weights, against uniform random tiers with the same counts.
    func runTestBed(_ pinCounts: [Int]) throws {
        guard let staging = stations.staging, stations.bundle == nil, stations.weights == nil else {
            throw ValidationError("--test-bed weighs the stations itself: give --staging PATH alone")
        }
        let network = try StagingFile.read(from: staging).network
        var handSets: [(label: String, weights: [HandWeight])] = []
        let inRaw = joinPath(raw, HandWeights.fileName)
        if Files.exists(inRaw), !blueNoiseOnly {
            handSets.append((inRaw, try HandWeights.read(path: inRaw, network: network).weights))
        }
        handSets.append(("test bed: top suggestions as a real master's", HandWeightSuggestions.testBed(network: network)))
        var methods: [(String, PriorityMethod)] = [("blue noise", .blueNoise(try blueNoise.map(BlueNoiseTiers.parse) ?? .standard))]
        if !blueNoiseOnly { methods.append(("mesh lottery", .meshLottery(PriorityConfig.standardTiers))) }
        for (label, hand) in handSets {
            print("hand weights: \(label), \(hand.count) stations")
            var weighted: [(String, [WeightedStation])] = []
            for (name, method) in methods {
                let weights = PriorityAssigner.assign(network: network, hand: hand, config: PriorityConfig(seed: seed.seed, method: method))
                let stations = WeightedStations.from(network: network, weights: weights)
                let c = PriorityAssigner.counts(weights, liveOnly: network)
                print("  \(name): 11 \(c[11]), 12 \(c[12]), 13 \(c[13])")
                weighted.append((name, stations))
                weighted.append(("  random, same counts", WeightedStations.randomMachineWeights(stations, seed: seed.seed)))
            }
            for n in pinCounts {
                let config = ViewportReportConfig(viewports: viewports, pins: n, seed: seed.seed, span: span)
                print("N = \(n)")
                print(pad("", 24) + pad("coverage", 10) + pad("pan", 8) + pad("zoom", 8) + "by span: " + ViewportReport.bandLabels.joined(separator: ", "))
                for (name, stations) in weighted {
                    let r = ViewportReport.run(stations: stations, config: config)
                    print(pad("  " + name, 24) + pad(f3(r.overall.coverage), 10) + pad(f3(r.overall.panStability), 8) + pad(f3(r.overall.zoomStability), 8)
                          + r.bands.map { f3($0.score.coverage) }.joined(separator: ", "))
                }
            }
            print("")
        }
    }

    /// A column at least one space wider than its text.
    private func pad(_ s: String, _ n: Int) -> String { s.padded(to: n - 1) + " " }
    private func f3(_ v: Double) -> String { fixed(v, decimals: 3) }
    private func signed(_ v: Double) -> String { fixed(v, decimals: 3, alwaysSigned: true) }
}


/// --pins 50,100,300: the clients' N, one or several.
struct PinCounts: ExpressibleByArgument {
    var values: [Int]

    init(values: [Int]) { self.values = values }

    init?(argument: String) {
        let values = argument.split(separator: ",").map { Int($0.trimmed()) }
        guard !values.isEmpty, values.allSatisfy({ ($0 ?? 0) > 0 }) else { return nil }
        self.values = values.map { $0! }
    }

    var defaultValueDescription: String { values.map(String.init).joined(separator: ",") }
}
