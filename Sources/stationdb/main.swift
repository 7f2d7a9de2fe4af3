import ArgumentParser
import CMalloc
import FoundationEssentials
import Glibc
import StationModel

struct StationDB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stationdb",
        abstract: "Build Japan's station bundle for the station-tracking map apps.",
        discussion: """
        The nightly pipeline is ingest -> priority -> build; `make` runs it with the
        right files. Each stage is also a subcommand:

          stationdb ingest --raw raw --out build/staging.bin
          stationdb priority --staging build/staging.bin --hand raw/weights.csv --out build/weights.csv
          stationdb build --staging build/staging.bin --weights build/weights.csv --dist dist
          stationdb diff dist/3 dist/4
          stationdb verify dist

        Exit status: 0 success, 1 diff found differences, 2 bad input or usage,
        3 I/O or environment failure, 4 a guard refused to publish.
        """,
        subcommands: [IngestCommand.self, PriorityCommand.self, BuildCommand.self, DiffCommand.self,
                      VerifyCommand.self, FetchCommand.self, PullCommand.self, SynthCommand.self]
    )
}

/// How glibc's allocator serves this process. By default it maps every block
/// above 128 KB (raised as such blocks are freed) on its own, unmaps it when
/// freed (each unmap interrupting the other core to flush its TLB) and hands the
/// heap's free top back: a block made again (file buffers, field offsets, growing
/// arrays) is fresh pages, each zeroed on its first touch. On this VM a page
/// fault costs ~3 us; a national ingest took ~4,100 of them. Blocks up to 32 MB
/// now come from the heap and freed memory is kept for reuse: ~700 fewer faults
/// and ~7% of a national ingest's time, and at 100 times national a third fewer
/// faults in build. Larger blocks are still mapped on their own, so the peak at
/// 100x stays where it was (bench/README.md).
func tuneAllocator() {
    _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
    _ = mallopt(M_TRIM_THRESHOLD, 256 << 20)
    _ = mallopt(M_TOP_PAD, 16 << 20)
}

/// Runs the command and maps every failure to the exit statuses of the guide.
func runMain() -> Never {
    tuneAllocator()
    do {
        phase("main")
        var command = try StationDB.parseAsRoot()
        phase("parsed")
        try command.run()
        exit(ExitStatus.success.rawValue)
    } catch let e as InputError {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.badInput.rawValue)
    } catch let e as EnvironmentError {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.environment.rawValue)
    } catch let e as SQLiteError {
        StandardStream.error.write("error: \(e)\n")
        exit(ExitStatus.environment.rawValue)
    } catch let e as GuardRefusal {
        StandardStream.error.write(e.description + "\n")
        exit(ExitStatus.guardRefused.rawValue)
    } catch let e as CommandExit {
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

/// Thrown by a command that has already said what it had to and only needs a status (e.g. diff's 1).
struct CommandExit: Error {
    var status: ExitStatus
}

runMain()
