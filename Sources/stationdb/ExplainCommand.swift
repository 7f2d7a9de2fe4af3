import ArgumentParser
import FoundationEssentials
import Ingest
import StationCore

struct ExplainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Show the evidence on an s_id: every term of its pair and of its best rivals, as ingest weighs them.",
        discussion: Help.text(PackageResources.explain_txt))

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @OptionGroup var source: RawOptions

    @Option(help: "text (a waterfall per pair) or json.")
    var format: Format = .text

    @Argument(help: "The s_ids to explain.")
    var ids: [Int]

    func run() async throws {
        var options = source.ingest
        options.keepsEvidence = true
        guard let explanations = try await IngestPipeline.run(options).explain(ids) else {
            throw StationError.badInput(SourceLocation(file: source.ingest.label(for: source.ingest.registryPath)),
                                        "holds no station yet: there is nothing to weigh this run's stations against (publish a first version)")
        }
        switch format {
        case .json: StandardStream.output.write(String(decoding: try jsonDocument(explanations), as: UTF8.self))
        case .text: StandardStream.output.write(explanations.map(Self.text).joined(separator: "\n"))
        }
    }

    static func text(_ e: IdentityExplanation) -> String {
        var out = "s_id \(e.stationID): \(e.outcome)\n"
        let model = IdentityModel.estimated
        for (k, p) in e.pairs.enumerated() {
            out += "  \(k == 0 ? "pair" : "rival"): \(p.old)\n     -> \(p.new)\n" + p.weight.waterfall(model)
        }
        if e.pairs.isEmpty { out += "  no station of this run is a candidate for it\n" }
        return out
    }
}
