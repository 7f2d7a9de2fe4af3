import ArgumentParser

/// docs/cli.md is every command's --help, printed from the commands themselves, so the
/// reference is never written twice; a test fails when the committed file differs.
struct ReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reference",
        abstract: "Print the command-line reference (docs/cli.md) from every command's help.",
        discussion: "  stationdb reference > docs/cli.md",
        shouldDisplay: false)

    func run() {
        var out = """
            # stationdb: the command-line reference

            Every command's `--help`, as `stationdb reference` prints it (`make test` fails when
            this file differs: regenerate it with `.build/release/stationdb reference > docs/cli.md`).
            The exit statuses are under `stationdb` itself, first.

            """
        func add(_ command: ParsableCommand.Type, _ path: [String]) {
            guard command.configuration.shouldDisplay else { return }
            out += "\n## \(path.joined(separator: " "))\n\n```\n" + StationDB.helpMessage(for: command, columns: 80) + "\n```\n"
            for sub in command.configuration.subcommands { add(sub, path + [sub._commandName]) }
        }
        add(StationDB.self, ["stationdb"])
        print(out, terminator: "")
    }
}
