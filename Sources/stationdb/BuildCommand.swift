import ArgumentParser
import StationModel

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "build", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb build is not implemented yet")
    }
}
