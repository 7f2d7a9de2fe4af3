import ArgumentParser
import Glibc
import StationIO
import StationModel
import Transfer

struct StationDB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stationdb",
        abstract: "Build Japan's station bundle for the station-tracking map apps.",
        discussion: """
        The nightly pipeline is ingest -> priority -> build; `make` runs it as
        `stationdb publish`, which runs each stage only when what it reads
        changed, and `make plan` as `stationdb plan`, which shows what a publish
        would change without publishing. Each stage is also a subcommand:

          stationdb plan --raw raw --build build --dist dist
          stationdb publish --raw raw --build build --dist dist
          stationdb ingest --raw raw --out build/staging.bin \\
            --lint build/lint.json
          stationdb priority --staging build/staging.bin \\
            --hand raw/weights.csv --out build/weights.csv
          stationdb build --staging build/staging.bin \\
            --weights build/weights.csv --lint build/lint.json --dist dist
          stationdb diff dist/3 dist/4
          stationdb verify dist
          stationdb preview dist --baseline dist/3 --out /tmp/preview.html
          stationdb deploy dist /srv/www/stations --check https://stations.example.org

        Exit status: 0 success, 1 diff found differences or plan would publish,
        2 bad input or usage (what was given is wrong), 3 I/O or environment
        failure, or a damaged dist (what it leads to failed), 4 a guard refused
        (or would refuse) to publish, 5 published but RAW/registry.csv not
        updated.

        A CSV, XML or JSON file (every file of raw/) is read only when it is a
        regular file (a FIFO or a device is bad input, refused before it is
        read) of at most 2000000000 bytes; the environment setting
        STATIONDB_MAX_SOURCE_BYTES=<bytes> changes that.
        """,
        // --version says which stationdb this is: the formats it writes and its binary's
        // build ID. ArgumentParser claims --version on every subcommand too, which is why
        // build, publish and plan take --as-version N.
        version: StationDBVersion.description,
        subcommands: [PublishCommand.self, PlanCommand.self, IngestCommand.self, LintCommand.self, PriorityCommand.self, BuildCommand.self, DiffCommand.self,
                      VerifyCommand.self, PreviewCommand.self, DeployCommand.self, FetchCommand.self, PullCommand.self, SynthCommand.self,
                      ReferenceCommand.self]
    )
}

/// Runs the command and maps every failure to the exit statuses of the guide.
func runMain() async -> Never {
    do {
        var command = try StationDB.parseAsRoot()
        try await Events.$sink.withValue(EventLog.say) {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        }
        exit(ExitStatus.success.rawValue)
    } catch let e as InputError {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.badInput.rawValue)
    } catch let e as DamagedError {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.environment.rawValue)
    } catch let e as EnvironmentError {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.environment.rawValue)
    } catch let e as SQLiteError {
        StandardStream.error.write("error: \(e)\n")
        exit(ExitStatus.environment.rawValue)
    } catch let e as TransferError {
        StandardStream.error.write("error: \(e)\n")
        exit(e.exitStatus.rawValue)
    } catch let e as GuardRefusal {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.guardRefused.rawValue)
    } catch let e as ReportedFailure {
        exit(e.status.rawValue)
    } catch {
        let code = StationDB.exitCode(for: error)
        if code == .success {
            StationDB.exit(withError: error) // --help and --version print and exit 0
        }
        if let exitCode = error as? ExitCode { exit(exitCode.rawValue) }
        // Usage errors: ArgumentParser's message, but our exit status 2.
        StandardStream.error.write(StationDB.fullMessage(for: error) + "\n")
        exit(ExitStatus.badInput.rawValue)
    }
}

await runMain()
