import FoundationEssentials

// What a publish says of itself. dist/ holds one folder per version and
// latest.json, which names the current one:
//
//   latest.json                     replaced last, atomically; names the current version
//   <v>/stations.sqlite             the bundle (PRAGMA user_version = v)
//   <v>/stations.sqlite.gz          the same, gzip with mtime 0 and no name
//   <v>/patch-from-<p>.sql          the SQL that turns version p into v (Android form);
//                                   absent for the first version ("patch": null)
//   <v>/summary.txt                 rows added/removed/changed per table, weight changes
//   <v>/registry.csv                the ID registry as this version was made (when given)
//   <v>/manifest.json               latest.json's facts for v + "files": sha256 of every
//                                   other file in <v>/

/// Names inside dist/.
package enum DistLayout {
    package static let latest = "latest.json"
    package static let database = "stations.sqlite"
    package static let gzip = "stations.sqlite.gz"
    package static let manifest = "manifest.json"
    package static let summary = "summary.txt"
    /// The ID registry the version was made with: the next publish checks that it only grew.
    package static let registry = "registry.csv"
    /// The attribution the data's licences ask for (raw/CREDITS.md as it was published).
    package static let credits = "CREDITS.md"
    /// Prefix of the folders a publish builds in.
    package static let temporaryPrefix = ".tmp-"
    package static func patch(from previous: Int) -> String { "patch-from-\(previous).sql" }

    /// Why `path`, which latest.json or a manifest gives relative to the dist, is not a
    /// path inside it ("3/stations.sqlite"), or nil when it is: relative, each of its
    /// segments a name (no "..", ".", empty or control character).
    package static func problem(withPath path: String) -> String? {
        if path.hasPrefix("/") { return "\"\(printable(path))\" is absolute; a dist names its files relative to itself, inside it" }
        // "file:///etc/passwd", "https://elsewhere/x.gz": a dist's own names are a version and a file.
        if let first = path.split(separator: "/").first, let colon = first.firstIndex(of: ":") {
            return "\"\(printable(path))\" is a URL (\(printable(String(first[...colon])))), not a path: a dist names its files by their path inside it, as 3/stations.sqlite.gz"
        }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty { return "\"\(printable(path))\" is not a path inside the dist: it has an empty part (\"//\", or a \"/\" at its end)" }
            if let problem = problem(withName: String(segment)) {
                return "\"\(printable(path))\" is not a path inside the dist: \"\(printable(String(segment)))\" \(problem)"
            }
        }
        return nil
    }

    /// What is wrong with a version `folder` against the "files" of its manifest (at `manifest`):
    /// every file listed must have its sha256 (`saidMissing`: files already said missing), and
    /// with `strays`, every file of the folder but the manifest must be listed. verify, deploy
    /// and a build taking a prepared version all check a folder so.
    package static func checkFiles(_ files: [String: String]?, in folder: String, manifest path: String, strays: Bool = true,
                                   saidMissing: Set<String> = [], _ problems: inout DiagnosticCollector) {
        let location = SourceLocation(file: path, field: "files")
        guard let files else { return problems.add(location, "missing") }
        for (name, digest) in files.sorted(by: { $0.key < $1.key }) where !saidMissing.contains(joinPath(folder, name)) {
            let file = joinPath(folder, name)
            guard let actual = try? SHA256.hex(fileAt: file) else { problems.add(location, "\(file) is missing"); continue }
            if actual != digest.lowercased() { problems.add(location, "\(file) has sha256 \(actual), the manifest says \(digest)") }
        }
        for name in Files.names(in: folder) where strays && name != Self.manifest && files[name] == nil {
            problems.add(location, "\(name) is in the folder but not in the manifest")
        }
    }

    /// Why `name` is not the name of a file in a folder, or nil when it is.
    package static func problem(withName name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name == "." || name == ".." { return "leads out of its folder" }
        if name.contains("/") { return "holds a \"/\"" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "holds a control character" }
        return nil
    }
}

/// A bundle's version is its PRAGMA user_version, a signed 32-bit integer: 1...2,147,483,647.
/// The one definition every reader of a version holds it to: VERSION (--as-version), the
/// next version, a dist's folder names, latest.json and the manifests.
package enum BundleVersion {
    package static let range = 1...Int(Int32.max)
    static let limit = "outside 1...\(Int32.max): a version is the bundle's PRAGMA user_version, a 32-bit integer"

    /// `value` when it is a version; bad input at `location` otherwise.
    package static func checked(_ value: Int, at location: SourceLocation) throws -> Int {
        guard range.contains(value) else { throw StationError.badInput(location, "version \(value) is \(limit)") }
        return value
    }

    /// The versions among the names of a dist's entries, ascending: "7", not "07" (the apps
    /// ask for "7/"); a name of digits beyond the range is bad input naming it.
    package static func named(_ names: some Sequence<String>, in folder: String) throws -> [Int] {
        try names.filter { $0.first != "0" && !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }.map { name in
            guard let n = Int(name), range.contains(n) else { throw StationError.badInput(SourceLocation(file: joinPath(folder, name)), "a version folder's name, \(limit)") }
            return n
        }.sorted()
    }
}

