/// Every way a download can fail, with a message that says what to do: the cause a
/// StationError carries. Only network trouble and server errors are worth retrying; a
/// 4xx or a bad checksum will not fix itself.
package enum TransferFailure: CustomStringConvertible, Sendable, Equatable {
    /// The server answered with a status we cannot use (4xx, or 5xx after the last attempt).
    case httpStatus(url: String, status: Int)
    /// libcurl could not complete the exchange: refused, unreachable, reset, cut short.
    case network(url: String, curlCode: Int, message: String)
    /// The connect or total timeout expired.
    case timedOut(url: String, seconds: Double)
    /// A redirect (or the URL itself) to a protocol other than http and https, which is never followed.
    case notHTTP(url: String, location: String?)
    /// The redirects went on past the limit (a loop, most likely): the server's doing, which a retry repeats.
    case tooManyRedirects(url: String, limit: Int)
    /// The body grew past the configured size limit.
    case tooLarge(url: String, limit: Int)
    /// The body's size or digest differs from what the manifest promised.
    case checksumMismatch(what: String, expected: String, actual: String)
    /// The body is not what it claims to be (bad gzip, a manifest that is not JSON, a patch that fails).
    case corrupt(what: String, reason: String)
    /// A source file that arrived whole but is not in its source's format (an
    /// error page sent with 200, a wrong header): the url serves the wrong thing.
    case badContent(url: String, file: String, reason: String)
    /// Something other than a file stands where a fetched file belongs (a folder, a link).
    case notAFile(path: String)
    /// The renames of a source's new files stopped part way: the journal stays,
    /// and the next fetch completes them.
    case partlyReplaced(String)

    /// The most a small document (latest.json, the upstream's latest_info.json) may hold: a
    /// few kilobytes in truth. It is read into memory whole, so a bigger one is refused as it
    /// comes, not once held.
    package static let documentLimit = 1 << 20

    package var isRetryable: Bool {
        switch self {
        case .httpStatus(_, let status): return status >= 500
        case .network, .timedOut: return true
        case .notHTTP, .tooManyRedirects, .tooLarge, .checksumMismatch, .corrupt, .badContent, .notAFile, .partlyReplaced: return false
        }
    }

    /// Whether the URL serves nothing we can read: a 4xx, or a redirect to another protocol.
    /// For the URL a user gave that is bad input; for a file a dist names, a damaged dist.
    package var isNotServed: Bool {
        if case .httpStatus(_, let status) = self { return (400..<500).contains(status) }
        if case .notHTTP = self { return true }
        return false
    }

    /// The URL given serves nothing (a 4xx, a redirect to another protocol) or what it
    /// sent is not a file of its source: bad input (exit 2); every other failure is the
    /// environment's (exit 3).
    /// The exit status of the error it causes (StationError's one table).
    package var exitStatus: ExitStatus { StationError(self).exitStatus }

    package var isBadInput: Bool {
        switch self {
        case _ where isNotServed: return true
        case .badContent, .notAFile: return true
        default: return false
        }
    }

    /// Every value from outside (URLs, a server's words, paths a manifest names) printable.
    package var description: String { printable(text) }

    private var text: String {
        switch self {
        case .httpStatus(let url, let status) where status >= 400 && status < 500:
            return "\(url): HTTP \(status); check the URL"
        case .notHTTP(let url, let location):
            return "\(url): redirected to \(location ?? "a URL that is not http:// or https://"), which is not http:// or https://;"
                + " stationdb follows no other protocol: give the http(s) URL the server should lead to, or have its redirect fixed"
        case .httpStatus(let url, let status):
            return "\(url): HTTP \(status) from the server after every retry; try again later"
        case .network(let url, let code, let message):
            return "\(url): \(message) (curl error \(code)); check the network and the server, then try again"
        case .timedOut(let url, let seconds):
            return "\(url): no complete answer within \(formatSeconds(seconds)); try again later or raise --timeout"
        case .tooManyRedirects(let url, let limit):
            return "\(url): more than \(limit) redirects (a loop?); not retried, as the server would lead round again: have its redirects fixed, or give the URL they should end at"
        case .tooLarge(let url, let limit):
            return "\(url): larger than the limit of \(limit) bytes; check that the URL serves what it should (latest.json and "
                + "latest_info.json hold a few kilobytes), or raise --max-bytes for a file that really is that big"
        case .checksumMismatch(let what, let expected, let actual):
            return "\(what): expected \(expected) but got \(actual); the download is damaged or the server is mid-publish, try again"
        case .corrupt(let what, let reason):
            return "\(what): \(reason)"
        case .badContent(let url, let file, let reason):
            return "\(url): not usable as \(file): \(reason); check the url, or the server may be down for maintenance"
        case .notAFile(let path):
            return "\(path): not a file (a folder or a link stands where a fetched file belongs); move it away and fetch again"
        case .partlyReplaced(let message):
            return "\(message); the source is part old, part new until the next `stationdb fetch` completes the change"
        }
    }
}

func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}
