import ArgumentParser
import Priority
import StationCore

struct PriorityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "priority",
        abstract: "Give every station its map weight: hand weights 1..10, machine weights 11..13.",
        discussion: Help.text(PackageResources.priority_txt),
        subcommands: [PriorityAssignCommand.self, PriorityReportCommand.self, PrioritySuggestCommand.self, PriorityMapCommand.self],
        defaultSubcommand: PriorityAssignCommand.self
    )
}

/// `--seed`, shared by the subcommands that draw lots.
struct SeedOption: ParsableArguments {
    @Option(help: "Seed of the lottery (the Makefile's SEED). Same inputs and seed, same weights.")
    var seed: UInt64 = StationHash.defaultSeed
}

/// --bundle, or --staging with --weights: the stations a report or map looks at.
struct WeightedStationsOptions: ParsableArguments {
    @Option(help: "A bundle: a .sqlite with a stations table (s_id, lat, lng, weight, enabled), a dist folder or a version folder.")
    var bundle: String?

    @Option(help: "A staging file, with --weights.")
    var staging: String?

    @Option(help: "A weights CSV (s_id,weight) from `stationdb priority`, with --staging.")
    var weights: String?

    /// Which stations: checked when the options are parsed (a subcommand's validate), so a
    /// mistake is told with that subcommand's usage, not stationdb's.
    func checkGiven() throws {
        if bundle != nil {
            guard staging == nil, weights == nil else { throw ValidationError("give --bundle, or --staging with --weights, not both") }
        } else if staging == nil || weights == nil {
            throw ValidationError("give --bundle PATH, or --staging PATH --weights PATH")
        }
    }

    /// What the stations are, for a title: the bundle, or the staging file and its weights.
    var label: String { bundle ?? "\(staging ?? "") with \(weights ?? "")" }

    func load() throws -> [WeightedStation] {
        try checkGiven()
        if let bundle { return try WeightedStations.read(bundle: BundleLocation.resolve(bundle).databasePath) }
        guard let staging, let weights else { throw ValidationError("give --bundle PATH, or --staging PATH --weights PATH") }
        let network = try StagingFile.read(from: staging).network
        return WeightedStations.from(network: network, weights: try StationWeightsFile.read(from: weights))
    }
}

/// --proposal with --staging: a proposed weights.csv beside the hand weights in place, each weighed
/// with the machine tiers around it, and the machine weights alone, for report and map.
struct ProposalOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A proposed weights.csv (from `priority suggest --retier`), with --staging: compared with the hand weights in place (--hand) and the machine weights alone.", valueName: "file"))
    var proposal: String?

    @Option(help: ArgumentHelp("With --proposal (or report's --test-bed): the hand weights in place. Default: RAW/weights.csv.", valueName: "file"))
    var hand: String?

    /// The three weightings of `staging`, each with its label: the hand weights in place, the proposal, none.
    func weighings(staging: String, raw: String) throws -> [(label: String, stations: [WeightedStation])] {
        guard let proposal else { return [] }
        let network = try StagingFile.read(from: staging).network
        let inPlace = hand ?? joinPath(raw, HandWeights.fileName)
        return [(inPlace, try HandWeights.read(path: inPlace, network: network).weights), (proposal, try HandWeights.read(path: proposal, network: network).weights),
                ("machine weights alone", [])].map { ($0.0, WeightedStations.weighed(network: network, hand: $0.1)) }
    }
}
