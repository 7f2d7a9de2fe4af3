import Glibc
import StationCore

/// A folder reached through rsync: on another machine (`host:path`, rsync and its
/// commands over ssh), or on this one (`--rsync`, the same commands through sh,
/// which is how the tests run this code without an ssh server).
///
/// The order is the local copy's: each version goes into a staging folder of the
/// target (one rsync run, which writes every file under a temporary name and
/// renames it), is checked there with sha256sum, and is renamed into place by one
/// `mv`; latest.json goes last, alone, by rsync's own temporary-name-and-rename.
/// The target needs a POSIX sh, ls, cat, sha256sum, mv, rm and rsync: any Debian.
struct RsyncTarget: DeployTarget {
    enum Shell {
        case local
        /// The words of the remote shell command (rsync's -e), and the host.
        case ssh(words: [String], host: String)
    }

    let path: String
    let shell: Shell
    /// The remote shell command as given (`ssh`, `ssh -p 2222`), for rsync's -e.
    let rsh: String

    init(address: TargetAddress, rsh: String) {
        self.rsh = rsh
        switch address {
        case .folder(let p):
            path = p; shell = .local
        case .remote(let host, let p):
            path = p; shell = .ssh(words: rsh.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init), host: host)
        }
    }

    var label: String {
        switch shell {
        case .local: return path
        case .ssh(_, let host): return "\(host):\(path)"
        }
    }

    private var quotedPath: String { shellQuoted(path) }

    /// Runs a script in the target's shell, failing (exit 3) when it does.
    private func sh(_ script: String, allowing: Set<Int32> = [0]) throws -> Subprocess.Result {
        let result: Subprocess.Result
        switch shell {
        case .local:
            result = try Subprocess.run(["/bin/sh", "-c", script], capture: true)
        case .ssh(let words, let host):
            guard !words.isEmpty else { throw StationError.badInput(SourceLocation(file: "--rsh"), "empty; give the remote shell, e.g. ssh or \"ssh -p 2222\"") }
            // ssh hands the one argument to the login's shell, as rsync's own commands are.
            result = try Subprocess.run(words + [host, script], capture: true)
            if result.status == 255 {
                throw StationError.environment("cannot reach \(host) with `\(rsh)`: \(result.errors); check that `\(rsh) \(host) true` works without a password prompt (a key in ssh-agent or ~/.ssh/config), or give --rsh")
            }
        }
        guard allowing.contains(result.status) else {
            if result.status == 127 {
                throw StationError.environment("\(label): a command deploy needs is missing there (\(result.errors)); it needs sh, ls, cat, sha256sum (coreutils), mv, rm and flock (util-linux)")
            }
            throw StationError.environment("\(label): `\(shown(script, limit: 120))` failed (exit \(result.status)): \(result.errors)")
        }
        return result
    }

    static let marker = "stationdb-deploy:"

    func state() throws -> TargetState {
        let p = quotedPath, m = Self.marker
        let script = """
            if [ -d \(p) ]; then echo '\(m) folder'; cd -- \(p) && ls -A -p && if [ -f latest.json ]; then echo '\(m) latest.json'; cat latest.json; fi; \
            elif [ -e \(p) ]; then echo '\(m) not a folder'; else echo '\(m) none'; fi
            """
        let output = try sh(script).output
        // latest.json's exact bytes follow the listing: cut there in the bytes, not in decoded text.
        let latestMarker = Array("\n\(m) latest.json\n".utf8)
        let cut = output.firstRange(of: latestMarker)?.lowerBound
        let text = String(decoding: cut.map { output[..<$0] } ?? output[...], as: UTF8.self)
        // A login script may print before our first line: everything before the marker is ignored.
        guard let start = text.firstRange(of: "\(m) ") else {
            throw StationError.environment("\(label): unexpected answer to the listing of the target folder: \(shown(text))")
        }
        let listing = text[start.upperBound...]
        if listing.hasPrefix("none") { return TargetState(exists: false, entries: [:], latestBytes: nil) }
        if listing.hasPrefix("not a folder") { throw StationError.badInput(SourceLocation(file: label), "not a folder; TARGET is the folder the web server serves") }
        var entries: [String: Bool] = [:]
        let latest = cut.map { Array(output[($0 + latestMarker.count)...]) }
        for line in listing.split(separator: "\n").dropFirst() where !line.isEmpty {
            let isFolder = line.hasSuffix("/")
            let name = String(isFolder ? line.dropLast() : line)
            if name != "." && name != ".." { entries[name] = isFolder }
        }
        return TargetState(exists: true, entries: entries, latestBytes: latest)
    }

    func digests(_ relative: [String]) throws -> [String: String] {
        var out: [String: String] = [:]
        var start = 0
        // Batches keep each command line far below the limits of ssh and the remote shell.
        while start < relative.count {
            let batch = relative[start..<min(start + 200, relative.count)]
            start += batch.count
            let script = "cd -- \(quotedPath) && sha256sum -- " + batch.map(shellQuoted).joined(separator: " ")
            // 1: some file is missing; the others are still listed.
            let result = try sh(script, allowing: [0, 1])
            for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1)
                guard parts.count == 2, parts[0].count == 64 else { continue }
                var name = parts[1]
                if name.hasPrefix(" ") || name.hasPrefix("*") { name = name.dropFirst() }
                if batch.contains(String(name)) { out[String(name)] = String(parts[0]) }
            }
        }
        return out
    }

    func prepare() throws { _ = try sh("mkdir -p -- \(quotedPath)") }

    func remove(_ names: [String]) throws {
        guard !names.isEmpty else { return }
        _ = try sh("cd -- \(quotedPath) && rm -rf -- " + names.map(shellQuoted).joined(separator: " "))
    }

    /// rsync's destination for a path inside the target.
    private func destination(_ relative: String) -> String {
        let full = joinPath(path, relative)
        switch shell {
        case .local: return full
        case .ssh(_, let host): return "\(host):\(full)"
        }
    }

    /// rsync with what every copy needs: times kept (a web server's Last-Modified), files
    /// readable by the web server whatever the umask, each file flushed before its
    /// rename. Never --delete: the target keeps every version the apps may still patch from.
    private func rsync(_ sources: [String], to destination: String, extra: [String] = []) throws {
        var arguments = ["rsync", "--times", "--perms", "--chmod=D755,F644", "--fsync"] + extra
        if case .ssh = shell { arguments += ["-e", rsh] }
        // A line per file as it lands (a cron log reads them), and on a terminal the running total too.
        arguments.append("--out-format=deploy: rsync: %n (%l bytes)")
        if isatty(STDERR_FILENO) == 1 { arguments.append("--info=progress2") }
        let result = try Subprocess.run(arguments + ["--"] + sources + [destination], capture: false)
        guard result.status == 0 else {
            throw StationError.environment("rsync into \(destination) failed (exit \(result.status)); its message is above")
        }
    }

    func stage(_ folder: VersionFolder, from dist: String, into staging: String) throws {
        let sources = folder.publishedNames.map { joinPath(joinPath(dist, folder.name), $0) }
        try rsync(sources, to: destination(staging) + "/")
        let arrived = try digests(folder.publishedNames.map { "\(staging)/\($0)" })
        for name in folder.publishedNames where arrived["\(staging)/\(name)"] != folder.digest(of: name)?.lowercased() {
            throw StationError.environment("\(label)/\(staging)/\(name) has sha256 \(arrived["\(staging)/\(name)"] ?? "(missing)") after rsync, the manifest says \(folder.digest(of: name) ?? ""); nothing of version \(folder.name) was placed")
        }
        Events.send(DeployEvent.staged)
    }

    func place(_ staging: String, as name: String) throws {
        // mv onto an existing folder would move the staging folder into it: refuse instead.
        // `sync -- .` flushes the rename (coreutils' sync takes files since 8.24; older ones ignore them).
        let result = try sh("cd -- \(quotedPath) && if [ -e \(shellQuoted(name)) ]; then exit 86; fi && mv -- \(shellQuoted(staging)) \(shellQuoted(name)) && { sync -- . 2>/dev/null || true; }",
                            allowing: [0, 86])
        if result.status == 86 { throw StationError.environment("\(label)/\(name) appeared while this deploy ran (another deploy into it?); nothing was replaced") }
    }

    /// A folder of this machine is locked as a local target is; over ssh, no lock outlives one command.
    func lock(wait: Bool) throws -> FileLock? {
        guard case .local = shell else { return nil }
        return try FileLock.take(joinPath(path, Deployment.targetLockName), for: "deploy into \(path)", wait: wait)
    }

    func putLatest(from dist: String, replacing current: [UInt8]?) throws -> Bool {
        // Sent beside it first (-I: it may have the size and time of the dist's and other bytes),
        // then renamed over it while it is the one checked: over ssh under flock(1) on the
        // target's lock, which this process holds itself for a folder of this machine.
        let staged = ".\(DistLayout.latest).deploy-\(getpid())"
        try rsync([joinPath(dist, DistLayout.latest)], to: destination(staged), extra: ["--ignore-times"])
        let unchanged = current.map { "[ \"$(sha256sum < \(DistLayout.latest))\" = '\(SHA256.hex($0))  -' ]" } ?? "[ ! -e \(DistLayout.latest) ]"
        var swap = "if \(unchanged); then mv -f -- \(staged) \(DistLayout.latest) && { sync -- . 2>/dev/null || true; }; else exit 86; fi"
        if case .ssh = shell { swap = "flock \(Deployment.targetLockName) -c \(shellQuoted(swap))" }
        let result = try sh("cd -- \(quotedPath) && ( \(swap) ); s=$?; [ $s = 0 ] || rm -f -- \(staged); exit $s", allowing: [0, 86])
        return result.status == 0
    }
}
