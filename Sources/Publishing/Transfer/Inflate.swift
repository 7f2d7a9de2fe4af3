import StationCore

extension HTTPClient {
    /// Room past a declared size before inflating stops: a stream a little longer
    /// than its claim is inflated whole and reported by the size and digest checks
    /// after it, with both sizes, as the damaged download it most likely is.
    package static let declaredSizeSlack = 1 << 16

    /// Inflates a downloaded gzip into `destination` (or only counts and hashes it),
    /// stopping once it passes the size its source `declared` (latest.json's bytes,
    /// a gzip trailer's) by more than the slack, and never past maxBytes: a gzip
    /// bomb claiming 2 MB stops near 2 MB instead of writing up to the limit.
    /// `by` names the declaration in the message.
    package func inflate(_ gzipPath: String, to destination: String?, what: String,
                        declared: Int?, by declaration: String) throws -> (bytes: Int, sha256: String) {
        let limit = options.maxBytes
        let cap = declared.map { min(limit, max(0, $0) + Self.declaredSizeSlack) } ?? limit
        do {
            return try StationError.inflating(what: what) {
                try Gzip.decompress(fileAt: gzipPath, to: destination, maxBytes: cap)
            }
        } catch let error as StationError where cap < limit {
            guard case .tooLarge? = error.transfer else { throw error }
            throw StationError(.corrupt(what: what, reason: "inflates past the \(declared ?? 0) bytes \(declaration) declares"
                                        + " (stopped at \(cap)); the file is damaged or not what it claims to be"))
        }
    }
}

extension StationError {
    /// Runs an inflate of a download, saying what went wrong in a download's terms.
    package static func inflating<T>(what: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StationError {
            guard case .gzip(let failure) = error.cause else { throw error }
            switch failure {
            case .damaged(let reason): throw StationError(.corrupt(what: what, reason: "not a valid gzip stream (\(reason)); the download is damaged, try again"))
            case .truncated: throw StationError(.corrupt(what: what, reason: "the gzip stream ends early; the download was cut short, try again"))
            case .tooLarge(let limit): throw StationError(.tooLarge(url: what, limit: limit))
            }
        }
    }
}
