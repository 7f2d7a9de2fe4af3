import ArgumentParser
import Priority
import StationIO
import StationModel

struct PrioritySuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "List stations that look like hand-weight candidates but have none.",
        discussion: """
        Ranks live stations without a hand weight by why a maintainer might
        pick them: Shinkansen stations, junctions of several lines, gateways
        where same-named stations of several operators meet, line ends, and in
        each town that has none of these its main station (the most lines).
        Prints CSV rows in raw/weights.csv's layout (s_id, weight, note) with a
        suggested weight and the reasons in the note, to review by hand;
        nothing is applied.

          stationdb priority suggest --staging build/staging.bin \\
            --hand raw/weights.csv --limit 200
        """
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Hand weights CSV; its stations are not suggested. Default: RAW/weights.csv when present.")
    var hand: String?

    @Option(help: "The raw folder whose weights.csv is the default of --hand.")
    var raw = "raw"

    @Option(help: "At most this many suggestions.")
    var limit = 100

    @Flag(help: "Propose a complete weights.csv: every candidate, whatever RAW/weights.csv holds, in s_id order (--hand and --limit do not apply).")
    var complete = false

    func run() throws {
        let network = try StagingFile.read(from: staging).network
        if complete {
            let all = HandWeightSuggestions.suggest(network: network, hand: []).sorted { $0.stationID < $1.stationID }
            print(HandWeightSuggestions.csv(all), terminator: "")
            return
        }
        let hand = try HandWeights.resolve(hand, raw: raw, network: network)
        for w in hand.warnings { note("warning: \(w)") }
        print(HandWeightSuggestions.csv(HandWeightSuggestions.suggest(network: network, hand: hand.weights, limit: limit)), terminator: "")
    }
}

