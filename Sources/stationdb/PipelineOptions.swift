import ArgumentParser
import Ingest
import Publishing

/// What `publish` and `plan` both take: where raw/, build/ and dist/ are, how machine
/// weights are drawn, the guards, and whether to wait for another run.
struct PipelineOptions<Say: Wording>: ParsableArguments {
    @Option(help: "The raw folder holding the sources.")
    var raw = "raw"

    @Option(help: "Where the staging file, weights, lint report, the candidate version and the preview go.")
    var build = "build"

    @Option(help: "The publish folder holding latest.json and one folder per version.")
    var dist = "dist"

    @OptionGroup var seed: SeedOption

    @Option(help: "How machine weights are drawn: blue-noise (the default) or mesh-lottery (the Makefile's METHOD).")
    var method: MethodName = .blueNoise

    @OptionGroup var guardOptions: GuardOptions<Say>

    @Flag(help: "Exit (status 3) instead of waiting when another run holds the dist or the build folder.")
    var noWait = false

    @Flag(help: "Publish an upstream release older than the one the published version was made from (refused otherwise: the apps would go back).")
    var allowOlderRelease = false

    var settings: PublishSettings {
        var settings = PublishSettings(raw: raw, build: build, dist: dist, seed: seed.seed, method: method.method, guards: guardOptions.guards,
                                       force: guardOptions.force, requestedVersion: guardOptions.requestedVersion, wait: !noWait)
        settings.allowOlderRelease = allowOlderRelease
        return settings
    }
}

/// raw/ as ingest reads it, for ingest, lint and synth: the folder, and the registry and
/// fixes a run may take from elsewhere.
struct RawOptions: ParsableArguments {
    @Option(help: "The raw folder holding sources.json and the sources.")
    var raw = "raw"

    @Option(help: "The ID registry (default: RAW/registry.csv; read only: a publish commits what ingest made).")
    var registry: String?

    @Option(help: "The fixes file (default: RAW/fixes.csv).")
    var fixes: String?

    @Option(help: "Stop listing problems after this many.")
    var maxProblems = 100

    var ingest: IngestOptions { IngestOptions(rawFolder: raw, registryPath: registry, fixesPath: fixes, problemLimit: maxProblems) }
}
