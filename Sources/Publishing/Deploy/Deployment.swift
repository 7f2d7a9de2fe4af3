import FoundationEssentials
import Glibc
import StationCore
import Synchronization

/// What `stationdb deploy` is asked to do.
package struct DeployRequest: Sendable {
    package var dist: String
    package var target: TargetAddress
    /// List what would be copied; copy nothing.
    package var dryRun: Bool
    /// Copy into a local folder with rsync too (what a host:path target always uses).
    package var viaRsync: Bool
    /// The remote shell for host:path (rsync's -e).
    package var rsh: String
    /// Wait while another deploy from the same dist runs (else exit 3).
    package var wait: Bool

    package init(dist: String, target: TargetAddress, dryRun: Bool = false, viaRsync: Bool = false, rsh: String = "ssh", wait: Bool = true) {
        self.dist = dist; self.target = target; self.dryRun = dryRun; self.viaRsync = viaRsync; self.rsh = rsh; self.wait = wait
    }
}

/// What a deploy found and did (or, in a dry run, would do).
package struct DeployPlan: Sendable {
    /// The version the dist's latest.json names.
    package var version: Int { latest.version }
    /// The dist's latest.json: what the target serves once deployed.
    package var latest: PublishedBundle
    /// sha256 of the manifest.json of latest.json's version.
    package var latestManifestSHA256: String
    /// The version the target's latest.json named before, if any.
    package var targetVersion: Int?
    /// The version folders the target lacks, ascending: copied first.
    package var toCopy: [VersionFolder]
    /// The dist's version folders the target already holds, the same.
    package var alreadyThere: [Int]
    /// Version folders at the target that the dist does not have (kept: never deleted).
    package var onlyAtTarget: [Int]
    /// The dist's folders above its latest.json's version, never announced: not deployed.
    package var unannounced: [Int]
    /// Whether latest.json is copied (last).
    package var copiesLatest: Bool

    package var copiesNothing: Bool { toCopy.isEmpty && !copiesLatest }

    /// The dry run's list, one line each, for stdout.
    package func lines(target: String) -> [String] {
        var out = toCopy.map { "copy  \($0.name)/  (\($0.publishedNames.count) files, \(megabytes($0.bytes)))" }
        out += alreadyThere.map { "there \($0)/  (the same as the dist's)" }
        if copiesLatest {
            out.append("copy  latest.json  (last; version \(targetVersion.map { "\($0) -> " } ?? "")\(version))")
        } else {
            out.append("there latest.json  (version \(version))")
        }
        out += onlyAtTarget.map { "keep  \($0)/  (at the target only; deploy never deletes)" }
        out += unannounced.map { "skip  \($0)/  (in the dist but above its latest.json: never announced)" }
        return out
    }
}

