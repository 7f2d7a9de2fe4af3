import ArgumentParser
import StationModel

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "synth", abstract: "(not yet written)")

    func run() throws {
        throw EnvironmentError("stationdb synth is not implemented yet")
    }
}
