import FoundationEssentials
import StationCore

// raw/sources.json names the sources in precedence order; the first one wins
// field by field. Without it, raw/ itself is one native master CSV folder.
//
//   { "sources": [ { "kind": "ekidata", "path": "ekidata" },
//                  { "kind": "n02", "path": "N02-stations.xml", "url": "https://..." } ] }

package struct SourceDeclaration: Codable, Hashable, Sendable {
    package var kind: SourceKind
    /// Relative to the raw folder.
    package var path: String
    /// Where `stationdb fetch` downloads it from, if anywhere.
    package var url: String?
    /// The data's licence, e.g. "CC BY-SA 4.0": latest.json names it, and raw/CREDITS.md
    /// (published with every version) gives the attribution it asks for.
    package var license: String?

    package init(kind: SourceKind, path: String, url: String? = nil, license: String? = nil) {
        self.kind = kind; self.path = path; self.url = url; self.license = license
    }
}

package struct SourcesConfig: Codable, Hashable, Sendable {
    package var sources: [SourceDeclaration]
    /// The sha256 of raw/sources.json as parsed; nil when there is none (raw/ is native).
    package var sha256: String?

    private enum CodingKeys: String, CodingKey { case sources }

    package init(sources: [SourceDeclaration]) { self.sources = sources }

    package static let fileName = "sources.json"
    /// The attribution the sources' licences ask for, published with every version.
    package static let creditsFile = "CREDITS.md"

    /// Reads raw/sources.json, or declares raw/ a native folder when there is none.
    /// Messages name it under `rawLabel` (by default the raw folder as given).
    ///
    /// Everything a run reads from raw/ stays in raw/: a source's path is relative and
    /// never climbs out with "..", and raw/ holds no link that leads out of it (or
    /// nowhere). A file elsewhere (raw/fixes.csv linked to /etc/shadow) would be read,
    /// and its values quoted into messages, reports and CI logs; fetch would write there.
    package static func load(rawFolder: String, rawLabel: String? = nil) throws -> SourcesConfig {
        let label = rawLabel ?? rawFolder
        let file = joinPath(rawFolder, fileName), path = joinPath(label, fileName)
        let links = Files.linksLeaving(rawFolder)
        if !links.isEmpty {
            throw StationError.badInput(links.map { link in
                Diagnostic(SourceLocation(file: joinPath(label, String(link.path.dropFirst(rawFolder.count).drop { $0 == "/" }))),
                           "a link to \(link.target), \(link.resolves ? "outside the raw folder" : "which leads nowhere"); "
                           + "raw/ may hold no link that leaves it: put the file itself there")
            })
        }
        guard Files.exists(file) else { return SourcesConfig(sources: [SourceDeclaration(kind: .native, path: ".")]) }
        let bytes = try Files.read(file, label: path)
        let lines: [String: Int]
        do {
            lines = try JSONSyntax.lines(in: bytes)
        } catch let problem as JSONSyntax.Problem {
            throw StationError.badInput(SourceLocation(file: path, line: problem.line, field: "column \(problem.column)"), "not valid JSON: \(problem.message)")
        }
        /// The line of a key path, or of the nearest value around it that has one.
        func at(_ keyPath: String?) -> SourceLocation {
            var key = keyPath ?? ""
            while !key.isEmpty, lines[key] == nil { key = String(key[..<(key.lastIndex(of: ".") ?? key.startIndex)]) }
            return SourceLocation(file: path, line: lines[key] ?? keyPath.map { _ in 1 }, field: keyPath)
        }
        var config: SourcesConfig
        do {
            config = try JSONDecoder().decode(SourcesConfig.self, from: Data(bytes))
            config.sha256 = SHA256.hex(bytes)
        } catch let error as DecodingError {
            var reason = error.reason
            if case .keyNotFound = error { reason = "missing; each source needs \"kind\" (\(SourceKind.names)) and \"path\"" }
            throw StationError.badInput(at(error.keyPath), reason)
        }
        if config.sources.isEmpty {
            throw StationError.badInput(at("sources"), "expected at least one source")
        }
        var problems = DiagnosticCollector()
        for (i, source) in config.sources.enumerated() {
            if source.path.hasPrefix("/") || source.path.split(separator: "/").contains("..") {
                problems.add(at("sources.\(i).path"), "\"\(shown(source.path))\" leaves the raw folder; expected a path inside it (no \"..\", not absolute)")
            } else if let own = SourcesConfig(sources: [source]).files(rawFolder: ".").first(where: ownFiles.contains) {
                // fetch writes a source's files: raw/registry.csv overwritten by a download would lose every s_id.
                problems.add(at("sources.\(i).path"), "\"\(shown(source.path))\" names \(joinPath(label, own)), one of raw/'s own files "
                             + "(\(ownFiles.sorted().joined(separator: ", "))), which no source may be or replace; give the source a file or folder of its own")
            } else if source.path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                // The C library ends a path at a NUL: "station_database\0x" would be another folder than it says.
                problems.add(at("sources.\(i).path"), "\"\(printable(source.path))\" holds a control character; expected a file or folder name")
            }
        }
        try problems.check()
        return config
    }

    /// The files of raw/ that are the maintainers' and stationdb's own, never a source's.
    static let ownFiles: Set<String> = [fileName, creditsFile, Registry.fileName, DataFixes.fileName, HandWeights.fileName, "renumbered.csv",
                                        IdentityDecisions.fileName, "reviewed.csv"]

    /// Every file of raw/ a publish takes from besides the fixes and the registry: each
    /// source's files, the upstream's note of its release (which latest.json and the
    /// reports name) and CREDITS.md, for the stage's record and latest.json's digests.
    package func inputFiles(rawFolder: String) -> [String] {
        files(rawFolder: rawFolder)
            + sources.filter { $0.kind == .stationDatabase }.map {
                Self.lexicallyNormalized(joinPath(joinPath(rawFolder, $0.path), StationDatabaseReader.releaseFile))
            }
            + [Self.lexicallyNormalized(joinPath(rawFolder, Self.creditsFile))]
    }

    /// The licences the sources name, in order, each once: latest.json's "license".
    package var license: String? {
        var seen = Set<String>()
        let names = sources.compactMap(\.license).filter { seen.insert($0).inserted }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// The files each source reads, for digests and for fetch.
    package func files(rawFolder: String) -> [String] {
        var out: [String] = []
        for s in sources {
            let p = joinPath(rawFolder, s.path)
            out += s.kind == .n02 ? [p] : s.kind.files.map { joinPath(p, $0) }
        }
        return out.map(Self.lexicallyNormalized)
    }

    /// Drops "." segments and doubled slashes without touching the file system
    /// (resolving links would move a linked source folder outside raw/ in
    /// messages and digests).
    package static func lexicallyNormalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let joined = path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

extension SourceKind {
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    package init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = SourceKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown kind \"\(shown(name))\"; expected one of \(SourceKind.names)")
        }
        self = kind
    }
}