/// `stationdb deploy DIST TARGET`: the dist's version folders the target lacks, then
/// latest.json, each whole or not at all, so that at every moment the target's
/// latest.json names only files that are there, whole.
///
/// A version folder is copied into a staging folder of the target
/// (`.tmp-deploy-<version>-<pid>`), checked against its manifest there, and renamed
/// into place in one step: a folder under a version's name is always complete, so
/// the next deploy can tell a folder that differs (refused) from one a killed
/// deploy left (a staging folder, removed). latest.json is written under a
/// temporary name and renamed, after every folder. Nothing at the target is ever
/// deleted or rewritten but those leftovers.
package final class Deployment {
    package static let stagingPrefix = ".tmp-deploy-"
    /// Held in the dist while a deploy from it runs: two deploys of one dist (a cron
    /// run and a hand run) would take each other's staging folders for leftovers.
    package static let lockName = ".deploy.lock"
    /// Held in the target while a deploy into it runs, from any dist: a deploy that read the
    /// target's latest.json before another replaced it would take the apps back.
    package static let targetLockName = ".deploy-into.lock"

    package let request: DeployRequest

    package init(_ request: DeployRequest) { self.request = request }

    var target: DeployTarget {
        switch request.target {
        case .folder(let path) where !request.viaRsync: return LocalFolderTarget(root: path)
        default: return RsyncTarget(address: request.target, rsh: request.rsh)
        }
    }

    /// Deploys (or, in a dry run, plans) and returns what it found and did.
    package func run() throws -> DeployPlan {
        let lock = request.dryRun ? nil : try takeLock()
        defer { withExtendedLifetime(lock) {} }
        let target = self.target

        let dist = try PublishedDist.read(request.dist)
        var state = try target.state()
        var plan = try makePlan(dist, state, target)
        Events.send(DeployNote.checking)
        try dist.verify(plan.toCopy)
        if request.dryRun { return plan }

        if !state.exists { try target.prepare() }
        let targetLock = try target.lock(wait: request.wait)
        defer { withExtendedLifetime(targetLock) {} }
        // Another deploy may have changed the target while this one waited for it.
        if targetLock != nil {
            state = try target.state()
            plan = try makePlan(dist, state, target)
        }
        if !state.leftovers.isEmpty {
            Events.send(DeployNote.removingLeftovers(target: target.label, names: state.leftovers))
            try target.remove(state.leftovers)
        }
        for (index, folder) in plan.toCopy.enumerated() {
            let staging = "\(Self.stagingPrefix)\(folder.version)-\(getpid())"
            Events.send(DeployNote.copyingVersion(folder.version, index: index + 1, of: plan.toCopy.count, files: folder.publishedNames.count,
                                                  bytes: folder.bytes, into: joinPath(target.label, staging)))
            do {
                try target.stage(folder, from: dist.path, into: staging)
                try target.place(staging, as: folder.name)
            } catch {
                try? target.remove([staging])
                throw error
            }
            Events.send(DeployEvent.placed)
            Events.send(DeployNote.placed(joinPath(target.label, folder.name)))
        }
        if plan.copiesLatest {
            // Checked again just before it is replaced: whatever ran meanwhile, the target only
            // fast-forwards, and its latest.json is replaced only while it is the one checked.
            let served = try target.state().latestBytes
            _ = try servedVersion(served, at: joinPath(target.label, DistLayout.latest), dist: dist)
            guard try target.putLatest(from: dist.path, replacing: served) else {
                throw StationError.environment("\(joinPath(target.label, DistLayout.latest)) changed while this deploy ran (another deploy into "
                                               + "\(target.label)?); it was left as it is: deploy again")
            }
            Events.send(DeployEvent.latestPlaced)
            Events.send(DeployNote.latest(joinPath(target.label, DistLayout.latest), version: plan.version, was: plan.targetVersion))
        }
        return plan
    }

    private func takeLock() throws -> FileLock? {
        guard Files.isFolder(request.dist) else { return nil }  // PublishedDist.read says what is wrong
        return try FileLock.take(joinPath(request.dist, Self.lockName), for: "deploy from \(request.dist)", wait: request.wait)
    }

    /// The version the target's latest.json (`bytes` at `path`) names, when it has one, and
    /// the dist's a fast-forward from it (else exit 2).
    func servedVersion(_ bytes: [UInt8]?, at path: String, dist: PublishedDist) throws -> Int? {
        guard let bytes else { return nil }
        let served = try PublishedBundle.decode(bytes) {
            StationError.badInput(SourceLocation(file: path, field: $0.keyPath), "not a published bundle's description (\($0.reason)); this is not a folder deploy wrote. Move it away, or deploy into another folder; nothing was copied")
        }
        try refuseAnythingButAFastForward(from: served, at: path, to: dist)
        return served.version
    }

    /// Compares the target with the dist; refuses (exit 2) a target whose latest.json is
    /// above the dist's, or that holds one of the dist's versions with other bytes.
    func makePlan(_ dist: PublishedDist, _ state: TargetState, _ target: DeployTarget) throws -> DeployPlan {
        let latestPath = joinPath(target.label, DistLayout.latest)
        if state.entries[DistLayout.latest] == true {
            throw StationError.badInput(SourceLocation(file: latestPath), "a folder where the apps read a file: remove it (rm -r \(latestPath)), "
                                        + "then deploy again; nothing was copied")
        }
        let targetVersion = try servedVersion(state.latestBytes, at: latestPath, dist: dist)
        let atTarget = try BundleVersion.named(state.entries.keys, in: target.label)
        let present = Set(atTarget)
        let shared = dist.versions.filter { present.contains($0.version) }
        try refuseDifferingFolders(shared, dist: dist, target: target, state: state)
        let toCopy = dist.versions.filter { !present.contains($0.version) }
        let distVersions = Set(dist.versions.map(\.version))
        return DeployPlan(latest: dist.latest, latestManifestSHA256: dist.latestFolder.manifestDigest, targetVersion: targetVersion, toCopy: toCopy,
                          alreadyThere: shared.map(\.version), onlyAtTarget: atTarget.filter { !distVersions.contains($0) },
                          unannounced: dist.unannounced, copiesLatest: state.latestBytes != dist.latestBytes)
    }

    /// The apps move along one line of versions, each made from the one before (its
    /// previous_version): the target's version, the very publication of it (its sha256), must
    /// be the dist's latest or one the dist's latest was made from. Anything else would
    /// undo, for every app that pulls, what the target's line published since they parted:
    /// another clone's dist, a dist made again from scratch, a dist that lags behind.
    func refuseAnythingButAFastForward(from served: PublishedBundle, at path: String, to dist: PublishedDist) throws {
        let line = dist.line
        if line.contains(where: { $0.version == served.version && $0.sha256 == served.sha256.lowercased() }) { return }
        let carryOn = "Carry on from what the apps have: copy the served dist into \(dist.path) (its latest.json and every version folder, "
            + "e.g. rsync -a TARGET/ \(dist.path)/), then publish again (make); or see what would change against it first with "
            + "make plan AGAINST=<the URL it is served at>; nothing was copied"
        if served.version > dist.latest.version {
            throw StationError.badInput(SourceLocation(file: path, field: "version"),
                             "names version \(served.version), above the dist's \(dist.latest.version) (\(joinPath(dist.path, DistLayout.latest))): deploying would take the apps back to an older version. \(carryOn)")
        }
        let shown = line.prefix(8).map { String($0.version) }.joined(separator: " <- ") + (line.count > 8 ? " <- ..." : "")
        let sameNumber = line.contains { $0.version == served.version }
        throw StationError.badInput(SourceLocation(file: path, field: "version"),
                         "names version \(served.version) (sha256 \(served.sha256.prefix(12))...), which is not version \(dist.latest.version) nor one it follows in \(dist.path) (\(shown))"
                         + (sameNumber ? ": the dist's version \(served.version) is another publication of that number" : "")
                         + ": deploying would undo, for every app, what the target published since. \(carryOn)")
    }

    /// A version is published once: the target's folder of a version must hold the very
    /// files the dist's does (manifest.json and the sha256 of every file it lists).
    private func refuseDifferingFolders(_ shared: [VersionFolder], dist: PublishedDist, target: DeployTarget, state: TargetState) throws {
        guard !shared.isEmpty else { return }
        Events.send(DeployNote.comparing(shared.count, target: target.label))
        let digests = try target.digests(shared.flatMap { folder in folder.publishedNames.map { "\(folder.name)/\($0)" } })
        var problems = DiagnosticCollector()
        for folder in shared {
            let location = SourceLocation(file: joinPath(target.label, folder.name))
            if state.entries[folder.name] == false {
                problems.add(location, "a file where the dist has a version folder")
                continue
            }
            var differences: [String] = []
            for name in folder.publishedNames {
                switch digests["\(folder.name)/\(name)"] {
                case nil: differences.append("\(name) missing")
                case let actual? where actual != folder.digest(of: name)?.lowercased(): differences.append("\(name) differs")
                default: break
                }
            }
            if !differences.isEmpty {
                problems.add(location, "differs from \(joinPath(dist.path, folder.name)) (\(differences.joined(separator: ", ")))")
            }
        }
        if !problems.isEmpty {
            var all = problems.diagnostics
            all.append(Diagnostic(SourceLocation(file: target.label),
                                  "holds another publication of these versions: a version, once published, never changes, and deploy never rewrites one. Was it deployed from another dist (another machine, or a dist made again from scratch)? Deploy that dist, or deploy into a new folder; nothing was copied"))
            throw StationError.badInput(all, truncated: problems.isFull)
        }
    }
}

