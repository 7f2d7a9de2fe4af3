import FoundationEssentials
import Glibc
import Synchronization

// Never lose data: every output is written beside its final name, flushed to
// disk and renamed over it, so a reader sees the old file or the new one, whole.

/// `folder` + "/" + `name`, without doubling a slash; an empty side gives the other.
package func joinPath(_ folder: String, _ name: String) -> String {
    if name.isEmpty { return folder }
    if folder.isEmpty { return name }
    return folder.hasSuffix("/") ? folder + name : folder + "/" + name
}

/// The part of a path after its last slash ("a/b.csv" -> "b.csv").
package func fileName(of path: String) -> String {
    var p = Substring(path)
    while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
    guard let slash = p.lastIndex(of: "/"), p.count > 1 else { return String(p) }
    return String(p[p.index(after: slash)...])
}

/// The folder a path is in: "" for a bare name, "/" for a name at the root.
package func parentFolder(of path: String) -> String {
    var p = Substring(path)
    while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
    guard let slash = p.lastIndex(of: "/") else { return "" }
    return slash == p.startIndex ? "/" : String(p[..<slash])
}

/// The message of the last failed system call.
package func systemError() -> String { String(cString: strerror(errno)) }

package enum Files {
    package static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    package static func isFolder(_ path: String) -> Bool {
        var folder = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &folder) && folder
    }

    /// The size in bytes, or nil when the file cannot be examined.
    package static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    /// The environment setting that raises (or lowers) `readLimit`.
    package static let readLimitSetting = "STATIONDB_MAX_SOURCE_BYTES"
    /// Far above any real source (the national N02 document is tens of MB, a national
    /// master a few), far below what a read of a runaway file into memory would cost.
    package static let defaultReadLimit = 2_000_000_000

    /// The most bytes a file read here may hold: `setting` (by default the environment's
    /// STATIONDB_MAX_SOURCE_BYTES) or the default. A setting that is not a count is bad input.
    package static func readLimit(setting: String? = nil) throws -> Int {
        guard let text = setting ?? getenv(readLimitSetting).map({ String(cString: $0) }) else { return defaultReadLimit }
        guard let limit = Int(text), limit > 0 else {
            throw StationError.badInput(SourceLocation(file: readLimitSetting), "expected a whole number of bytes above 0, found '\(shown(text))'")
        }
        return limit
    }

    /// Opens `path` to read it, refusing anything but a regular file before a byte is read:
    /// opening a FIFO waits for a writer, and a device such as /dev/zero never ends, so
    /// either would hang a publish that holds dist/.lock. The open itself is non-blocking
    /// for that reason (it changes nothing for a regular file). Also refused: a file over
    /// `limit` bytes. Both are bad input naming the file (`label`, else the path), as is a
    /// path that names nothing; a file that cannot be opened otherwise stays an environment error.
    /// Returns the descriptor, for the caller to close, and the file's size.
    package static func openRegularFile(_ path: String, label: String? = nil, limit: Int? = nil) throws -> (fd: Int32, size: Int) {
        let name = label ?? path
        let limit = try limit ?? readLimit()
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        // A path that names nothing is what was given (the table of StationError's kinds): bad input.
        if fd < 0, errno == ENOENT || errno == ENOTDIR { throw StationError.badInput(SourceLocation(file: name), "no such file or folder") }
        guard fd >= 0 else { throw StationError.environment("cannot read \(name): \(systemError())") }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let reason = systemError()
            close(fd)
            throw StationError.environment("cannot read \(name): \(reason)")
        }
        // A folder, FIFO or device named where a file belongs is the user's to fix: bad input, not a failing disk.
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw StationError.badInput(SourceLocation(file: name), "\(kind(info.st_mode))\(linkTarget(path).map { " (a link to \($0))" } ?? ""), not a file; expected a file here")
        }
        // The file this descriptor reads, not the one a check of the path found before.
        if let leaving = HeldInputs.current?.leavesRaw(path, fd: fd) {
            close(fd)
            throw StationError.badInput(SourceLocation(file: name), leaving)
        }
        let size = Int(info.st_size)
        guard size <= limit else {
            close(fd)
            throw tooLarge(name, size: size, limit: limit)
        }
        return (fd, size)
    }

    /// The refusal of a file over the read limit, saying how to raise it.
    package static func tooLarge(_ name: String, size: Int, limit: Int) -> StationError {
        StationError.badInput(SourceLocation(file: name), "\(size) bytes, more than the limit of \(limit) bytes on a file stationdb reads; "
                   + "if the file is right, raise the limit with the environment setting \(readLimitSetting)=<bytes>")
    }

    /// What stands at `path` when it is neither a regular file nor (with `folder`) a real
    /// folder, symbolic links included, for a message ("a symbolic link to /etc/passwd");
    /// nil when it is one, or when nothing is there.
    package static func notPlain(_ path: String, folder: Bool = false) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        let mode = info.st_mode & S_IFMT
        if mode == S_IFREG || (folder && mode == S_IFDIR) { return nil }
        return mode == S_IFLNK ? "a symbolic link to \(linkTarget(path) ?? "?")" : kind(info.st_mode)
    }

    /// What a file that is not a regular one is, for the message refusing it.
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }

    /// Every symbolic link in `folder` or a folder under it (links not followed) that leads
    /// out of it or nowhere: where it points, and whether that exists at all.
    package static func linksLeaving(_ folder: String) -> [(path: String, target: String, resolves: Bool)] {
        guard let root = realPath(folder) else { return [] }
        var out: [(path: String, target: String, resolves: Bool)] = [], folders = [folder]
        while let next = folders.popLast() {
            for name in names(in: next) {
                let path = joinPath(next, name)
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR { folders.append(path) }
                guard info.st_mode & S_IFMT == S_IFLNK else { continue }
                let resolved = realPath(path)
                if let resolved, resolved == root || resolved.hasPrefix(root == "/" ? "/" : root + "/") { continue }
                out.append((path, linkTarget(path) ?? "?", resolved != nil))
            }
        }
        return out.sorted { $0.path < $1.path }
    }

    /// The path with every link resolved, or nil when it leads nowhere.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Where a symbolic link points, when `path` is one (/dev/zero says more than "a device").
    static func linkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The whole file: a regular file of at most `limit` bytes (by default `readLimit()`);
    /// anything else is refused before it is read (openRegularFile). `label` names it in messages.
    package static func read(_ path: String, label: String? = nil, limit: Int? = nil) throws -> [UInt8] {
        if let held = HeldInputs.current?.bytes(of: path) {
            if let limit, held.count > limit { throw tooLarge(label ?? path, size: held.count, limit: limit) }
            return held
        }
        let (fd, size) = try openRegularFile(path, label: label, limit: limit)
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw StationError.environment("cannot read \(label ?? path): \(systemError())") }
            if n == 0 { break }
            done += n
        }
        if done < bytes.count { bytes.removeSubrange(done...) }
        try HeldInputs.current?.took(bytes, of: path, label: label ?? path, fd: fd)
        return bytes
    }

    /// Calls `body` with the file's bytes a piece at a time (a digest of a large source):
    /// a regular file only, as `read`, and never more than `limit` bytes of it, also when
    /// it grows while it is read.
    package static func forEachChunk(of path: String, label: String? = nil, limit: Int? = nil, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // The run's view of the file, checked as a read checks it.
        if HeldInputs.current?.governs(path) == true { return try read(path, label: label, limit: limit).withUnsafeBytes(body) }
        let limit = try limit ?? readLimit()
        let (fd, _) = try openRegularFile(path, label: label, limit: limit)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        var total = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw StationError.environment("cannot read \(label ?? path): \(systemError())") }
            if n == 0 { return }
            total += n
            if total > limit { throw tooLarge(label ?? path, size: total, limit: limit) }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<n])) }
        }
    }

    /// Creates the folder and any missing parents.
    package static func createFolder(_ path: String) throws {
        if isFolder(path) { return }
        let parent = parentFolder(of: path)
        if !parent.isEmpty, parent != path { try createFolder(parent) }
        guard mkdir(path, 0o755) == 0 || errno == EEXIST else { throw StationError.environment("cannot create folder \(path): \(systemError())") }
        guard isFolder(path) else { throw StationError.environment("cannot create folder \(path): a file of that name is there") }
    }

    package static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Moves a folder: a rename on one file system; across two (build/ and dist/ may
    /// be on different disks), a copy that is then removed from where it was.
    package static func moveFolder(_ from: String, to: String) throws {
        if rename(from, to) == 0 { return }
        guard errno == EXDEV else { throw StationError.environment("cannot move \(from) to \(to): \(systemError())") }
        do {
            try FileManager.default.copyItem(atPath: from, toPath: to)
        } catch {
            remove(to)
            throw StationError.environment("cannot copy \(from) to \(to): \((error as? CocoaError)?.underlying.map { "\($0)" } ?? "\(error)")")
        }
        remove(from)
    }

    /// Names in a folder, sorted; empty when it cannot be listed.
    package static func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// Flushes a file (or a folder's entries) to disk.
    package static func sync(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw StationError.environment("cannot open \(path) to flush it: \(systemError())") }
        defer { close(fd) }
        if fsync(fd) != 0, errno != EINVAL { throw StationError.environment("cannot flush \(path): \(systemError())") }
    }

    /// Writes all of `bytes` to `fd`; the errno of a failed write, if any.
    package static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            done += n
        }
        return nil
    }

    /// Writes a file in place, without flushing it (for files of a folder that is flushed and renamed as a whole).
    package static func write(_ bytes: [UInt8], to path: String) throws {
        HeldInputs.current?.keep(nil, of: path, written: nil)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StationError.environment("cannot write \(path): \(systemError())") }
        let failure = bytes.withUnsafeBytes { writeAll(fd, $0) }
        let closed = close(fd) == 0 ? nil : errno
        if let failure = failure ?? closed { throw StationError.environment("cannot write \(path): \(String(cString: strerror(failure)))") }
    }
}

