import ArgumentParser
import BuildDB
import Ingest
import Priority
import StationIO
import StationModel

struct PublishCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "The nightly job (what `make` runs): ingest, priority and build, each only when what it reads changed.",
        discussion: """
        Holds dist/.lock from the first read to the new latest.json, so two runs
        into one dist never publish at once: a second run waits (saying for
        which pid), or with --no-wait exits 3. Each stage runs only when the
        content of what it reads differs from what its last run read (its
        record beside its output: BUILD/staging.bin.inputs,
        BUILD/weights.csv.inputs, DIST/latest.json.inputs): a source, fix, hand
        weight or registry changed, added or deleted, another seed or another
        stationdb binary. The stages run by hand write the same records, so
        they and this command agree on what has changed.

        Reads RAW (sources.json, the sources, fixes.csv, registry.csv,
        weights.csv, renumbered.csv), writes BUILD/staging.bin, BUILD/lint.json
        and BUILD/weights.csv, and a new version into DIST. When a version
        gives new stations IDs, RAW/registry.csv takes them as it is published
        (never on a refused or failed run): commit it with the source change
        that caused it.

        Examples:
          stationdb publish --raw raw --build build --dist dist
          stationdb publish --no-wait          # a cron job that must not queue
          stationdb publish --max-disabled 5   # see `stationdb build --help`

        Every run that publishes nothing ends "stationdb: nothing changed; DIST
        is up to date (version N)".

        Exit status: 0 published or nothing changed, 2 bad input (a missing raw/
        or source file included; nothing is published), 3 I/O failure or
        another publish holds the dist (--no-wait), 4 a guard refused to publish.
        """)

    @Option(help: "The raw folder holding the sources.")
    var raw = "raw"

    @Option(help: "Where the staging file, weights and lint report go.")
    var build = "build"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @OptionGroup var seed: SeedOption

    @Option(help: "How machine weights are drawn: blue-noise (the default) or mesh-lottery (the Makefile's METHOD).")
    var method: MethodName = .blueNoise

    @OptionGroup var guardOptions: GuardOptions

    @Flag(help: "Exit (status 3) instead of waiting when another publish holds the dist.")
    var noWait = false

    func run() async throws {
        // What makes the run pointless is said before the dist is even locked.
        try IngestOptions(rawFolder: raw).checkRawFolder()
        if let requested = guardOptions.requestedVersion {
            _ = try BundleBuilder.nextVersion(previous: try PublishedBundle.latest(in: dist)?.version,
                                              highestFolder: BundleBuilder.highestVersionFolder(in: dist), requested: requested)
        }
        let lock = try DistLock.acquire(dist: dist, wait: !noWait)
        let staging = joinPath(build, StagingFile.defaultName), weights = joinPath(build, "weights.csv"), lint = joinPath(build, "lint.json")
        func inRaw(_ name: String) -> String? { Files.exists(joinPath(raw, name)) ? joinPath(raw, name) : nil }

        let ingest = IngestStage(options: IngestOptions(rawFolder: raw), staging: staging, lint: lint)
        let priority = PriorityStage(staging: staging, hand: inRaw(HandWeights.fileName), weights: weights, seed: seed.seed,
                                     method: method.method)
        let build = BuildStage(staging: staging, weights: weights, dist: dist, renumbered: inRaw(RenumberingFile.fileName),
                               registry: joinPath(raw, Registry.fileName), lint: lint, requestedVersion: guardOptions.requestedVersion,
                               guards: guardOptions.guards, force: guardOptions.force)
        /// Says whether a stage runs and why; true when it must.
        func announce(_ name: String, _ reason: String?) -> Bool {
            note(reason.map { "\(name): running (\($0))" } ?? "\(name): up to date (nothing it reads has changed)")
            return reason != nil
        }

        if announce("ingest", ingest.reasonToRun()) {
            try await ingest.run()
        }
        let priorityReason = priority.reasonToRun(), buildReason = build.reasonToRun()
        // Before weights are drawn for a station whose s_id a damaged registry changed.
        if priorityReason != nil || buildReason != nil { try build.checkPublishedIDs() }
        if announce("priority", priorityReason) {
            try priority.run()
        }
        var outcome: BuildOutcome?
        // Priority may have changed the weights since the build's reason was taken.
        if announce("build", priorityReason != nil ? build.reasonToRun() : buildReason) {
            outcome = try await build.run(lock: lock)
        }

        // One wording for every run that publishes nothing, for a cron job to look for.
        if case .published(let bundle, _)? = outcome {
            note("stationdb: published version \(bundle.version) into \(dist)")
        } else {
            let version = try PublishedBundle.latest(in: dist)?.version
            note("stationdb: nothing changed; \(dist) is up to date (version \(version.map(String.init) ?? "none"))")
        }
        withExtendedLifetime(lock) {}
    }
}
