import Glibc
import StationCore

/// Runs rsync, ssh and sh for a deploy (and rsvg-convert for priority map), and waits for
/// them. posix_spawn rather than Foundation's Process: the library stays on
/// FoundationEssentials, as the static stationdb binary is linked.
package enum Subprocess {
    package struct Result {
        /// The exit status, or 128 + the signal that ended the program, as a shell says it.
        package var status: Int32
        var output: [UInt8]
        /// Its stderr, without the blank lines and spaces around it.
        var errors: String
    }

    /// Runs `arguments` (the program looked up on PATH). With `capture`, its stdout and
    /// stderr are returned; without, its stdout goes to this process's stderr (stdout
    /// is for what deploy reports) and its stderr is ours.
    package static func run(_ arguments: [String], capture: Bool) throws -> Result {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var captured: (out: Int32, err: Int32)?
        if capture {
            let out = try scratchFile(), err = try scratchFile()
            captured = (out, err)
            posix_spawn_file_actions_adddup2(&actions, out, STDOUT_FILENO)
            posix_spawn_file_actions_adddup2(&actions, err, STDERR_FILENO)
        } else {
            posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO, STDOUT_FILENO)
        }
        defer { if let captured { close(captured.out); close(captured.err) } }

        let argv = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let rc = argv.withUnsafeBufferPointer { posix_spawnp(&pid, arguments[0], &actions, nil, $0.baseAddress!, environ) }
        guard rc == 0 else {
            let reason = String(cString: strerror(rc))
            if rc == ENOENT { throw StationError.environment("cannot run \(arguments[0]): not installed (\(reason)); on Debian: apt-get install \(package(of: arguments[0]))") }
            throw StationError.environment("cannot run \(arguments[0]): \(reason)")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw StationError.environment("lost \(arguments[0]) (pid \(pid)): \(systemError())") }
        }
        // WIFEXITED / WTERMSIG, which Swift does not import.
        let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard let captured else { return Result(status: code, output: [], errors: "") }
        return Result(status: code, output: readBack(captured.out), errors: String(decoding: readBack(captured.err), as: UTF8.self).trimmed(where: \.isWhitespace))
    }

    /// An unnamed file for a program's output: files, unlike pipes, never fill up
    /// while we wait for the program.
    private static func scratchFile() throws -> Int32 {
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array(joinPath(folder, "stationdb-deploy-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw StationError.environment("cannot create a scratch file in \(folder): \(systemError())") }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return fd
    }

    private static func readBack(_ fd: Int32) -> [UInt8] {
        lseek(fd, 0, SEEK_SET)
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return out }
            out += buffer[..<n]
        }
    }

    private static func package(of program: String) -> String {
        fileName(of: program) == "ssh" ? "openssh-client" : fileName(of: program)
    }
}

/// A word for a POSIX shell: the text in single quotes, each ' written '\''.
func shellQuoted(_ text: String) -> String {
    "'" + text.replacing("'", with: "'\\''") + "'"
}
