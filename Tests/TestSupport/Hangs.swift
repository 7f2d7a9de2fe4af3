import Foundation
import Glibc

// A test of something that used to hang must fail, not block `make test` forever:
// these turn a hang into a result the test can assert against.

/// While it runs, opens the write end of the FIFO at `path` every 0.2 s (after `after`
/// seconds) and closes it at once. A reader blocked opening the FIFO is then let go and
/// reads an empty file, so a reader that does not check what it opens returns (and the
/// test's assertions fail) instead of hanging. A reader that refuses the FIFO never
/// blocks, and the unblocker's opens then fail harmlessly (ENXIO: no reader).
///
/// `freedAReader` says whether one of its opens found a reader, which is how a test tells
/// a reader that waited for a writer from one that refused the FIFO at once, whatever the
/// machine's speed: no clock is read. (A reader that checks what it opens holds the FIFO
/// for microseconds, `after` seconds being far longer than any refusal takes.)
package final class FIFOUnblocker: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false
    private var freed = false
    private let wake = DispatchSemaphore(value: 0)
    private let ended = DispatchSemaphore(value: 0)

    package init(_ path: String, after seconds: Double = 10) {
        let thread = Thread { [self] in
            defer { ended.signal() }
            var pause = seconds
            // Woken at once by stop(), which then waits for this thread: nothing runs after it.
            while wake.wait(timeout: .now() + pause) == .timedOut {
                let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                if fd >= 0 {
                    lock.withLock { freed = true }
                    close(fd)
                }
                pause = 0.2
            }
        }
        thread.start()
    }

    /// Stops it and waits until it has; once is enough.
    package func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        wake.signal()
        ended.wait()
    }

    /// Stops it; whether any of its opens found the FIFO open for reading (a reader waiting
    /// for a writer, let go by that open).
    package var freedAReader: Bool {
        stop()
        return lock.withLock { freed }
    }
}

/// What a program run with a time limit did.
package struct TimedRun: Sendable {
    package var status: Int32
    package var out: String
    package var err: String
    /// It was still running at the limit and was killed: a hang.
    package var timedOut: Bool
}

/// Runs `executable` in `folder` and kills it (SIGKILL) if it is still running after
/// `timeout` seconds. Its output goes to files, not pipes, so a chatty program cannot
/// block on a full pipe and pass for a hung one.
package func runWithTimeout(_ executable: String, _ arguments: [String], in folder: String, environment: [String: String] = [:],
                           timeout: Double) throws -> TimedRun {
    let outPath = folder + "/.run-\(UUID().uuidString).out", errPath = folder + "/.run-\(UUID().uuidString).err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.currentDirectoryURL = URL(fileURLWithPath: folder)
    p.arguments = arguments
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath)), err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let deadline = Date().addingTimeInterval(timeout)
    var timedOut = false
    while p.isRunning {
        if Date() > deadline {
            timedOut = true
            kill(p.processIdentifier, SIGKILL)
            break
        }
        Thread.sleep(forTimeInterval: 0.05)
    }
    p.waitUntilExit()
    try out.close()
    try err.close()
    return TimedRun(status: p.terminationStatus,
                    out: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                    err: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                    timedOut: timedOut)
}
