import ArgumentParser
import Priority
import Publishing
import StationCore

struct PriorityAssignCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Assign every station's weight and write build/weights.csv (the default subcommand).",
        discussion: Help.text(PackageResources.priorityassign_txt)
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
        let weights = try stage.run().weights
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
