import Glibc

// One publisher per dist: two nightly runs (a cron run overlapping a hand run)
// would otherwise both take the next version number and the second would
// replace a version the first had already announced. The lock is flock(2) on a
// file: the kernel drops it when the process ends, however it ends, so a
// killed run never leaves the dist locked. The holder writes its pid into the
// file so that a second run can say whom it waits for.

public final class FileLock: Sendable {
    public let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) { self.path = path; self.fd = fd }

    deinit { close(fd) }

    /// Takes the lock on `path` (created if needed). When another process holds it:
    /// with `wait`, calls `waiting` with that process's pid (nil when it has not
    /// written it yet) and blocks until it is free; without, returns nil at once.
    public static func acquire(_ path: String, wait: Bool, waiting: (Int?) -> Void = { _ in }) throws -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EnvironmentError("cannot open the lock file \(path): \(systemError())") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let reason = systemError()
                close(fd)
                throw EnvironmentError("cannot lock \(path): \(reason)")
            }
            guard wait else {
                close(fd)
                return nil
            }
            waiting(holder(fd))
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = systemError()
                    close(fd)
                    throw EnvironmentError("cannot lock \(path): \(reason)")
                }
            }
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return FileLock(path: path, fd: fd)
    }

    /// The pid the holder wrote into the file, if any.
    public static func holder(of path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return holder(fd)
    }

    private static func holder(_ fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int(String(decoding: buffer[..<n].prefix { $0 != 0x0A }, as: UTF8.self))
    }
}
