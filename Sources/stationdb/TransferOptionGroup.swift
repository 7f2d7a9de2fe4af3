import ArgumentParser
import Publishing
import StationCore

/// Network limits shared by every command that downloads: fetch, pull, plan --against
/// and deploy --check.
struct TransferOptionGroup: ParsableArguments {
    @Option(help: "Seconds allowed to connect.")
    var connectTimeout: Double = 15

    @Option(help: "Seconds allowed for each file, whole: every attempt and the waits between them.")
    var timeout: Double = 60

    @Option(help: "Largest file accepted, in bytes (after gunzip; for pull, the patched database too).")
    var maxBytes: Int = 1 << 30

    @Option(help: "Attempts per file; timeouts, connection errors and 5xx are retried, 4xx never.")
    var attempts: Int = 3

    @Option(help: "Seconds before the first retry; doubled before each further one.")
    var backoff: Double = 2

    func validate() throws {
        let day = TransferOptions.longestTimeout
        for (name, value, least) in [("--connect-timeout", connectTimeout, 0.001), ("--timeout", timeout, 0.001), ("--backoff", backoff, 0)]
        where !(value >= least && value <= day) {
            throw ValidationError("\(name) must be a number of seconds from \(least) to \(Int(day)) (a day), got \(value)")
        }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
    }

    var options: TransferOptions {
        TransferOptions(connectTimeout: connectTimeout, totalTimeout: timeout, maxBytes: maxBytes, attempts: attempts, backoff: backoff)
    }

    func makeClient() -> HTTPClient { HTTPClient(options: options) }
}

/// Parses an option or argument that must be an http:// or https:// URL.
func webURL(_ text: String) throws -> WebURL {
    guard let url = WebURL(text) else { throw ValidationError(WebURL.problem(text)) }
    return url
}
