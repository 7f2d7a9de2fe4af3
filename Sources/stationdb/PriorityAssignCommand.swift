import ArgumentParser
import Priority
import StationIO
import StationModel

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
        let stage = PriorityStage(staging: staging, hand: noHand ? nil : HandWeights.file(hand), weights: out, seed: seed.seed, tiers: tiers)
        let weights = try stage.run().weights
        if let previous {
            let before = Dictionary(uniqueKeysWithValues: try WeightedStations.read(bundle: previous).map { ($0.id, $0.weight) })
            let c = WeightChanges.between(previous: before, current: weights)
            note("priority: against \(previous): \(c.changed) weights changed, \(c.added) new stations, \(c.removed) gone")
        }
    }
}

func describeCounts(_ weights: [Int: Int], network: RailNetwork) -> String {
    let c = PriorityAssigner.counts(weights, liveOnly: network)
    let live = network.stations.count(where: \.enabled)
    return "\(live) live stations: hand 1-10 \(c[1...10].reduce(0, +)), 11 \(c[11]), 12 \(c[12]), 13 \(c[13])"
}
