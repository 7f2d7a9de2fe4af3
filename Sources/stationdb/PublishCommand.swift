import ArgumentParser
import Publishing
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

        When `stationdb plan` prepared the same version (nothing it is made
        from has changed since, and dist is as it was), that very candidate
        (BUILD/staging.bin.candidate/) is published: the bytes the plan showed.

        Exit status: 0 published or nothing changed, 2 bad input (a missing raw/
        or source file included; nothing is published), 3 I/O failure or
        another publish holds the dist (--no-wait), 4 a guard refused to
        publish, 5 the version was published but RAW/registry.csv could not be
        updated (the message names the copy to restore it from).
        """)

    @OptionGroup var options: PipelineOptions<Publishes>

    @Flag(help: "Print what the run did as JSON on stdout: published or not, version, row counts, changes per kind, the guards' verdict, lint warnings.")
    var json = false

    func run() async throws {
        let report = try await Pipeline(options.settings).publish()
        if json { StandardStream.output.write(String(decoding: try report.json(), as: UTF8.self)) }
        if report.exitStatus != .success { throw ReportedFailure(status: report.exitStatus) }
    }
}
