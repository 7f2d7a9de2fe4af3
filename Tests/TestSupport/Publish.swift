import Foundation
import BuildDB
import Publishing
import StationIO
import StationModel

/// Publishes `request` the one way stationdb publishes (BuildStage, what `stationdb build`,
/// publish and plan run): its staging file, weights, registry and renumbered.csv written into
/// a build folder of their own, then built into `request.dist`. `beforeStep` fails a step.
public func publish(_ request: BuildRequest, beforeStep: (@Sendable (PublishStep) throws -> Void)? = nil) async throws -> BuildOutcome {
    let build = FileManager.default.temporaryDirectory.appendingPathComponent("build-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: build, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: build) }
    let staging = build + "/" + StagingFile.defaultName, weights = build + "/" + StationWeightsFile.defaultName
    try StagingFile.write(request.staging, to: staging)
    try StationWeightsFile.write(request.weights, to: weights)
    // What ingest leaves beside the staging file: the registry it was made with.
    if let registry = request.registryPath { try FileManager.default.copyItem(atPath: registry, toPath: pendingRegistry(for: staging)) }
    var renumbered: String?
    if !request.renumberings.isEmpty {
        renumbered = build + "/" + RenumberingFile.fileName
        // In the order of the lines they were read from, so messages name the same lines.
        let rows = request.renumberings.sorted { ($0.value.line ?? 0, $0.key.newID, $0.key.oldID) < ($1.value.line ?? 0, $1.key.newID, $1.key.oldID) }.map(\.key)
        try Files.write(Array(("new_s_id,old_s_id,version\n" + rows.map { "\($0.newID),\($0.oldID),\($0.version)\n" }.joined()).utf8), to: renumbered!)
    }
    var stage = BuildStage(staging: staging, weights: weights, dist: request.dist, renumbered: renumbered, registry: nil, lint: nil,
                           requestedVersion: request.requestedVersion, guards: request.guards)
    stage.beforeStep = beforeStep
    return try await stage.run(force: request.force)
}
