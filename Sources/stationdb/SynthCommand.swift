import ArgumentParser
import Ingest
import StationCore

struct SynthCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "synth",
        abstract: "Write the national network, or K times it, as native master CSV and N02 XML (the bench's inputs).",
        discussion: Help.text(PackageResources.synth_txt),
        subcommands: [SynthWriteCommand.self, SynthReadCommand.self, SynthSchemaCommand.self],
        defaultSubcommand: SynthWriteCommand.self
    )
}

struct SynthWriteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write the scaled network (the default subcommand; see `stationdb synth --help`).")

    @OptionGroup var source: RawOptions

    @Option(help: "The staging file to read the national network from instead of --raw.")
    var staging: String?

    @Option(help: "K: the output has K times the national stations.")
    var scale = 1

    @Option(help: "Seed of the sideways pushes.")
    var seed: UInt64 = 1

    @Option(help: "The folder to write.")
    var out: String

    @Flag(help: "Write the native CSV only, no N02-stations.xml.")
    var noN02 = false

    func run() async throws {
        guard scale >= 1 else { throw ValidationError("--scale must be at least 1") }
        let network: RailNetwork
        if let staging {
            network = try StagingFile.read(from: staging).network
        } else {
            // An empty registry would number stations afresh; RAW's keeps the published IDs.
            network = try await IngestPipeline.run(source.ingest).staging.network
        }
        let synth = Synth(national: network, config: SynthConfig(scale: scale, seed: seed))
        let counts = try synth.writeNative(folder: out)
        var summary = "synth: scale \(scale): \(counts.operators) operators, \(counts.lines) lines, \(counts.stations) stations, \(counts.stationLines) station-line rows -> \(out)"
        if !noN02 {
            let path = joinPath(out, "N02-stations.xml")
            let features = try synth.writeN02(path: path)
            summary += "; \(features) N02 station features -> \(path)"
        }
        note(summary)
    }
}

/// For the bench: one reader alone, without merge, IDs or the staging write,
/// so that a parse can be timed against xmllint on the same file.
struct SynthReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Run one source reader alone and print what it read (bench helper).",
        discussion: Help.text(PackageResources.synth2_txt),
        shouldDisplay: false)

    @Option(help: "native, ekidata or n02.")
    var kind: String

    @Argument(help: "The file (n02) or folder (native, ekidata).")
    var path: String

    func run() throws {
        guard let kind = SourceKind(rawValue: kind) else {
            throw ValidationError("--kind: expected one of \(SourceKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let source = try kind.read(path, label: path)
        print("\(kind.rawValue): \(source.operators.count) operators, \(source.lines.count) lines, \(source.stations.count) stations, \(source.stationLines.count) station-line rows")
    }
}

/// For the bench's sqlite3 baseline: the bundle's exact DDL.
struct SynthSchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the bundle's CREATE TABLE and CREATE INDEX statements (bench helper).",
        shouldDisplay: false)

    @Flag(help: "Only the tables (the indexes are created after loading).")
    var tablesOnly = false

    @Flag(help: "Only the indexes.")
    var indexesOnly = false

    func run() throws {
        let tables = BundleSchema.tables.map(\.createSQL)
        let indexes = BundleSchema.indexes.map(\.createSQL)
        let statements = tablesOnly ? tables : indexesOnly ? indexes : tables + indexes
        for s in statements { print(s + ";") }
    }
}
