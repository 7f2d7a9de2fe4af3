import CCurl
import Glibc
import StationCore

/// Limits for every request: the nightly job, a CI plan and the reference client must
/// give up rather than hang, and must not fill the disk with a runaway body.
package struct TransferOptions: Sendable {
    /// Seconds to establish the connection.
    package var connectTimeout: Double
    /// Seconds for each file, whole: every attempt and the waits between them.
    package var totalTimeout: Double
    /// Largest body accepted (after Content-Encoding is undone), and largest file after gunzip.
    package var maxBytes: Int
    /// Attempts per request, the first included.
    package var attempts: Int
    /// Seconds before the second attempt; doubled before each further one.
    package var backoff: Double

    /// The longest timeout a request may be given: a day.
    package static let longestTimeout = 86_400.0

    package init(connectTimeout: Double = 15, totalTimeout: Double = 60, maxBytes: Int = 1 << 30,
                attempts: Int = 3, backoff: Double = 2) {
        self.connectTimeout = connectTimeout; self.totalTimeout = totalTimeout
        self.maxBytes = maxBytes; self.attempts = max(1, attempts); self.backoff = backoff
    }
}

/// A download failed in a way worth another try, made after `seconds`.
package struct Retrying: Event, Equatable {
    package var error: TransferFailure
    package var seconds: Double
    package init(error: TransferFailure, seconds: Double) { self.error = error; self.seconds = seconds }
    package var description: String { "warning: \(error); retrying in \(seconds) s" }
}

/// What a conditional GET sends back to the server: the validators of the copy we hold.
package struct Validators: Sendable, Equatable {
    package var etag: String?
    package var lastModified: String?
}

/// A completed exchange whose body (for 2xx) sits in the file given to `download`.
package struct HTTPResult: Sendable {
    package var status: Int
    package var validators: Validators
    /// Body bytes as written (Content-Encoding already undone by libcurl).
    package var bytes: Int
    package var sha256: String

    package var notModified: Bool { status == 304 }
}

