import Foundation
import Glibc

/// A program a test starts and leaves running (a server), which ends with the test by
/// construction. It is started with every signal unblocked and at its default action (a
/// child started from a Dispatch thread, as an async test runs on, would inherit that
/// thread's blocked signals and ignore SIGTERM) and in a process group of its own; `stop()`,
/// the object going away and, for one a test kept in a static, the test process's exit kill
/// that whole group with SIGKILL (the program and whatever it started) and reap it.
package final class ChildProcess: @unchecked Sendable {
    package let pid: pid_t
    private var output: Int32
    private let lock = NSLock()
    private var stopped = false

    /// Starts `arguments` (the program looked up on PATH) with stdin and stderr on /dev/null
    /// and stdout on a pipe that `readLine` reads.
    package init(_ arguments: [String]) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], STDOUT_FILENO)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { posix_spawnp(&child, arguments[0], &actions, &attributes, $0.baseAddress!, environ) }
        close(pipeEnds[1])
        guard rc == 0 else {
            close(pipeEnds[0])
            throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO)
        }
        pid = child
        output = pipeEnds[0]
        ChildProcess.running.insert(child)
    }

    /// The next line the program writes on stdout, without its newline; nil when it
    /// writes none within `timeout` seconds or closes stdout first. The default is a hang's
    /// bound, far past a server's start on a loaded machine.
    package func readLine(timeout: Double = 60) -> String? {
        var line: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        var byte: UInt8 = 0
        while Date() < deadline {
            var ready = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 100) >= 0 || errno == EINTR else { return nil }
            guard ready.revents != 0 else { continue }
            guard read(output, &byte, 1) == 1 else { return nil }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }

    /// Waits up to `timeout` seconds for the program to end, and reaps it: its exit status
    /// (128 + the signal for one killed), or nil when it is still running (stop() kills it).
    package func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let ended: Int32?? = lock.withLock {
                guard !stopped else { return .some(nil) }
                var status: Int32 = 0
                guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
                stopped = true
                close(output)
                ChildProcess.running.remove(pid)
                let signal = status & 0x7F
                return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            }
            if let ended { return ended }
            usleep(2_000)
        }
        return nil
    }

    /// Kills the program's process group and reaps the program; once is enough.
    package func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        close(output)
        ChildProcess.running.remove(pid)
    }

    deinit { stop() }

    /// The groups still running, killed when the test process exits.
    private static let running = Registry()

    private final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var groups = Set<pid_t>()
        private var hooked = false

        func insert(_ pid: pid_t) {
            lock.lock()
            defer { lock.unlock() }
            groups.insert(pid)
            if !hooked {
                hooked = true
                atexit { ChildProcess.running.killAll() }
            }
        }

        func remove(_ pid: pid_t) {
            lock.lock()
            groups.remove(pid)
            lock.unlock()
        }

        func killAll() {
            lock.lock()
            defer { lock.unlock() }
            for pid in groups { kill(-pid, SIGKILL) }
            groups.removeAll()
        }
    }
}