/// latest.json, and a version's manifest.json (the same facts and "files"):
/// read by verify, diff, the next build and the apps' reference client.
package struct PublishedBundle: Codable, Sendable, Equatable {
    package struct Renumbered: Codable, Sendable, Hashable {
        package var newStationID: Int
        package var oldStationID: Int
        package var version: Int

        package init(newStationID: Int, oldStationID: Int, version: Int) {
            self.newStationID = newStationID; self.oldStationID = oldStationID; self.version = version
        }

        enum CodingKeys: String, CodingKey { case newStationID = "new_s_id", oldStationID = "old_s_id", version }
    }

    package var version: Int
    /// Written as null when absent, as "patch" is, so a reader sees every key.
    @Null package var previousVersion: Int?
    /// Paths relative to dist/.
    package var database: String
    package var sha256: String
    package var bytes: Int
    package var gzip: String
    package var gzipSHA256: String
    package var gzipBytes: Int
    package var manifest: String
    package var summary: String
    @Null package var patch: String?
    package var patchSHA256: String?
    /// Row count per table of the bundle.
    package var rows: [String: Int]
    /// Digest of every source file the bundle was made from, by its path in raw/.
    package var sources: [String: String]
    /// The renumberings this version introduced.
    package var renumbered: [Renumbered]
    /// How many values `stationdb lint` found worth a maintainer's look.
    package var warnings: Int?
    /// manifest.json only: sha256 of every other file of the version's folder.
    package var files: [String: String]?
    /// The licences of the data (sources.json's "license", e.g. "CC BY-SA 4.0"), and the
    /// credits file that attributes it, relative to dist/; nil when raw/ names none.
    package var license: String?
    package var credits: String?
    /// The upstream release each source held (its path in raw/ -> "v20260529"), for
    /// the sources that name one (station_database); nil when none does.
    package var releases: [String: String]?

    package init(version: Int, previousVersion: Int?, database: String, sha256: String, bytes: Int, gzip: String,
                gzipSHA256: String, gzipBytes: Int, manifest: String, summary: String, patch: String?, patchSHA256: String?,
                rows: [String: Int], sources: [String: String], renumbered: [Renumbered], warnings: Int?, files: [String: String]? = nil) {
        self.version = version; self.previousVersion = previousVersion; self.database = database; self.sha256 = sha256
        self.bytes = bytes; self.gzip = gzip; self.gzipSHA256 = gzipSHA256; self.gzipBytes = gzipBytes; self.manifest = manifest
        self.summary = summary; self.patch = patch; self.patchSHA256 = patchSHA256; self.rows = rows; self.sources = sources
        self.renumbered = renumbered; self.warnings = warnings; self.files = files
    }

    enum CodingKeys: String, CodingKey {
        case version, previousVersion = "previous_version", database, sha256, bytes, gzip
        case gzipSHA256 = "gzip_sha256", gzipBytes = "gzip_bytes", manifest, summary, patch
        case patchSHA256 = "patch_sha256", rows, sources, renumbered, warnings = "lint_warnings", files, license, credits, releases
    }

    package init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func version(_ key: CodingKeys) throws -> Int? {
            let v = try c.decodeIfPresent(Int.self, forKey: key)
            if let v, !BundleVersion.range.contains(v) { throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "\(v) is \(BundleVersion.limit)") }
            return v
        }
        self.version = try version(.version) ?? c.decode(Int.self, forKey: .version)
        previousVersion = try version(.previousVersion)
        // Every reader joins these to the dist folder (or the URL it is served at): one that
        // climbed out would have verify hash, and diff or preview open, any file of the machine.
        func path(_ key: CodingKeys) throws -> String? {
            guard let value = try c.decodeIfPresent(String.self, forKey: key) else { return nil }
            if let problem = DistLayout.problem(withPath: value) {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: problem)
            }
            return value
        }
        database = try path(.database) ?? c.decode(String.self, forKey: .database)
        sha256 = try c.decode(String.self, forKey: .sha256)
        bytes = try c.decode(Int.self, forKey: .bytes)
        gzip = try path(.gzip) ?? c.decode(String.self, forKey: .gzip)
        gzipSHA256 = try c.decode(String.self, forKey: .gzipSHA256)
        gzipBytes = try c.decode(Int.self, forKey: .gzipBytes)
        manifest = try path(.manifest) ?? ""
        summary = try path(.summary) ?? ""
        patch = try path(.patch)
        patchSHA256 = try c.decodeIfPresent(String.self, forKey: .patchSHA256)
        rows = try c.decodeIfPresent([String: Int].self, forKey: .rows) ?? [:]
        sources = try c.decodeIfPresent([String: String].self, forKey: .sources) ?? [:]
        renumbered = try c.decodeIfPresent([Renumbered].self, forKey: .renumbered) ?? []
        warnings = try c.decodeIfPresent(Int.self, forKey: .warnings)
        files = try c.decodeIfPresent([String: String].self, forKey: .files)
        // A manifest's files are joined to its version's folder: names in it, nothing more.
        if let name = files?.keys.sorted().first(where: { DistLayout.problem(withName: $0) != nil }) {
            throw DecodingError.dataCorruptedError(forKey: .files, in: c, debugDescription: "\"\(printable(name))\" \(DistLayout.problem(withName: name)!)")
        }
        license = try c.decodeIfPresent(String.self, forKey: .license)
        credits = try path(.credits)
        releases = try c.decodeIfPresent([String: String].self, forKey: .releases)
    }

    /// Why latest.json (this) does not hold the facts of its version's `manifest` (read at
    /// `path`), which must be the same but "files"; nil when it does.
    package func difference(from manifest: PublishedBundle, at path: String) -> String? {
        var facts = manifest
        facts.files = nil
        return facts == self ? nil : "differs from \(path) (which must hold the same facts, and \"files\")"
    }

    /// The JSON document: keys sorted, two-space indent, a trailing newline.
    package func json() throws -> [UInt8] { try jsonDocument(self) }

    /// Reads latest.json or a manifest.json; one that is not such a document is bad input naming the file.
    package static func read(path: String) throws -> PublishedBundle {
        try decode(Files.read(path), path: path)
    }

    package static func decode(_ bytes: [UInt8], path: String) throws -> PublishedBundle {
        try decode(bytes) { StationError.badInput(SourceLocation(file: path, field: $0.keyPath), "not a published bundle's description: \($0.reason)") }
    }

    /// The same, a document that is not one being the error `failure` makes of why (a download's, say).
    package static func decode(_ bytes: [UInt8], failure: (DecodingError) -> Error) throws -> PublishedBundle {
        do { return try JSONDecoder().decode(PublishedBundle.self, from: Data(bytes)) } catch let error as DecodingError { throw failure(error.naming(in: bytes)) }
    }

    /// The published version of a dist folder, or nil when nothing is published there yet.
    /// A dist that published versions and lost latest.json is damaged (exit 3), never
    /// "nothing published": the next version would go out with no guard and no patch.
    package static func latest(in dist: String) throws -> PublishedBundle? {
        let path = joinPath(dist, DistLayout.latest)
        if Files.exists(path) { return try read(path: path) }
        try refuseLostLatest(in: dist)
        return nil
    }

    /// Version folders with no latest.json: a version was published when one of them
    /// follows another (latest.json named the one it was built against) or when a publish
    /// left its record (written after latest.json). Without either, they are first
    /// versions whose publish died before naming them, and the next version skips them.
    package static func refuseLostLatest(in dist: String) throws {
        let folders = try BundleVersion.named(Files.names(in: dist).filter { Files.isFolder(joinPath(dist, $0)) }, in: dist)
        guard !folders.isEmpty else { return }
        let recorded = Files.exists(StageRecord.path(for: joinPath(dist, DistLayout.latest)))
        let followed = folders.contains { version in
            (try? read(path: joinPath(joinPath(dist, String(version)), DistLayout.manifest)))?.previousVersion != nil
        }
        guard recorded || followed else { return }
        let listed = folders.prefix(10).map(String.init).joined(separator: ", ") + (folders.count > 10 ? " and \(folders.count - 10) more" : "")
        throw StationError.damaged(SourceLocation(file: joinPath(dist, DistLayout.latest)),
                           "missing, but version folders \(listed) are published in \(dist): the dist is damaged, and a version made now "
                           + "would be compared with nothing. Restore it: copy the latest.json the web server serves (BASE/latest.json) "
                           + "into \(dist), or make it from the manifest.json of the version the apps have (the same facts without "
                           + "\"files\"); then `stationdb verify \(dist)`")
    }
}

