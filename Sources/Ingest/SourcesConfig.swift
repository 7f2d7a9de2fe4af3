import FoundationEssentials
import StationIO
import StationModel

// raw/sources.json names the sources in precedence order; the first one wins
// field by field. Without it, raw/ itself is one native master CSV folder.
//
//   { "sources": [ { "kind": "ekidata", "path": "ekidata" },
//                  { "kind": "n02", "path": "N02-stations.xml", "url": "https://..." } ] }

public struct SourceDeclaration: Codable, Hashable, Sendable {
    public var kind: SourceKind
    /// Relative to the raw folder.
    public var path: String
    /// Where `stationdb fetch` downloads it from, if anywhere.
    public var url: String?

    public init(kind: SourceKind, path: String, url: String? = nil) {
        self.kind = kind; self.path = path; self.url = url
    }
}

public struct SourcesConfig: Codable, Hashable, Sendable {
    public var sources: [SourceDeclaration]

    public init(sources: [SourceDeclaration]) { self.sources = sources }

    public static let fileName = "sources.json"

    /// Reads raw/sources.json, or declares raw/ a native folder when there is none.
    /// Messages name it under `rawLabel` (by default the raw folder as given).
    public static func load(rawFolder: String, rawLabel: String? = nil) throws -> SourcesConfig {
        let file = joinPath(rawFolder, fileName), path = joinPath(rawLabel ?? rawFolder, fileName)
        guard Files.exists(file) else { return SourcesConfig(sources: [SourceDeclaration(kind: .native, path: ".")]) }
        let bytes = try Files.read(file, label: path)
        let config: SourcesConfig
        do {
            config = try JSONDecoder().decode(SourcesConfig.self, from: Data(bytes))
        } catch let error as DecodingError {
            // A syntax error: the decoder names no place, so find the line and column a maintainer's editor shows.
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty, let problem = JSONSyntax.firstProblem(in: bytes) {
                throw InputError(SourceLocation(file: path, line: problem.line, field: "column \(problem.column)"), "not valid JSON: \(problem.message)")
            }
            var reason = error.reason
            if case .keyNotFound = error { reason = "missing; each source needs \"kind\" (\(SourceKind.names)) and \"path\"" }
            throw InputError(SourceLocation(file: path, field: error.keyPath), reason)
        }
        if config.sources.isEmpty {
            throw InputError(SourceLocation(file: path, field: "sources"), "expected at least one source")
        }
        return config
    }

    /// The files each source reads, for digests and for fetch.
    public func files(rawFolder: String) -> [String] {
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
    public static func lexicallyNormalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let joined = path.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

extension SourceKind {
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let kind = SourceKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "unknown kind \"\(shown(name))\"; expected one of \(SourceKind.names)")
        }
        self = kind
    }
}
