import Foundation
import BuildDB
import Publishing
import StationCore

/// A build as the tests ask for one: what BuildDB builds from, and where and how the stage
/// that runs it publishes (its dist, VERSION=, its guards, FORCE_PUBLISH).
struct TestBuild: Sendable {
    var request: BuildRequest
    var dist: String
    var version: Int?
    /// None by default: a test of the guards sets them.
    var guards: DiffGuards = .none
    var force = false

    init(_ request: BuildRequest, dist: String, version: Int? = nil) { self.request = request; self.dist = dist; self.version = version }
}

/// Publishes `build` the one way stationdb publishes (BuildStage, what `stationdb build`,
/// publish and plan run): its staging file, weights, registry and renumbered.csv written into
/// a build folder of their own, then built into `build.dist`. `beforeStep` fails a step.
func publish(_ build: TestBuild, beforeStep: (@Sendable (PublishStep) throws -> Void)? = nil) async throws -> BuildOutcome {
    let request = build.request
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("build-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let staging = folder + "/" + StagingFile.defaultName, weights = folder + "/" + StationWeightsFile.defaultName
    try StagingFile.write(request.staging, to: staging)
    try StationWeightsFile.write(request.weights, to: weights)
    // What ingest leaves beside the staging file: the registry it was made with.
    if let registry = request.registryPath { try FileManager.default.copyItem(atPath: registry, toPath: pendingRegistry(for: staging)) }
    var renumbered: String?
    if !request.renumberings.isEmpty {
        renumbered = folder + "/" + RenumberingFile.fileName
        // In the order of the lines they were read from, so messages name the same lines.
        let rows = request.renumberings.sorted { ($0.value.line ?? 0, $0.key.newID, $0.key.oldID) < ($1.value.line ?? 0, $1.key.newID, $1.key.oldID) }.map(\.key)
        try Files.write(Array(("new_s_id,old_s_id,version\n" + rows.map { "\($0.newID),\($0.oldID),\($0.version)\n" }.joined()).utf8), to: renumbered!)
    }
    var stage = BuildStage(staging: staging, weights: weights, dist: build.dist, renumbered: renumbered, registry: nil, lint: nil,
                           requestedVersion: build.version, guards: build.guards)
    stage.beforeStep = beforeStep
    return try await stage.run(force: build.force)
}