/// An optional that a synthesized encoding writes as null when absent (it would leave the key out).
@propertyWrapper
package struct Null<Value: Sendable>: Sendable {
    package var wrappedValue: Value?
    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }
}

extension Null: Equatable where Value: Equatable {}

extension Null: Encodable where Value: Encodable {
    package func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(wrappedValue)
    }
}

extension Null: Decodable where Value: Decodable {
    package init(from decoder: Decoder) throws { wrappedValue = try decoder.singleValueContainer().decode(Value?.self) }
}

/// The published version a new one is compared with: the local dist's latest, or one
/// downloaded from where the apps read it.
package struct Baseline: Sendable {
    /// Its latest.json.
    package var bundle: PublishedBundle
    /// Its stations.sqlite, here.
    package var databasePath: String
    /// The ID registry it was published with, when there is one.
    package var registryPath: String?
    /// How messages name it: the dist folder or the URL.
    package var label: String
    /// Its manifest's "files" (name -> sha256), when it was read: what the version published
    /// besides its tables (CREDITS.md, the data's attribution).
    package var files: [String: String]?
    /// Its latest.json as read (a local dist's): the build's record is checked against it unread.
    package var latest: WrittenFile?

    package init(bundle: PublishedBundle, databasePath: String, registryPath: String?, label: String, files: [String: String]? = nil) {
        self.bundle = bundle; self.databasePath = databasePath; self.registryPath = registryPath; self.label = label; self.files = files
    }

    /// The version latest.json names in `dist`, or nil when nothing is published there yet.
    /// Its database and registry must be as published (their sha256 in latest.json and the
    /// manifest): a copy changed since (by hand, or damaged) would be diffed and patched
    /// from as if the apps had it, so it is an error (exit 3) naming the file.
    package static func local(dist: String) throws -> Baseline? {
        let latestPath = joinPath(dist, DistLayout.latest)
        guard Files.exists(latestPath) else {
            try PublishedBundle.refuseLostLatest(in: dist)
            return nil
        }
        let stamp = WrittenFile.stamp(of: latestPath), bytes = try Files.read(latestPath)
        let latest = try PublishedBundle.decode(bytes, path: latestPath)
        let database = joinPath(dist, latest.database)
        guard Files.exists(database) else {
            throw StationError.damaged(SourceLocation(file: joinPath(dist, DistLayout.latest), field: "database"), "the published database \(database) is missing: the dist is damaged")
        }
        let folder = joinPath(dist, String(latest.version)), manifest = joinPath(folder, DistLayout.manifest)
        let registry = joinPath(folder, DistLayout.registry)
        var expected = [(database, latest.sha256, joinPath(dist, DistLayout.latest))]
        let files = try? PublishedBundle.read(path: manifest).files
        if Files.exists(registry), let files {
            expected.append((registry, files[DistLayout.registry] ?? "none", manifest))
        }
        // The registry is read whole (kept for the run that checks against it); the database a piece at a time.
        for (path, sha256, source) in expected where try (path == registry ? SHA256.hex(HeldInputs.read(path)) : SHA256.hex(fileAt: path)) != sha256 {
            throw StationError.environment("\(path) is not as published: its sha256 differs from the one \(source) gives; a published version never changes, "
                                   + "so put the file back as it was published (the web server keeps a copy) before publishing or planning against it")
        }
        var baseline = Baseline(bundle: latest, databasePath: database, registryPath: Files.exists(registry) ? registry : nil, label: dist, files: files)
        baseline.latest = stamp.map { WrittenFile(sha256: SHA256.hex(bytes), stamp: $0) }
        return baseline
    }
}

