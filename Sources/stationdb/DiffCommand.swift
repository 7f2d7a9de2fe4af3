import ArgumentParser
import StationModel

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "diff", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb diff is not implemented yet")
    }
}