/// A blocking HTTP(S) GET over libcurl with timeouts, a size limit and retries; no
/// other protocol, for the request or any redirect.
package final class HTTPClient {
    package let options: TransferOptions
    static let maxRedirects = 5

    package init(options: TransferOptions = TransferOptions()) {
        self.options = options
    }

    /// GETs `url` into `path` (created or truncated), retrying timeouts, network
    /// errors and 5xx with backoff while the file's time (totalTimeout) lasts.
    /// Returns 2xx and 304; throws everything else.
    /// On a throw the content of `path` is unspecified: callers download to a temporary file.
    /// `limit`: the most bytes the body may hold, when less than the options' maxBytes.
    package func download(_ url: String, to path: String, conditional: Validators? = nil, limit: Int? = nil) throws -> HTTPResult {
        let limit = min(limit ?? options.maxBytes, options.maxBytes)
        let deadline = monotonicSeconds() + options.totalTimeout
        var delay = options.backoff
        var attempt = 1
        while true {
            do {
                return try attemptDownload(url, to: path, conditional: conditional, limit: limit, seconds: deadline - monotonicSeconds())
            } catch let error as StationError where error.transfer?.isRetryable == true && attempt < options.attempts
                        && deadline - monotonicSeconds() > min(delay, 60) + 0.1 {
                Events.send(Retrying(error: error.transfer!, seconds: delay))
                if delay > 0 { usleep(UInt32(min(delay, 60) * 1_000_000)) }
                delay *= 2
                attempt += 1
            }
        }
    }

    /// GETs a small document (a manifest) into memory, refusing one past TransferFailure.documentLimit.
    package func fetchData(_ url: String, to scratchPath: String) throws -> [UInt8] {
        defer { unlink(scratchPath) }
        _ = try download(url, to: scratchPath, limit: TransferFailure.documentLimit)
        do { return try Files.read(scratchPath) } catch { throw StationError.environment("cannot read back \(scratchPath)") }
    }

    private func attemptDownload(_ url: String, to path: String, conditional: Validators?, limit: Int, seconds: Double) throws -> HTTPResult {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw StationError.environment("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }

        stationdb_curl_open()
        guard let curl = stationdb_curl_easy_init() else { throw StationError.environment("libcurl could not start a request") }
        defer { stationdb_curl_easy_cleanup(curl) }

        let sink = ResponseSink(fd: fd, limit: limit)
        let sinkPointer = Unmanaged.passUnretained(sink).toOpaque()

        var headers: UnsafeMutablePointer<curl_slist>?
        if let etag = conditional?.etag { headers = stationdb_curl_slist_append(headers, "If-None-Match: \(etag)") }
        if let lm = conditional?.lastModified { headers = stationdb_curl_slist_append(headers, "If-Modified-Since: \(lm)") }
        defer { stationdb_curl_slist_free_all(headers) }

        _ = stationdb_curl_setopt_string(curl, CURLOPT_URL, url)
        // HTTP and HTTPS only, for the request and every redirect: libcurl would follow a
        // Location to ftp://, file:// or any protocol it was built with.
        guard stationdb_curl_setopt_string(curl, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK,
              stationdb_curl_setopt_string(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") == CURLE_OK else {
            throw StationError.environment("this libcurl cannot be limited to http and https (it needs 7.85 or later); install Debian 12's libcurl4")
        }
        _ = stationdb_curl_setopt_long(curl, CURLOPT_NOSIGNAL, 1)
        _ = stationdb_curl_setopt_long(curl, CURLOPT_FOLLOWLOCATION, 1)
        _ = stationdb_curl_setopt_long(curl, CURLOPT_MAXREDIRS, Self.maxRedirects)
        _ = stationdb_curl_setopt_long(curl, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(min(options.connectTimeout, seconds)))
        _ = stationdb_curl_setopt_long(curl, CURLOPT_TIMEOUT_MS, milliseconds(seconds))
        // A declared length past the limit is refused when the headers come, not after the time limit.
        _ = stationdb_curl_setopt_long(curl, CURLOPT_MAXFILESIZE, limit)
        // "" asks for every encoding libcurl can undo (gzip, deflate), and undoes it.
        _ = stationdb_curl_setopt_string(curl, CURLOPT_ACCEPT_ENCODING, "")
        _ = stationdb_curl_setopt_string(curl, CURLOPT_USERAGENT, "stationdb")
        if headers != nil { _ = stationdb_curl_setopt_slist(curl, CURLOPT_HTTPHEADER, headers) }
        _ = stationdb_curl_setopt_write(curl) { data, size, count, context in
            let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
            return sink.write(data, size * count)
        }
        _ = stationdb_curl_setopt_pointer(curl, CURLOPT_WRITEDATA, sinkPointer)
        _ = stationdb_curl_setopt_header(curl) { data, size, count, context in
            let sink = Unmanaged<ResponseSink>.fromOpaque(context!).takeUnretainedValue()
            sink.header(data, size * count)
            return size * count
        }
        _ = stationdb_curl_setopt_pointer(curl, CURLOPT_HEADERDATA, sinkPointer)

        let code = stationdb_curl_easy_perform(curl)
        var status = 0
        _ = stationdb_curl_getinfo_long(curl, CURLINFO_RESPONSE_CODE, &status)

        if let ioError = sink.ioError { throw StationError.environment(ioError) }
        if sink.overLimit || code == CURLE_FILESIZE_EXCEEDED { throw StationError(.tooLarge(url: url, limit: limit)) }
        switch code {
        case CURLE_OK:
            break
        case CURLE_OPERATION_TIMEDOUT:
            throw StationError(.timedOut(url: url, seconds: options.totalTimeout))
        case CURLE_TOO_MANY_REDIRECTS:
            throw StationError(.tooManyRedirects(url: url, limit: Self.maxRedirects))
        case CURLE_UNSUPPORTED_PROTOCOL:
            throw StationError(.notHTTP(url: url, location: sink.location))
        default:
            let message = String(cString: stationdb_curl_easy_strerror(code))
            throw StationError(.network(url: url, curlCode: Int(code.rawValue), message: message))
        }
        if status == 304 || (200..<300).contains(status) {
            return HTTPResult(status: status, validators: sink.validators, bytes: sink.bytes, sha256: sink.digest())
        }
        throw StationError(.httpStatus(url: url, status: status))
    }

    private func milliseconds(_ seconds: Double) -> Int {
        max(1, Int((seconds * 1000).rounded()))
    }
}

/// Receives the body and headers of one attempt: writes the body to a file,
/// hashing and counting as it goes, and stops libcurl past the size limit.
private final class ResponseSink {
    let fd: Int32
    let limit: Int
    var bytes = 0
    let hasher = SHA256Hasher()
    var overLimit = false
    var ioError: String?
    var validators = Validators()
    /// The Location of the last response, where a redirect leads.
    var location: String?

    init(fd: Int32, limit: Int) { self.fd = fd; self.limit = limit }

    func write(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        guard let data, count > 0 else { return count }
        if bytes + count > limit {
            overLimit = true
            return 0 // any short count makes libcurl abort with CURLE_WRITE_ERROR
        }
        let raw = UnsafeRawBufferPointer(start: data, count: count)
        hasher.update(raw)
        if let failure = Files.writeAll(fd, raw) {
            ioError = "cannot write the download: \(String(cString: strerror(failure)))"
            return 0
        }
        bytes += count
        return count
    }

    func header(_ data: UnsafeMutablePointer<CChar>?, _ count: Int) {
        guard let data, count > 0 else { return }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self).trimmed(where: \.isWhitespace)
        // A new status line starts a new response (after a redirect or a 100): forget the old headers.
        if line.hasPrefix("HTTP/") { validators = Validators(); location = nil; return }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmed(where: \.isWhitespace)
        if name == "etag" { validators.etag = value }
        if name == "last-modified" { validators.lastModified = value }
        if name == "location" { location = value }
    }

    func digest() -> String { hasher.finalizeHex() }
}



/// An http:// or https:// URL: the only kind stationdb downloads from (sources.json's urls,
/// BASE_URL, --against, --check), checked once where it is given.
package struct WebURL: Sendable, Hashable, CustomStringConvertible {
    package let description: String

    package init?(_ text: String) {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
        description = text
    }

    /// Why `text` is not one, for the message that names where it was given.
    package static func problem(_ text: String) -> String { "expected an http:// or https:// URL, got \"\(shown(text))\"" }
}
