import Glibc

/// A line for the user on stderr, so stdout stays for data (diffs, reports).
public func note(_ message: String) {
    StandardStream.error.write(message + "\n")
}

/// Seconds on a clock that only moves forward (for timeouts and intervals, not dates).
public func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// stdout or stderr, written straight to the descriptor: a message is out even
/// if the process then dies. Write errors (a closed pipe) are dropped.
public enum StandardStream: Sendable {
    case output, error

    public func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Files.writeAll(self == .output ? STDOUT_FILENO : STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}

/// Progress of a long run: on a terminal it redraws one stderr line; when stderr
/// is not a terminal (make in CI, pipes) it stays quiet.
public final class Progress {
    public let label: String
    public let total: Int?
    private let enabled: Bool
    private var lastShown = -1

    public init(_ label: String, total: Int? = nil, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.label = label; self.total = total; self.enabled = enabled
    }

    public func update(_ done: Int) {
        guard enabled else { return }
        if let total, total > 0 {
            let percent = done * 100 / total
            if percent == lastShown { return }
            lastShown = percent
            StandardStream.error.write("\r\(label): \(percent)% (\(done)/\(total))\u{1B}[K")
        } else {
            if done / 1000 == lastShown { return }
            lastShown = done / 1000
            StandardStream.error.write("\r\(label): \(done)\u{1B}[K")
        }
    }

    public func finish() {
        guard enabled, lastShown >= 0 else { return }
        StandardStream.error.write("\r\u{1B}[K")
    }
}
