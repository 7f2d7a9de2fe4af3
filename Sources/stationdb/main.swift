import ArgumentParser
import Glibc
import StationCore

struct StationDB: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stationdb",
        abstract: "Build Japan's station bundle for the station-tracking map apps.",
        discussion: Help.text(PackageResources.main_txt),
        // --version says which stationdb this is: the formats it writes and its binary's
        // build ID. ArgumentParser claims --version on every subcommand too, which is why
        // build, publish and plan take --as-version N.
        version: StationDBVersion.description,
        subcommands: [PublishCommand.self, PlanCommand.self, IngestCommand.self, LintCommand.self, ExplainCommand.self, PriorityCommand.self, BuildCommand.self, DiffCommand.self,
                      VerifyCommand.self, PreviewCommand.self, DeployCommand.self, FetchCommand.self, PullCommand.self, SynthCommand.self,
                      ReferenceCommand.self]
    )
}

/// Runs the command and maps every failure to the exit statuses of the guide.
func runMain() async -> Never {
    do {
        var command = try StationDB.parseAsRoot()
        try await Events.sending(to: EventLog.say) {
            if var asynchronous = command as? AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
        }
        exit(ExitStatus.success.rawValue)
    } catch let e as StationError {
        if !e.said { StandardStream.error.write(e.description + "\n") }
        exit(e.exitStatus.rawValue)
    } catch let e as SQLiteError {
        StandardStream.error.write("error: \(e)\n")
        exit(ExitStatus.environment.rawValue)
    } catch let code as ExitCode {
        // A command that said its outcome (plan, diff, a publish's report) and gives its status.
        exit(code.rawValue)
    } catch {
        let code = StationDB.exitCode(for: error)
        if code == .success {
            StationDB.exit(withError: error) // --help and --version print and exit 0
        }
        // Usage errors: ArgumentParser's message, but our exit status 2.
        StandardStream.error.write(StationDB.fullMessage(for: error) + "\n")
        exit(ExitStatus.badInput.rawValue)
    }
}

await runMain()
