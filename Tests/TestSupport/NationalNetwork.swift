import StationData
import StationCore

/// All of Japan as a publish sees it: the repository's raw/ (the upstream's release,
/// the registry, the fixes) through Ingest, which writes nothing. Read once per test
/// process, when first asked for.
package enum NationalNetwork {
    private static let ingested = Task { try await IngestPipeline.run(IngestOptions(rawFolder: RepositoryData.raw, rawLabel: "raw")).staging.network }

    package static func network() async throws -> RailNetwork { try await ingested.value }
}
