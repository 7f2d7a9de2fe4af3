import Glibc
import StationCore

// The command is the only part of stationdb that writes to stdout and stderr: what the
// libraries tell comes to it as events (Events), and it says them here.

/// A line for the user on stderr, so stdout stays for data (diffs, reports).
func note(_ message: String) {
    StandardStream.error.write(message + "\n")
}

/// stdout or stderr, written straight to the descriptor: a message is out even
/// if the process then dies. Write errors (a closed pipe) are dropped.
enum StandardStream {
    case output, error

    func write(_ text: String) {
        var text = text
        text.withUTF8 { _ = Files.writeAll(self == .output ? STDOUT_FILENO : STDERR_FILENO, UnsafeRawBufferPointer($0)) }
    }
}

/// How the command says what the libraries tell: each event's sentence on stderr, and
/// progress redrawn on one line of a terminal (a log, make's in CI, leaves it out).
enum EventLog {
    static let terminal = isatty(STDERR_FILENO) == 1

    @Sendable static func say(_ event: any Event) {
        guard let progress = event as? ProgressEvent else { return note(event.description) }
        guard terminal else { return }
        StandardStream.error.write(progress.finished ? "\r\u{1B}[K" : "\r\(progress)\u{1B}[K")
    }
}

/// The commands' long help, each in a text file of its own (Help/<command>.txt, compiled
/// in): prose an editor and a spell checker work with, and docs/cli.md is made from.
enum Help {
    /// A command's long help; `{exit statuses}` stands for the one table (ExitStatus.paragraph).
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.dropLast(bytes.last == 0x0A ? 1 : 0), as: UTF8.self).replacing("{exit statuses}", with: ExitStatus.paragraph)
    }
}
