import ArgumentParser
import StationIO
import StationModel
import Transfer

/// Network limits shared by `fetch` and `pull`.
struct TransferOptionGroup: ParsableArguments {
    @Option(help: "Seconds allowed to connect.")
    var connectTimeout: Double = 15

    @Option(help: "Seconds allowed for each whole download.")
    var timeout: Double = 600

    @Option(help: "Largest file accepted, in bytes (after gunzip; for pull, the patched database too).")
    var maxBytes: Int = 1 << 30

    @Option(help: "Attempts per file; timeouts, connection errors and 5xx are retried, 4xx never.")
    var attempts: Int = 3

    @Option(help: "Seconds before the first retry; doubled before each further one.")
    var backoff: Double = 2

    func validate() throws {
        guard connectTimeout > 0, timeout > 0 else { throw ValidationError("--connect-timeout and --timeout must be positive") }
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be positive") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
        guard backoff >= 0 else { throw ValidationError("--backoff must not be negative") }
    }

    func makeClient() -> HTTPClient {
        let http = HTTPClient(options: TransferOptions(connectTimeout: connectTimeout, totalTimeout: timeout,
                                                       maxBytes: maxBytes, attempts: attempts, backoff: backoff))
        http.onRetry = { error, delay in note("warning: \(error); retrying in \(delay) s") }
        return http
    }
}
