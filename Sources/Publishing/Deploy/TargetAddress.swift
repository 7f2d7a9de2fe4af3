import StationCore

/// Where `stationdb deploy` copies a dist: a folder of this machine, or a folder
/// of another one reached by rsync over ssh, spelled as rsync spells it
/// (`host:path`, `user@host:path`).
package enum TargetAddress: Equatable, Sendable, CustomStringConvertible {
    case folder(String)
    case remote(host: String, path: String)

    /// rsync's own rule: a colon before the first slash makes a remote path, so
    /// `./a:b` and `/srv/a:b` stay local folders.
    package init(_ text: String) throws {
        let lower = text.lowercased()
        let location = SourceLocation(file: text)
        if text.isEmpty { throw StationError.badInput(SourceLocation(file: "TARGET"), "empty; name a folder (/srv/www/stations) or host:path") }
        // rsync and ssh would take it for an option; a folder of that name is written ./-name.
        if text.hasPrefix("-") { throw StationError.badInput(location, "starts with '-', as an option does; name a folder (./\(text) for a folder of that name) or host:path") }
        if WebURL(text) != nil {
            throw StationError.badInput(location, "a URL is where the apps download from, not where deploy copies to: give the folder the web server serves (a local path or host:path), and the URL to --check")
        }
        if lower.hasPrefix("s3://") {
            throw StationError.badInput(location, "deploy copies into a folder (local or host:path); for a bucket, run the AWS CLI commands of docs/hosting.md")
        }
        if lower.hasPrefix("rsync://") || text.contains("::") {
            throw StationError.badInput(location, "an rsync daemon module; deploy uses rsync over ssh: give host:path")
        }
        guard let colon = text.firstIndex(of: ":"), !text[..<colon].contains("/") else {
            self = .folder(text)
            return
        }
        let host = String(text[..<colon])
        var path = String(text[text.index(after: colon)...])
        if host.isEmpty { throw StationError.badInput(location, "no host before the colon; a local folder whose name has a colon is written ./\(text)") }
        if host.contains("@-") { throw StationError.badInput(location, "a host that starts with '-' would reach ssh as an option; name the host") }
        // ssh starts commands in the login's home folder, as rsync reads a relative
        // path: "~/x" and "x" are the same folder, and a quoted ~ would not expand.
        if path.hasPrefix("~/") { path.removeFirst(2) }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path.isEmpty || path == "~" || path == "." {
            throw StationError.badInput(location, "the path after \(host): would be the login's home folder itself; name the served folder, e.g. \(host):/srv/www/stations")
        }
        self = .remote(host: host, path: path)
    }

    package var description: String {
        switch self {
        case .folder(let path): return path
        case .remote(let host, let path): return "\(host):\(path)"
        }
    }
}