extension DecodingError {
    /// The same error, or, for a document holding a number no reader takes as written (which
    /// Foundation refuses as "not valid JSON", or as the wrong type), that number at its path:
    /// "version: 99999999999999999999 is out of range".
    package func naming(in bytes: [UInt8]) -> DecodingError {
        guard let number = JSONSyntax.numberOutOfRange(in: bytes) else { return self }
        let path = number.path.split(separator: ".").map { JSONPathKey(String($0)) }
        return .dataCorrupted(Context(codingPath: path, debugDescription: "\(number.text) is out of range: no reader takes it as written"))
    }

    private struct JSONPathKey: CodingKey {
        var stringValue: String
        var intValue: Int? { Int(stringValue) }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { stringValue = String(intValue) }
    }

    /// Where in the document: "sources.0.kind".
    package var keyPath: String? {
        let path: [CodingKey]
        switch self {
        case .keyNotFound(let key, let context): path = context.codingPath + [key]
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): path = context.codingPath
        @unknown default: return nil
        }
        return path.isEmpty ? nil : path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
    }

    /// What is wrong, in a sentence.
    package var reason: String {
        switch self {
        case .keyNotFound: return "missing"
        case .typeMismatch(let type, _): return "expected \(type == String.self ? "a string" : type == Int.self ? "an integer" : "\(type)")"
        case .valueNotFound(let type, _): return "expected \(type), found null"
        case .dataCorrupted(let context) where !context.codingPath.isEmpty:
            return context.debugDescription
        case .dataCorrupted(let context):
            return "not valid JSON" + (context.underlyingError.map { " (\($0))" } ?? (context.debugDescription.isEmpty ? "" : " (\(context.debugDescription))"))
        @unknown default: return "\(self)"
        }
    }
}
