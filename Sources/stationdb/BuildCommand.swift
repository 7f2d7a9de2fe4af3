import ArgumentParser
import BuildDB
import Publishing
import StationCore
import FoundationEssentials

struct BuildCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Build the station bundle from the staging file and weights, and publish it into dist/.",
        discussion: Help.text(PackageResources.build_txt))

    @Option(help: "The staging file from `stationdb ingest`.")
    var staging = "build/staging.bin"

    @Option(help: "Station weights (s_id,weight; 1..13) from `stationdb priority`.")
    var weights = "build/weights.csv"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @Option(help: "The raw folder: its renumbered.csv and registry.csv are the defaults of --renumbered and --registry.")
    var raw = "raw"

    @Option(help: "Renumbered stations CSV (new_s_id,old_s_id,version). Default: RAW/renumbered.csv when present.")
    var renumbered: String?

    @Option(help: "The ID registry (default: RAW/registry.csv when RAW is a folder): once the version is published it takes the registry ingest left beside the staging file.")
    var registry: String?

    @OptionGroup var guardOptions: GuardOptions<Publishes>

    @Option(help: "The report of `stationdb lint --out`: its count of warnings goes into latest.json and the summary.")
    var lint: String?

    func run() async throws {
        let defaultRenumbered = joinPath(raw, RenumberingFile.fileName)
        let renumbered = renumbered ?? (Files.exists(defaultRenumbered) ? defaultRenumbered : nil)
        let registry = registry ?? (Files.isFolder(raw) ? joinPath(raw, Registry.fileName) : nil)
        let result = try await BuildStage(staging: staging, weights: weights, dist: dist, renumbered: renumbered, registry: registry, lint: lint,
                                          requestedVersion: guardOptions.requestedVersion, guards: guardOptions.guards).run(force: guardOptions.force)
        if result.exitStatus != .success { throw ExitCode(result.exitStatus.rawValue) }
    }
}
