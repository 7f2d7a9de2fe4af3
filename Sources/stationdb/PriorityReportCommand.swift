import ArgumentParser
import Priority
import StationIO
import StationModel

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
        let pinCounts = pins.split(separator: ",").compactMap { Int($0.filter { $0 != " " }) }
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
    private func f3(_ v: Double) -> String { fixed(v, decimals: 3) }
    private func signed(_ v: Double) -> String { fixed(v, decimals: 3, alwaysSigned: true) }
}

