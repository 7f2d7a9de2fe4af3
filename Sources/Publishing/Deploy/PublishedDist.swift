import FoundationEssentials
import StationCore

/// One version folder as a dist publishes it: the files its manifest.json lists,
/// with their sha256, and the manifest itself.
package struct VersionFolder: Sendable, Equatable {
    package var version: Int
    /// File name -> sha256, from manifest.json's "files".
    package var files: [String: String]
    /// sha256 of manifest.json.
    package var manifestDigest: String
    /// Bytes of every published file (for progress).
    package var bytes: Int
    /// The version it was made from (its manifest's previous_version), and the sha256 of its
    /// database: the line of versions a deploy may move the target along.
    package var previousVersion: Int?
    package var sha256: String = ""

    package var name: String { String(version) }

    /// What is copied, manifest.json last: a folder whose manifest is there was
    /// copied whole, however it was copied (docs/hosting.md's bucket upload relies on it).
    package var publishedNames: [String] { files.keys.sorted() + [DistLayout.manifest] }

    package func digest(of name: String) -> String? { name == DistLayout.manifest ? manifestDigest : files[name] }
}

/// What a dist publishes, and nothing else: latest.json and the numbered version
/// folders up to the version it names. dist/.lock, the stage records
/// (latest.json.inputs) and a publish's temporary `.tmp-*` folders are not
/// published, and a version folder above latest.json's (a publish that died
/// before naming it) was never announced.
package struct PublishedDist: Sendable {
    package var path: String
    package var latest: PublishedBundle
    /// latest.json as it is on disk: the target gets these bytes.
    package var latestBytes: [UInt8]
    /// Ascending; the last one is latest.json's.
    package var versions: [VersionFolder]
    /// Folders above latest.json's version, which are not deployed.
    package var unannounced: [Int]

    package static func read(_ dist: String) throws -> PublishedDist {
        guard Files.isFolder(dist) else {
            throw StationError.badInput(SourceLocation(file: dist), Files.exists(dist) ? "not a folder; give the dist folder make publishes into" : "no such folder; give the dist folder make publishes into")
        }
        let latestPath = joinPath(dist, DistLayout.latest)
        guard Files.exists(latestPath) else {
            try PublishedBundle.refuseLostLatest(in: dist)
            throw StationError.badInput(SourceLocation(file: latestPath), "missing: nothing is published in \(dist) yet; run make first")
        }
        let latestBytes = try Files.read(latestPath)
        let latest = try PublishedBundle.decode(latestBytes, path: latestPath)
        let numbered = try BundleVersion.named(Files.names(in: dist), in: dist)
        var versions: [VersionFolder] = []
        var problems = DiagnosticCollector(), notPlain = DiagnosticCollector()
        // Only regular files and real folders are deployed: a link would copy whatever it leads to.
        func plain(_ path: String, folder: Bool = false) -> Bool {
            guard let what = Files.notPlain(path, folder: folder) else { return true }
            notPlain.add(SourceLocation(file: path), "\(what): deploy copies only regular files and real folders; put the \(folder ? "folder" : "file") itself there")
            return false
        }
        _ = plain(latestPath)
        for version in numbered where version <= latest.version {
            let folder = joinPath(dist, String(version))
            let manifestPath = joinPath(folder, DistLayout.manifest)
            guard plain(folder, folder: true), plain(manifestPath) else { continue }
            guard Files.exists(manifestPath) else {
                problems.add(SourceLocation(file: manifestPath), "missing: without it the folder cannot be checked, and the apps' clients cannot either")
                continue
            }
            let manifestBytes = try Files.read(manifestPath)
            let manifest: PublishedBundle
            do {
                manifest = try JSONDecoder().decode(PublishedBundle.self, from: Data(manifestBytes))
            } catch let error as DecodingError {
                problems.add(SourceLocation(file: manifestPath, field: error.keyPath), "not a version's manifest: \(error.reason)")
                continue
            }
            guard manifest.version == version else {
                problems.add(SourceLocation(file: manifestPath, field: "version"), "says \(manifest.version), in folder \(version)")
                continue
            }
            guard let files = manifest.files else {
                problems.add(SourceLocation(file: manifestPath, field: "files"), "missing: the folder's files cannot be checked")
                continue
            }
            // The names reach a remote shell and become paths at the target: plain file names only.
            for name in files.keys.sorted() where name.isEmpty || name.contains("/") || name.hasPrefix(".") || name == DistLayout.manifest {
                problems.add(SourceLocation(file: manifestPath, field: "files"), "\"\(name)\" is not a file name of a version folder")
            }
            for name in files.keys.sorted() { _ = plain(joinPath(folder, name)) }
            let bytes = files.keys.reduce(manifestBytes.count) { $0 + (Files.size(of: joinPath(folder, $1)) ?? 0) }
            versions.append(VersionFolder(version: version, files: files, manifestDigest: SHA256.hex(manifestBytes), bytes: bytes,
                                          previousVersion: manifest.previousVersion, sha256: manifest.sha256.lowercased()))
        }
        try notPlain.check()
        try problems.check(damaged: true)
        guard versions.last?.version == latest.version else {
            throw StationError.damaged(SourceLocation(file: latestPath, field: "version"), "names version \(latest.version), but \(joinPath(dist, String(latest.version))) is missing; the dist is damaged (stationdb verify \(dist))")
        }
        return PublishedDist(path: dist, latest: latest, latestBytes: latestBytes, versions: versions,
                             unannounced: numbered.filter { $0 > latest.version })
    }

    package var latestFolder: VersionFolder { versions.last! }

    /// latest.json's version and every one it was made from, back to the first, newest
    /// first: what the apps went through to reach it (a folder off this line, announced
    /// before a rollback or made by another dist, is none of them).
    package var line: [VersionFolder] {
        let byVersion = Dictionary(versions.map { ($0.version, $0) }, uniquingKeysWith: { a, _ in a })
        var out = [latestFolder]
        while let previous = out.last?.previousVersion, previous < out.last!.version, let folder = byVersion[previous] { out.append(folder) }
        return out
    }

    /// Checks, before anything is copied, that latest.json agrees with its version's
    /// manifest and that every file of `folders` (and of latest.json's folder) has the
    /// sha256 its manifest gives: a damaged dist (exit 3) is never deployed, nothing of it.
    package func verify(_ folders: [VersionFolder]) throws {
        var problems = DiagnosticCollector()
        let latestPath = joinPath(path, DistLayout.latest)
        let v = String(latest.version)
        let manifestPath = joinPath(joinPath(path, v), DistLayout.manifest)
        if let differs = latest.difference(from: try PublishedBundle.read(path: manifestPath), at: manifestPath) {
            problems.add(SourceLocation(file: latestPath), differs)
        }
        for (field, relative) in [("database", latest.database), ("gzip", latest.gzip), ("manifest", latest.manifest),
                                  ("summary", latest.summary), ("patch", latest.patch ?? "")] where !relative.isEmpty {
            if parentFolder(of: relative) != v || (latestFolder.digest(of: fileName(of: relative)) == nil) {
                problems.add(SourceLocation(file: latestPath, field: field), "\(relative) is not a file of version \(v)'s manifest")
            }
        }
        let facts = [(latest.database, latest.sha256, "sha256"), (latest.gzip, latest.gzipSHA256, "gzip_sha256")]
            + (latest.patch.map { [($0, latest.patchSHA256 ?? "", "patch_sha256")] } ?? [])
        for (relative, digest, field) in facts where latestFolder.digest(of: fileName(of: relative)) != digest.lowercased() {
            problems.add(SourceLocation(file: latestPath, field: field), "differs from the sha256 \(manifestPath) gives \(relative)")
        }
        var checked = Set<Int>()
        for folder in folders + [latestFolder] where checked.insert(folder.version).inserted {
            let base = joinPath(path, folder.name)
            DistLayout.checkFiles(folder.files, in: base, manifest: joinPath(base, DistLayout.manifest), strays: false, &problems)
        }
        if !problems.isEmpty {
            var all = problems.diagnostics
            all.append(Diagnostic(SourceLocation(file: path), "damaged; nothing was deployed. `stationdb verify \(path)` checks it whole; publish again (make) once it is mended"))
            throw StationError.damaged(StationError.badInput(all, truncated: problems.isFull))
        }
    }
}
