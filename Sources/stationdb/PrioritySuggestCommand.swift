import ArgumentParser
import Priority
import StationCore

struct PrioritySuggestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "suggest",
        abstract: "List stations that look like hand-weight candidates but have none, or re-tier the hand weights.",
        discussion: Help.text(PackageResources.prioritysuggest_txt)
    )

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Hand weights CSV; its stations are not suggested (--retier: the file re-tiered). Default: RAW/weights.csv when present.")
    var hand: String?

    @Option(help: "The raw folder whose weights.csv is the default of --hand.")
    var raw = "raw"

    @Option(help: "At most this many suggestions.")
    var limit = 100

    @Flag(help: "Propose a complete weights.csv: every candidate, whatever RAW/weights.csv holds, in s_id order (--hand and --limit do not apply).")
    var complete = false

    @Flag(help: "Print the hand weights re-tiered: the same stations, their levels 1-10 spread over the map, each change's reason in its note.")
    var retier = false

    @Option(parsing: .upToNextOption, help: ArgumentHelp("With --retier: s_ids whose level stays as it is (as does a row whose note has the word \"fixed\").", valueName: "s_id"))
    var keep: [Int] = []

    @Option(help: "With --retier: change at most this many levels, those of the smallest levels first.")
    var maxChanges: Int?

    func validate() throws {
        if retier, complete { throw ValidationError("give --retier or --complete, not both") }
        if !retier, !keep.isEmpty || maxChanges != nil { throw ValidationError("--keep and --max-changes go with --retier") }
        if let maxChanges, maxChanges < 0 { throw ValidationError("--max-changes must be 0 or more") }
    }

    func run() throws {
        let network = try StagingFile.read(from: staging).network
        if complete {
            let all = HandWeightSuggestions.suggest(network: network, hand: []).sorted { $0.stationID < $1.stationID }
            print(HandWeightSuggestions.csv(all), terminator: "")
            return
        }
        let hand = try HandWeights.resolve(hand, raw: raw, network: network)
        for w in hand.warnings { note("warning: \(w)") }
        guard retier else {
            return print(HandWeightSuggestions.csv(HandWeightSuggestions.suggest(network: network, hand: hand.weights, limit: limit)), terminator: "")
        }
        let weighted = Set(hand.weights.map(\.stationID))
        if let stray = keep.first(where: { !weighted.contains($0) }) {
            throw StationError.badInput(SourceLocation(file: "--keep", field: String(stray)), "s_id \(stray) has no hand weight to keep")
        }
        let result = HandWeightRetier.retier(network: network, hand: hand.weights, keep: Set(keep), maxChanges: maxChanges)
        print(result.csv, terminator: "")
        let rows = result.rows.count, changed = result.changed
        note("retier: \(changed) of \(rows) hand weights change level (\(fixed(rows > 0 ? Double(changed) * 100 / Double(rows) : 0, decimals: 1))%)"
             + "; spacing by level: " + result.spacing.keys.sorted().map { "\($0): \(fixed(result.spacing[$0]!, decimals: 1)) km" }.joined(separator: ", "))
    }
}