/// A file as this process wrote it: the sha256 of the bytes written, and the stamp of the
/// file they became (its size, inode and modification time), by which a later run knows
/// the file unchanged without reading it again. The stamp only spares a read: a file
/// whose stamp differs is hashed, and its content decides.
package struct WrittenFile: Codable, Equatable, Sendable {
    package var sha256: String
    package var stamp: String

    /// The stamp of the file at `path` now, or nil when there is none.
    package static func stamp(of path: String) -> String? {
        var info = stat()
        return stat(path, &info) == 0 ? stamp(info) : nil
    }

    static func stamp(_ info: stat) -> String { "\(info.st_size) \(info.st_ino) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" }
}

/// A run's view of its files, so that it parses, publishes and records the bytes it hashed
/// (a publish or a plan holds one; Files.read and forEachChunk take it). What it read under
/// raw/, or hashed, is pinned, whatever happens to the file meanwhile (a change made during a
/// run is the next run's); what it wrote is given while the file keeps the stamp it was written
/// with. A file known only by a digest (too large to keep, past `fileLimit` or `totalLimit`;
/// or vouched for by a stage's record, under the stamp the record gives) is checked when read:
/// other bytes are refused, and a stage's output changed in place (its stamp put back) is
/// removed, so that the next run makes it again. A file read under raw/ must be in raw/ as its
/// descriptor finds it: a link swapped in during the run is refused, never followed out.
package final class HeldInputs: Sendable {
    @TaskLocal package static var current: HeldInputs?

    package static let fileLimit = 64 << 20
    package static let totalLimit = 256 << 20

    private struct File {
        var bytes: [UInt8]? = nil
        /// nil: pinned; else the stamp the bytes or the digest hold for.
        var stamp: String? = nil
        var sha256: String? = nil
    }
    private let held = Mutex<(files: [String: File], total: Int)>(([:], 0))
    /// raw/'s path as given, in parts, and as the file system resolves it.
    private let raw: (parts: [Substring], absolute: Bool, real: String)?

    package init(raw: String? = nil) {
        self.raw = raw.flatMap { raw in Files.realPath(raw).map { (Self.parts(raw), raw.hasPrefix("/"), $0) } }
    }

    private static func parts(_ path: String) -> [Substring] { path.split(separator: "/").filter { $0 != "." } }

    /// A file is held by its path standardized: with no sources.json the reader opens
    /// raw/./stations.csv, which the record hashed as raw/stations.csv.
    private static func key(_ path: String) -> String { (path.hasPrefix("/") ? "/" : "") + parts(path).joined(separator: "/") }

    func isInRaw(_ path: String) -> Bool {
        guard let raw else { return false }
        let parts = Self.parts(path)
        return parts.count > raw.parts.count && parts.starts(with: raw.parts) && path.hasPrefix("/") == raw.absolute
    }

    /// Why the file open as `fd` may not be read for `path`: under raw/, it must be in raw/.
    func leavesRaw(_ path: String, fd: Int32) -> String? {
        guard let raw, isInRaw(path), let real = Files.linkTarget("/proc/self/fd/\(fd)"),
              !real.hasPrefix(raw.real == "/" ? "/" : raw.real + "/") else { return nil }
        return "a link to \(real), outside the raw folder (put there while this run read raw/); raw/ may hold no link that leaves it: put the file itself there"
    }

    /// The bytes the run holds for `path`: pinned, or written and still with that stamp.
    func bytes(of path: String) -> [UInt8]? {
        guard let file = held.withLock({ $0.files[Self.key(path)] }), let bytes = file.bytes else { return nil }
        return file.stamp == nil || file.stamp == WrittenFile.stamp(of: path) ? bytes : nil
    }

    /// Whether the run has a view of `path` its reads must take.
    package func governs(_ path: String) -> Bool { held.withLock { $0.files[Self.key(path)] != nil } || isInRaw(path) }

    /// Holds `file` for `path`; its bytes only within the limits, else its digest.
    private func store(_ path: String, _ file: File) {
        held.withLock { held in
            if let old = held.files.removeValue(forKey: Self.key(path)) { held.total -= old.bytes?.count ?? 0 }
            var file = file
            if let bytes = file.bytes, bytes.count > Self.fileLimit || held.total + bytes.count > Self.totalLimit {
                (file.bytes, file.sha256) = (nil, file.sha256 ?? SHA256.hex(bytes))
            }
            held.total += file.bytes?.count ?? 0
            held.files[Self.key(path)] = file
        }
    }

    /// `bytes` as this run wrote them to `path`, whose stamp is then `written`'s; nil: written in place, to be read again.
    package func keep(_ bytes: [UInt8]?, of path: String, written: WrittenFile?) {
        store(path, File(bytes: bytes, stamp: written?.stamp, sha256: written?.sha256))
    }

    /// The files a stage's record vouches for, by the digest of what it wrote and the stamp it left.
    package func expect(_ files: [String: WrittenFile]) {
        for (path, file) in files where held.withLock({ $0.files[Self.key(path)] == nil }) { store(path, File(stamp: file.stamp, sha256: file.sha256)) }
    }

    /// `bytes`, just read from `path` (open as `fd`), as the run takes them: checked against the
    /// digest the run or a record knows, and pinned when the run governs the file.
    func took(_ bytes: [UInt8], of path: String, label: String, fd: Int32) throws {
        guard governs(path) else { return }
        var info = stat()
        let stamp = fstat(fd, &info) == 0 ? WrittenFile.stamp(info) : nil
        var digest: String?
        if let file = held.withLock({ $0.files[Self.key(path)] }), let expected = file.sha256, file.stamp == nil || file.stamp == stamp {
            digest = SHA256.hex(bytes)
            if digest != expected, file.stamp == nil {
                throw StationError.environment("\(label) changed while this run read it (sha256 \(digest!), \(expected) when it was first read); run again")
            }
            if digest != expected {
                unlink(path)
                throw StationError.damaged(SourceLocation(file: label), "not the file its stage wrote (sha256 \(digest!), its record says \(expected)) under the "
                                           + "same size, inode and modification time: changed in place since. It is removed, so that the next run makes it again")
            }
        }
        store(path, File(bytes: bytes, sha256: digest))
    }

    /// Reads the whole file, pinning its bytes for the run when one holds its inputs.
    package static func read(_ path: String) throws -> [UInt8] {
        let bytes = try Files.read(path)
        if let current, current.bytes(of: path) == nil { current.store(path, File(bytes: bytes)) }
        return bytes
    }
}

