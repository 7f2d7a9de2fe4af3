import ArgumentParser
import Priority
import Publishing
import StationIO
import StationModel

struct PriorityAssignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Assign every station's weight and write build/weights.csv (the default subcommand).",
        discussion: """
        Hand weights (1..10) come from the hand file (s_id, weight, optional
        note); a bad row (unknown s_id, duplicate, weight outside 1..10) stops
        with exit 2 naming file and line. Every other live station gets a
        machine weight, 11, 12 or 13, as blue noise over Japan's grid squares:
        a station gets 11 when no station holding a smaller weight (the hand
        pins first) lies within its radius, about 5 km where 100 stations are
        around (fewer km where more are, a 2nd-mesh 3 x 3 block counting them)
        and the seeded lottery puts it first among the open stations near it;
        then 12 the same way within about 1.5 km; the rest get 13. Distances
        are ovals, north-south counting 0.6, as on a portrait phone screen, so
        that any view the clients draw finds its pins spread, and the tiers
        fill the gaps the hand pins leave. A station's weight depends only on
        the stations within a few radii of it: a data fix changes weights near
        it only. Disabled stations get 13 unless hand-weighted.

        --method mesh-lottery gives the classic weighting: in each 10 km (2nd
        mesh) square the first ticket of the lottery gets 11; in each 5 km
        square the first ticket, and one more per 6 stations in it, get 12
        (--tiers sets its squares). `stationdb priority report --test-bed`
        compares the two.

        The summary on stderr gives the counts per weight and, with
        --previous, how many weights changed against that bundle.

          stationdb priority --staging build/staging.bin \\
            --hand raw/weights.csv --out build/weights.csv \\
            --previous dist/5/stations.sqlite
        """
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Hand weights CSV (s_id, weight, note). Default: RAW/weights.csv when present.")
    var hand: String?

    @Option(help: "The raw folder whose weights.csv is the default of --hand.")
    var raw = "raw"

    @Flag(help: "Assign machine weights only, even if RAW/weights.csv exists.")
    var noHand = false

    @Option(help: "Where to write s_id,weight.")
    var out = "build/weights.csv"

    @OptionGroup var seed: SeedOption

    @Option(help: "A previous bundle (.sqlite) to count changed weights against.")
    var previous: String?

    @Option(help: "How machine weights are drawn: blue-noise (the default) or mesh-lottery (the classic per-square lottery).")
    var method: MethodName = .blueNoise

    @Option(help: "The mesh lottery's tiers, e.g. 11:2nd:1,12:5km:1:6:20 (implies --method mesh-lottery).")
    var tiers: String?

    func run() throws {
        let stage = PriorityStage(staging: staging, hand: noHand ? nil : HandWeights.file(hand, raw: raw), weights: out, seed: seed.seed,
                                  method: method.method, tiers: tiers)
        let weights = try stage.run()
        if let previous {
            let before = Dictionary(uniqueKeysWithValues: try WeightedStations.read(bundle: previous).map { ($0.id, $0.weight) })
            let c = WeightChanges.between(previous: before, current: weights)
            note("priority: against \(previous): \(c.changed) weights changed, \(c.added) new stations, \(c.removed) gone")
        }
    }
}

enum MethodName: String, ExpressibleByArgument, CaseIterable {
    case blueNoise = "blue-noise", meshLottery = "mesh-lottery"

    var method: PriorityMethod {
        switch self {
        case .blueNoise: .blueNoise(.standard)
        case .meshLottery: .meshLottery(PriorityConfig.standardTiers)
        }
    }
}
