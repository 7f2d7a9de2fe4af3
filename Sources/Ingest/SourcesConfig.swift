import FoundationEssentials
import Glibc
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
    public static func load(rawFolder: String) throws -> SourcesConfig {
        let path = Path.appending(rawFolder, fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            return SourcesConfig(sources: [SourceDeclaration(kind: .native, path: ".")])
        }
        let config: SourcesConfig
        do {
            config = try JSONDecoder().decode(SourcesConfig.self, from: data)
        } catch let DecodingError.dataCorrupted(ctx) {
            throw InputError(SourceLocation(file: path), "not valid JSON: \(ctx.underlyingError.map { "\($0)" } ?? ctx.debugDescription)")
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw InputError(SourceLocation(file: path, field: (ctx.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")),
                             "missing; each source needs \"kind\" (native, ekidata or n02) and \"path\"")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx) {
            throw InputError(SourceLocation(file: path, field: ctx.codingPath.map(\.stringValue).joined(separator: ".")), ctx.debugDescription)
        } catch {
            throw InputError(SourceLocation(file: path), "cannot read: \(error)")
        }
        if config.sources.isEmpty {
            throw InputError(SourceLocation(file: path, field: "sources"), "expected at least one source")
        }
        return config
    }

    /// The files each source reads, for digests and for make's dependencies.
    public func files(rawFolder: String) -> [String] {
        var out: [String] = []
        for s in sources {
            let p = Path.appending(rawFolder, s.path)
            switch s.kind {
            case .native: out += NativeFiles.all.map { Path.appending(p, $0) }
            case .ekidata: out += ["company.csv", "line.csv", "station.csv", "join.csv"].map { Path.appending(p, $0) }
            case .n02: out.append(p)
            }
        }
        return out.map(SourcesConfig.lexicallyNormalized)
    }
}

extension SourcesConfig {
    /// Drops "." segments and doubled slashes without touching the file system:
    /// Foundation's standardizingPath also resolves symbolic links, which
    /// would move a linked source folder outside raw/ in messages and digests.
    public static func lexicallyNormalized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").filter { $0 != "." }
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}

/// The native master's files (weights.csv belongs to Priority, not Ingest).
public enum NativeFiles {
    public static let all = ["operators.csv", "lines.csv", "stations.csv", "stations_lines.csv"]
}
