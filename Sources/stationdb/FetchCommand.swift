import ArgumentParser
import StationModel

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb fetch is not implemented yet")
    }
}
