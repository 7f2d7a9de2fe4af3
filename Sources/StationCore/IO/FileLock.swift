import Glibc

// A lock one process holds at a time, for the jobs that must not overlap: one publish
// into a dist (BuildDB's DistLock: two runs would take the same version number), one
// user of a build folder, one deploy to a target. It is flock(2) on a file: the kernel
// drops it when the process ends, however it ends, so a killed run never leaves it
// held. The file is never written (a run with nothing to do changes nothing); whom a
// second run waits for comes from the kernel's own list of locks, /proc/locks.

package final class FileLock: Sendable {
    package let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) { self.path = path; self.fd = fd }

    deinit { close(fd) }

    /// Takes the lock on `path` (created if needed). When another process holds it:
    /// with `wait`, calls `waiting` with that process's pid (nil when it has not
    /// written it yet) and blocks until it is free; without, returns nil at once.
    package static func acquire(_ path: String, wait: Bool, waiting: (Int?) -> Void = { _ in }) throws -> FileLock? {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StationError.environment("cannot open the lock file \(path): \(systemError())") }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK else {
                let reason = systemError()
                close(fd)
                throw StationError.environment("cannot lock \(path): \(reason)")
            }
            guard wait else {
                close(fd)
                return nil
            }
            waiting(holder(of: path))
            while flock(fd, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    let reason = systemError()
                    close(fd)
                    throw StationError.environment("cannot lock \(path): \(reason)")
                }
            }
        }
        return FileLock(path: path, fd: fd)
    }

    /// Takes the lock `path` keeps for one `job` at a time (e.g. "publish into dist"):
    /// with `wait`, says for whom it waits and blocks; without, an environment error
    /// (exit 3) naming the holder.
    package static func take(_ path: String, for job: String, wait: Bool) throws -> FileLock {
        let lock = try acquire(path, wait: wait) { pid in Events.send(WaitingForLock(job: job, holder: pid, path: path)) }
        guard let lock else {
            let holder = holder(of: path).map { "pid \($0)" } ?? "another process"
            throw StationError.environment("another \(job) is running (\(holder) holds \(path)); not waiting for it (--no-wait). Try again when it has finished.")
        }
        return lock
    }

    /// The pid of the process holding a flock on `path`, from /proc/locks
    /// ("1: FLOCK  ADVISORY  WRITE <pid> <major>:<minor>:<inode> 0 EOF"), matched by inode.
    package static func holder(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        // /proc files report a size of 0: read them a piece at a time.
        var locks: [UInt8] = []
        guard (try? Files.forEachChunk(of: "/proc/locks") { locks += $0 }) != nil else { return nil }
        for line in String(decoding: locks, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[5].split(separator: ":").last == Substring(String(info.st_ino)) else { continue }
            return Int(fields[4])
        }
        return nil
    }
}

/// A run waits while another holds the lock it needs.
package struct WaitingForLock: Event, Equatable {
    package var job: String
    package var holder: Int?
    package var path: String
    package var description: String { "waiting for another \(job) to finish (\(holder.map { "pid \($0)" } ?? "a process") holds \(path))" }
}
