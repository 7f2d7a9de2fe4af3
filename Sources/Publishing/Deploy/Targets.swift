import Glibc
import StationCore

/// What a deploy found at the target before copying anything.
struct TargetState {
    /// Whether the target folder exists at all.
    var exists: Bool
    /// Every name in the target folder, and whether it is a folder.
    var entries: [String: Bool]
    /// The target's latest.json, when it has one.
    var latestBytes: [UInt8]?

    /// What deploys that were killed left: their staging folders and latest.json's
    /// temporary files (ours, `.latest.json.tmp-<pid>`, and rsync's, `.latest.json.XXXXXX`).
    var leftovers: [String] {
        entries.keys.filter { $0.hasPrefix(Deployment.stagingPrefix) || $0.hasPrefix(".\(DistLayout.latest).") }.sorted()
    }
}

/// The moments of a deploy, in order, which a test can stop it at (see Deployment.killSwitch);
/// said to no one.
package enum DeployEvent: String, Event, CaseIterable {
    /// A piece of a file written into a version's staging folder (local copies).
    case chunk
    /// A file complete in a staging folder (local copies).
    case file
    /// A version's staging folder complete and checked, before its rename.
    case staged
    /// A version folder renamed into place.
    case placed
    /// latest.json written and flushed under its temporary name, before the rename (local copies).
    case latestStaged = "latest-staged"
    /// latest.json in place.
    case latestPlaced = "latest-placed"

    package var description: String { "deploy: at \(rawValue)" }
}

/// A target folder, whichever way it is reached.
protocol DeployTarget {
    var label: String { get }
    func state() throws -> TargetState
    /// sha256 of the files at these paths (relative to the target); a missing file is left out.
    func digests(_ relative: [String]) throws -> [String: String]
    /// Creates the target folder when it is missing.
    func prepare() throws
    func remove(_ names: [String]) throws
    /// Copies `folder` of `dist` into `staging` (a new folder of the target) and checks
    /// what arrived against the manifest.
    func stage(_ folder: VersionFolder, from dist: String, into staging: String) throws
    /// Renames `staging` to `name`, which must not exist.
    func place(_ staging: String, as name: String) throws
    /// Holds the target against other deploys into it until released (nil where a lock cannot
    /// outlive one command: putLatest's check and rename are then made under one).
    func lock(wait: Bool) throws -> FileLock?
    /// Replaces the target's latest.json with the dist's, atomically, only while the target's is
    /// still `current` (nil: none); false, replacing nothing, when it is not.
    func putLatest(from dist: String, replacing current: [UInt8]?) throws -> Bool
}

/// A folder of this machine, written in Swift: each version copied into a staging
/// folder beside its final name, flushed and renamed into place whole; latest.json
/// written to a temporary name, flushed and renamed.
struct LocalFolderTarget: DeployTarget {
    let root: String
    var label: String { root }

    func state() throws -> TargetState {
        guard Files.exists(root) else { return TargetState(exists: false, entries: [:], latestBytes: nil) }
        guard Files.isFolder(root) else { throw StationError.badInput(SourceLocation(file: root), "not a folder; TARGET is the folder the web server serves") }
        var entries: [String: Bool] = [:]
        for name in Files.names(in: root) { entries[name] = Files.isFolder(joinPath(root, name)) }
        let latest = joinPath(root, DistLayout.latest)
        return TargetState(exists: true, entries: entries, latestBytes: entries[DistLayout.latest] == false ? try Files.read(latest) : nil)
    }

