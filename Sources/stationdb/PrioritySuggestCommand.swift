import ArgumentParser
import Priority
import StationCore

struct PrioritySuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "List stations that look like hand-weight candidates but have none.",
        discussion: Help.text(PackageResources.prioritysuggest_txt)
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

