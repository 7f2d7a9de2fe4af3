import FoundationEssentials
import Glibc
import StationCore

/// `stationdb deploy --check URL`: reads URL as the apps do, with the reference
/// client's own code (BundleClient, into a temporary database), and compares what
/// arrived with what was deployed: latest.json's facts (version, checksums, row
/// counts), the database through its gzip (size and sha256 before and after gunzip,
/// user_version), its row counts, the version's manifest and registry, and the patch
/// an app one version behind downloads.
package enum DeployCheck {
    package struct Report: Sendable {
        package var version: Int
        package var rows: Int
        package var checkedPatch: Bool
    }

    /// `manifestSHA256`: the sha256 of the version's manifest.json as deployed.
    /// Throws a StationError of the environment (exit 3) that says what differs and what to look at.
    package static func run(url: String, expected: PublishedBundle, manifestSHA256: String, http: HTTPClient) throws -> Report {
        let folder = try scratchFolder()
        defer { Files.remove(folder) }
        let client = BundleClient(baseURL: url, databasePath: joinPath(folder, "stations.sqlite"), http: http)
        func failed(_ message: String) -> StationError {
            StationError.environment("--check \(url): \(message)")
        }

        let served: Baseline
        do {
            served = try client.downloadPublished()
        } catch let error as StationError {
            if case .httpStatus(_, 404)? = error.transfer {
                throw failed("\(error.message); is \(url) the address the target folder is served at?")
            }
            throw failed(error.message)
        }
        if served.bundle.version != expected.version {
            throw failed("latest.json names version \(served.bundle.version), version \(expected.version) was deployed: either the server does not serve the target folder, or a cache still holds the old latest.json (give latest.json a short Cache-Control lifetime; see docs/hosting.md)")
        }
        if served.bundle != expected {
            throw failed("latest.json differs from the one deployed (\(differingFields(served.bundle, expected).joined(separator: ", "))); does the server rewrite it, or serve another folder?")
        }

        let db = try SQLiteDatabase(path: served.databasePath, mode: .readOnly)
        defer { db.close() }
        var total = 0
        for (table, count) in expected.rows.sorted(by: { $0.key < $1.key }) {
            guard try db.tableExists(table) else { throw failed("the downloaded database has no table \(table); latest.json counts \(count) rows") }
            let actual = try db.scalarInt("SELECT count(*) FROM \"\(table)\"") ?? 0
            if actual != count { throw failed("the downloaded database has \(actual) rows in \(table), latest.json says \(count)") }
            total += actual
        }

        // The files the client's code read but does not hold against a digest of ours.
        var files = [(expected.manifest, manifestSHA256, "the version's manifest")]
        if let patch = expected.patch { files.append((patch, expected.patchSHA256 ?? "", "the patch the apps one version behind use")) }
        for (relative, digest, what) in files {
            let fileURL = client.baseURL + "/" + relative
            let download: HTTPResult
            do {
                download = try http.download(fileURL, to: joinPath(folder, "download"))
            } catch let error as StationError {
                throw failed("\(error.message) (\(what))")
            }
            if download.sha256 != digest.lowercased() {
                throw failed("\(fileURL) has sha256 \(download.sha256), the deployed file \(digest): \(what) is not what was deployed")
            }
        }
        return Report(version: served.bundle.version, rows: total, checkedPatch: expected.patch != nil)
    }

    static func differingFields(_ a: PublishedBundle, _ b: PublishedBundle) -> [String] {
        var out: [String] = []
        if a.previousVersion != b.previousVersion { out.append("previous_version") }
        if a.database != b.database || a.sha256 != b.sha256 || a.bytes != b.bytes { out.append("database") }
        if a.gzip != b.gzip || a.gzipSHA256 != b.gzipSHA256 || a.gzipBytes != b.gzipBytes { out.append("gzip") }
        if a.patch != b.patch || a.patchSHA256 != b.patchSHA256 { out.append("patch") }
        if a.rows != b.rows { out.append("rows") }
        if a.manifest != b.manifest || a.summary != b.summary { out.append("manifest, summary") }
        if a.sources != b.sources || a.renumbered != b.renumbered || a.warnings != b.warnings { out.append("sources, renumbered, lint_warnings") }
        return out.isEmpty ? ["files"] : out
    }

    private static func scratchFolder() throws -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array(joinPath(base, "stationdb-check-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw StationError.environment("cannot create a folder in \(base) for --check: \(systemError())")
        }
        return String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
