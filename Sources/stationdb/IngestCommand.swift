import ArgumentParser
import StationModel

struct IngestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "ingest", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb ingest is not implemented yet")
    }
}
