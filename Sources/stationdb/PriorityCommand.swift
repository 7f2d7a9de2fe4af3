import ArgumentParser
import StationModel

struct PriorityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "priority", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb priority is not implemented yet")
    }
}