    func digests(_ relative: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        for path in relative {
            let full = joinPath(root, path)
            var info = stat()
            guard stat(full, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            out[path] = try SHA256.hex(fileAt: full)
        }
        return out
    }

    func prepare() throws { try Files.createFolder(root) }

    func remove(_ names: [String]) throws {
        for name in names {
            Files.remove(joinPath(root, name))
            if Files.exists(joinPath(root, name)) { throw StationError.environment("cannot remove \(joinPath(root, name)), which a killed deploy left") }
        }
    }

    func stage(_ folder: VersionFolder, from dist: String, into staging: String) throws {
        let source = joinPath(dist, folder.name), destination = joinPath(root, staging)
        Files.remove(destination)
        try Files.createFolder(destination)
        let progress = ProgressLines(label: "\(folder.name)/", total: folder.bytes)
        for name in folder.publishedNames {
            let digest = try copyFile(joinPath(source, name), to: joinPath(destination, name), progress: progress)
            if digest != folder.digest(of: name)?.lowercased() {
                throw StationError.environment("\(joinPath(source, name)) changed while it was copied (sha256 \(digest), its manifest says \(folder.digest(of: name) ?? "")); nothing of version \(folder.name) was placed")
            }
            Events.send(DeployEvent.file)
        }
        try Files.sync(destination)
        Events.send(DeployEvent.staged)
    }

    func place(_ staging: String, as name: String) throws {
        let from = joinPath(root, staging), to = joinPath(root, name)
        // rename(2) would replace an empty folder: a version folder is never replaced.
        if Files.exists(to) { throw StationError.environment("\(to) appeared while this deploy ran (another deploy into \(root)?); nothing was replaced") }
        if rename(from, to) != 0 { throw StationError.environment("cannot rename \(from) to \(to): \(systemError())") }
        try Files.sync(root)
    }

    func lock(wait: Bool) throws -> FileLock? {
        try FileLock.take(joinPath(root, Deployment.targetLockName), for: "deploy into \(root)", wait: wait)
    }

    func putLatest(from dist: String, replacing current: [UInt8]?) throws -> Bool {
        let final = joinPath(root, DistLayout.latest)
        guard (Files.exists(final) ? try Files.read(final) : nil) == current else { return false }
        let temporary = AtomicFile.temporaryPath(for: final)
        do {
            try Files.write(try Files.read(joinPath(dist, DistLayout.latest)), to: temporary)
            try Files.sync(temporary)
            Events.send(DeployEvent.latestStaged)
            try AtomicFile.commit(temporary: temporary, to: final)
        } catch {
            unlink(temporary)
            throw error
        }
        return true
    }

    /// Copies a file a piece at a time, flushes it and returns the sha256 of what was written.
    private func copyFile(_ from: String, to: String, progress: ProgressLines) throws -> String {
        let input = open(from, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw StationError.environment("cannot read \(from): \(systemError())") }
        defer { close(input) }
        let output = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw StationError.environment("cannot write \(to): \(systemError())") }
        var closed = false
        defer { if !closed { close(output) } }
        let hasher = SHA256Hasher()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw StationError.environment("cannot read \(from): \(systemError())") }
            if n == 0 { break }
            let failure = buffer.withUnsafeBytes { piece -> Int32? in
                let bytes = UnsafeRawBufferPointer(rebasing: piece[..<n])
                hasher.update(bytes)
                return Files.writeAll(output, bytes)
            }
            if let failure { throw StationError.environment("cannot write \(to): \(String(cString: strerror(failure)))") }
            progress.advance(by: n, file: fileName(of: to))
            Events.send(DeployEvent.chunk)
        }
        if fsync(output) != 0 { throw StationError.environment("cannot flush \(to): \(systemError())") }
        closed = true
        if close(output) != 0 { throw StationError.environment("cannot write \(to): \(systemError())") }
        return hasher.finalizeHex()
    }
}

/// Progress of a long copy: a line every few seconds, wherever stderr goes (a cron log
/// as much as a terminal), and nothing for a copy shorter than that.
final class ProgressLines {
    let label: String
    let total: Int
    private var done = 0
    private var lastLine: Double
    static let interval = 2.0

    init(label: String, total: Int) {
        self.label = label; self.total = total
        lastLine = monotonicSeconds()
    }

    func advance(by bytes: Int, file: String) {
        done += bytes
        let now = monotonicSeconds()
        guard now - lastLine >= Self.interval else { return }
        lastLine = now
        Events.send(DeployNote.copying(label: label, done: done, total: total, file: file))
    }
}

func megabytes(_ bytes: Int) -> String {
    let mb = Double(bytes) / 1_000_000
    let tenths = Int((mb * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) MB"
}