extension Deployment {
    /// A test's way to kill a deploy at a chosen moment: STATIONDB_DEPLOY_KILL_AT=<event>[#n]
    /// (e.g. `chunk#3`, `placed#1`, `latest-staged`) sends this process SIGKILL at the
    /// n-th such moment, as a power cut or the OOM killer would stop it: no handler runs.
    package static func killSwitch(environment value: String?) throws -> (@Sendable (DeployEvent) -> Void)? {
        guard let value, !value.isEmpty else { return nil }
        let parts = value.split(separator: "#", maxSplits: 1)
        guard let event = DeployEvent(rawValue: String(parts[0])), let count = parts.count == 2 ? Int(parts[1]) : 1, count >= 1 else {
            throw StationError.badInput(SourceLocation(file: "STATIONDB_DEPLOY_KILL_AT"), "\"\(value)\": expected one of \(DeployEvent.allCases.map(\.rawValue).joined(separator: ", ")), optionally #N")
        }
        let seen = Atomic<Int>(0)
        return { happened in
            guard happened == event else { return }
            if seen.add(1, ordering: .relaxed).newValue == count { kill(getpid(), SIGKILL) }
        }
    }
}

/// What a deploy tells while it runs.
package enum DeployNote: Event, Equatable {
    case checking
    case removingLeftovers(target: String, names: [String])
    case comparing(Int, target: String)
    case copyingVersion(Int, index: Int, of: Int, files: Int, bytes: Int, into: String)
    /// A long copy's progress, every few seconds.
    case copying(label: String, done: Int, total: Int, file: String)
    case placed(String)
    case latest(String, version: Int, was: Int?)

    package var description: String {
        switch self {
        case .checking: "deploy: checking the dist's files against their manifests"
        case .removingLeftovers(let target, let names): "deploy: removing what a killed deploy left in \(target): \(names.joined(separator: ", "))"
        case .comparing(let n, let target): "deploy: comparing the \(n) version folder\(n == 1 ? "" : "s") already at \(target) with the dist's"
        case .copyingVersion(let version, let index, let count, let files, let bytes, let into):
            "deploy: copying version \(version) (\(index) of \(count); \(files) files, \(megabytes(bytes))) into \(into)"
        case .copying(let label, let done, let total, let file):
            "deploy: \(label): \(total > 0 ? min(100, done * 100 / total) : 100)% (\(megabytes(done)) of \(megabytes(total)); copying \(file))"
        case .placed(let path): "deploy: \(path) in place"
        case .latest(let path, let version, let was): "deploy: \(path) now names version \(version)\(was.map { " (was \($0))" } ?? "")"
        }
    }
}
