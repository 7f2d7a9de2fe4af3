import ArgumentParser
import StationModel

struct PullCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "pull", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb pull is not implemented yet")
    }
}
