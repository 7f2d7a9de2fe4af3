import ArgumentParser
import StationModel

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "verify", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb verify is not implemented yet")
    }
}
