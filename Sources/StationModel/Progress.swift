import Glibc

// Progress for long runs: on a terminal it redraws one stderr line; when stderr
// is not a terminal (make in CI, pipes) it stays quiet.

public final class Progress {
    public let label: String
    public let total: Int?
    private let enabled: Bool
    private var lastShown = -1

    public static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    public init(_ label: String, total: Int? = nil, enabled: Bool = Progress.isTerminal) {
        self.label = label; self.total = total; self.enabled = enabled
    }

    public func update(_ done: Int) {
        guard enabled else { return }
        if let total, total > 0 {
            let pct = done * 100 / total
            if pct == lastShown { return }
            lastShown = pct
            StandardStream.error.write("\r\(label): \(pct)% (\(done)/\(total))\u{1B}[K")
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

/// Lines for the user on stderr, so stdout stays for data (diffs, reports).
public func note(_ message: String) {
    StandardStream.error.write(message + "\n")
}
