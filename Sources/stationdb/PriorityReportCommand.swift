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

    @OptionGroup var proposal: ProposalOptions

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

    @Flag(help: "With --staging alone: weigh the stations with each method under the hand weights (--hand, or RAW/weights.csv), and compare.")
    var testBed = false

    @Option(help: "The raw folder whose weights.csv is the default of --hand.")
    var raw = "raw"

    @Option(help: ArgumentHelp("Blue-noise settings to try with --test-bed: r11:r12[:exponent[:min11:min12:max11:max12[:northSouth]]].", visibility: .hidden))
    var blueNoise: String?

    @Flag(help: ArgumentHelp("With --test-bed, only blue noise (for tuning).", visibility: .hidden))
    var blueNoiseOnly = false

    func validate() throws {
        guard viewports > 0 else { throw ValidationError("--viewports must be positive") }
        if let span, !(0.01...45).contains(span) { throw ValidationError("--span: expected degrees from 0.01 to 45, got \(span)") }
        if proposal.proposal != nil || testBed {
            guard stations.staging != nil, stations.bundle == nil, stations.weights == nil, proposal.proposal == nil || !testBed else {
                throw ValidationError("--proposal or --test-bed weighs the stations itself: give --staging PATH alone")
            }
        } else {
            try stations.checkGiven()
        }
    }

    func run() throws {
        let pinCounts = pins.values
        if testBed { return try runTestBed(pinCounts) }
        if proposal.proposal != nil { return compare(try proposal.weighings(staging: stations.staging ?? "", raw: raw), pinCounts) }
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
            for weighting in [comparison.ours] + comparison.references {
                row(weighting.label, weighting.result.overall)
                for band in weighting.result.bands { row("  " + band.label, band.score) }
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

    /// Weightings of the same stations side by side, a column each: each region's pins at the
    /// country view, the coverage at the country's span, a region's, a city's and a district's, and
    /// over spans from 0.05 to 13 the coverage, pan and zoom stability.
    func compare(_ columns: [(label: String, stations: [WeightedStation])], _ pinCounts: [Int]) {
        let letters = columns.indices.map { String(UnicodeScalar(UInt8(65 + $0))) }
        let first = Dictionary(columns.first?.stations.map { ($0.id, $0.weight) } ?? [], uniquingKeysWith: { a, _ in a })
        for (n, (label, s)) in columns.enumerated() {
            let moved = s.count { HandWeights.range.contains($0.weight) && HandWeights.range.contains(first[$0.id] ?? 0) && first[$0.id] != $0.weight }
            print("\(letters[n]): \(label), \(s.count { $0.enabled && HandWeights.range.contains($0.weight) }) hand weights on live stations"
                  + (n > 0 && moved > 0 ? ", \(moved) at another level than A's" : ""))
        }
        let spans: [(Double?, String)] = [(12.8, "span 12.8 (the country)"), (3.2, "span 3.2 (a region)"), (0.8, "span 0.8 (a city)"), (0.2, "span 0.2 (a district)"), (nil, "spans 0.05..13")]
        for n in pinCounts {
            print("\nN = \(n)".padded(to: 37) + letters.map { pad($0, 8) }.joined())
            print("pins at the country view (every live station's box):")
            let pins = columns.map { Region.pins($0.stations, pins: n) }
            for (r, region) in Region.all.enumerated() { print(pad("  " + region.name, 36) + pins.map { pad(String($0[r]), 8) }.joined()) }
            print("coverage (\(viewports) viewports each, seed \(seed.seed)):")
            for (span, what) in spans {
                let config = ViewportReportConfig(viewports: viewports, pins: n, seed: seed.seed, span: span)
                let drawn = ViewportReport.viewports(stations: columns[0].stations, config: config)
                let scores = columns.map { ViewportReport.run(stations: $0.stations, config: config, over: drawn).overall }
                print(pad("  " + what, 36) + scores.map { pad(f3($0.coverage), 8) }.joined())
                if span == nil { for (name, value) in [("    pan", \ViewportScore.panStability), ("    zoom", \.zoomStability)] { print(pad(name, 36) + scores.map { pad(f3($0[keyPath: value]), 8) }.joined()) } }
            }
        }
    }

    /// Each method under the hand weights (--hand, or RAW/weights.csv), each beside random tiers of the same counts.
    func runTestBed(_ pinCounts: [Int]) throws {
        let network = try StagingFile.read(from: stations.staging ?? "").network
        let inPlace = proposal.hand ?? joinPath(raw, HandWeights.fileName)
        let hand = try HandWeights.read(path: inPlace, network: network).weights
        var methods: [(String, PriorityMethod)] = [("blue noise", .blueNoise(try blueNoise.map(BlueNoiseTiers.parse) ?? .standard))]
        if !blueNoiseOnly { methods.append(("mesh lottery", .meshLottery(PriorityConfig.standardTiers))) }
        compare(methods.flatMap { name, method in
            let weighed = WeightedStations.weighed(network: network, hand: hand, config: PriorityConfig(seed: seed.seed, method: method))
            return [("\(name) under \(inPlace)", weighed), ("\(name), its 11/12/13 shuffled", WeightedStations.randomMachineWeights(weighed, seed: seed.seed))]
        }, pinCounts)
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