package enum AtomicFile {
    /// A temporary path beside `path` (so the rename stays on one file system), named for this process.
    package static func temporaryPath(for path: String) -> String {
        joinPath(parentFolder(of: path), ".\(fileName(of: path)).tmp-\(getpid())")
    }

    @discardableResult
    package static func write(_ text: String, to path: String) throws -> WrittenFile {
        try write(Array(text.utf8), to: path)
    }

    @discardableResult
    package static func write(_ data: Data, to path: String) throws -> WrittenFile {
        try write([UInt8](data), to: path)
    }

    /// Where a write to `path` lands: `path` itself when it is a regular file or nothing
    /// yet, the file a symbolic link leads to; anything else (a folder, a FIFO, a device, a
    /// link to one or to nothing) is bad input, since the rename would replace it with a file.
    package static func destination(_ path: String) throws -> String {
        var info = stat()
        guard lstat(path, &info) == 0 else { return path }
        let link = Files.linkTarget(path)
        let resolved = link == nil ? nil : realpath(path, nil)
        defer { free(resolved) }
        let target = resolved.map { String(cString: $0) } ?? path
        guard stat(target, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            let what = stat(target, &info) == 0 ? Files.kind(info.st_mode) : "nothing"
            throw StationError.badInput(SourceLocation(file: path), "\(what)\(link.map { " (a link to \($0))" } ?? ""), not a file; stationdb writes only to a file or a new path")
        }
        return target
    }

    /// Writes `bytes` to a temporary file beside `path` (beside the file it links to), flushes
    /// it and renames it into place; `path` must be a regular file or a new path (destination).
    /// Its folder is made when missing, unless `creatingFolder` is false (raw/: a folder moved
    /// away mid-run is said, never made again holding one file).
    @discardableResult
    package static func write(_ bytes: [UInt8], to path: String, creatingFolder: Bool = true) throws -> WrittenFile {
        let given = path
        let path = try destination(path)
        let folder = parentFolder(of: path)
        if !folder.isEmpty {
            guard creatingFolder || Files.isFolder(folder) else {
                throw StationError.environment("cannot write \(given): \(folder) is gone (moved or removed while this run ran); it is written into, never made")
            }
            try Files.createFolder(folder)
        }
        let temporary = temporaryPath(for: path)
        do {
            try Files.write(bytes, to: temporary)
            try commit(temporary: temporary, to: path)
        } catch {
            unlink(temporary)
            throw error
        }
        let written = WrittenFile(sha256: SHA256.hex(bytes), stamp: WrittenFile.stamp(of: path) ?? "")
        for name in Set([given, path]) { HeldInputs.current?.keep(bytes, of: name, written: written) }
        return written
    }

    /// Flushes `temporary`, renames it to `path` and flushes the folder.
    package static func commit(temporary: String, to path: String) throws {
        try Files.sync(temporary)
        if rename(temporary, path) != 0 {
            let reason = systemError()
            unlink(temporary)
            throw StationError.environment("cannot rename \(temporary) to \(path): \(reason)")
        }
        let folder = parentFolder(of: path)
        try Files.sync(folder.isEmpty ? "." : folder)
    }
}

/// The files `stationdb fetch` stages a source's new files in, beside the old ones:
/// `.fetch-<pid>/`, and in it a `journal` naming the files to move once all are checked.
package enum FetchJournal {
    package static let stagingPrefix = ".fetch-"
    package static let journalName = "journal"

    /// The journal of a fetch that stopped between its first and last rename in `folder`, if any.
    package static func unfinished(in folder: String) -> String? {
        for name in Files.names(in: folder).sorted() where name.hasPrefix(stagingPrefix) {
            let journal = joinPath(joinPath(folder, name), journalName)
            if Files.exists(journal) { return journal }
        }
        return nil
    }
}
