import FoundationEssentials
import Glibc

// Never lose data: every output is written beside its final name, flushed to
// disk and renamed over it, so a reader sees the old file or the new one, whole.

public enum AtomicFile {
    /// A temporary path in the same folder as `path` (so rename stays on one file system).
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())").path
    }

    public static func write(_ data: Data, to path: String) throws {
        try write(to: path) { file in data.withUnsafeBytes { file.append($0) } }
    }

    /// `parts` one after the other, without joining them first (a registry at 100x
    /// national is about 100 MB a part).
    public static func write(parts: [[UInt8]], to path: String) throws {
        try write(to: path) { file in for part in parts { file.append(part) } }
    }

    public static func write(_ text: String, to path: String) throws {
        try write(Data(text.utf8), to: path)
    }

    /// fsyncs `temporary` (unless the caller already did: `write(to:)`), renames it to `path` and fsyncs the folder.
    public static func commit(temporary: String, to path: String, alreadySynced: Bool = false) throws {
        if !alreadySynced { try fsync(path: temporary) }
        if rename(temporary, path) != 0 {
            let err = String(cString: strerror(errno))
            unlink(temporary)
            throw EnvironmentError("cannot rename \(temporary) to \(path): \(err)")
        }
        try fsync(path: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// The file's size in bytes, or nil when it cannot be examined.
    public static func size(of path: String) -> Int? {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : nil
    }

    public static func fsync(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw EnvironmentError("cannot open \(path) to flush it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        if Glibc.fsync(fd) != 0, errno != EINVAL {
            throw EnvironmentError("cannot flush \(path): \(String(cString: strerror(errno)))")
        }
    }

    public static func createParent(of path: String) throws {
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try createDirectory(dir)
    }

    public static func createDirectory(_ dir: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        } catch {
            throw EnvironmentError("cannot create folder \(dir): \(describe(error))")
        }
    }

    /// What Foundation's localizedDescription said for the errors FileManager's
    /// createDirectory throws, so the message reads as it always has.
    private static func describe(_ error: Error) -> String {
        var reason: String?
        var domainAndCode = "\(error._domain) error \(error._code)"
        if let error = error as? CocoaError {
            domainAndCode = "NSCocoaErrorDomain error \(error.code.rawValue)"
            switch error.code {
            case .fileNoSuchFile: reason = "The file doesn’t exist."
            case .fileWriteNoPermission: reason = "You don’t have permission."
            case .fileWriteInvalidFileName: reason = "The file name is invalid."
            case .fileWriteFileExists: reason = "A file with the same name already exists."
            case .fileWriteOutOfSpace: reason = "There isn’t enough space."
            case .fileWriteVolumeReadOnly: reason = "The volume is read only."
            default: break
            }
        }
        return "The operation could not be completed. " + (reason ?? "(\(domainAndCode).)")
    }
}
