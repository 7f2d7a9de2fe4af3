import FoundationEssentials
import Ingest
import Transfer
import StationIO

/// What `stationdb fetch` downloads for one source of raw/sources.json that has a url:
/// each file with its url and the format it must have. A source's files replace raw/'s
/// only together, and only once the source's reader reads them as one source.
public struct RemoteSource: Sendable {
    public var declaration: SourceDeclaration
    public var files: [RemoteFile]

    /// The url of each file of a source whose `url` is `base`:
    /// - n02: the url names the file itself;
    /// - native, ekidata: a base URL, the file names appended;
    /// - station_database: the root of the upstream's repository (or a mirror laid out as
    ///   it is), each file at its place there (`StationDatabaseReader.repositoryPaths`),
    ///   and the release's `latest_info.json` beside them, kept in raw/.
    public static func files(of source: SourceDeclaration, url base: String, rawFolder: String) -> [RemoteFile] {
        let paths = SourcesConfig(sources: [source]).files(rawFolder: rawFolder)
        if source.kind == .n02 { return paths.map { RemoteFile(url: base, path: $0, format: .n02) } }
        let root = base.hasSuffix("/") ? base : base + "/"
        var files = paths.map { path in
            let name = fileName(of: path)
            let remote = source.kind == .stationDatabase ? StationDatabaseReader.repositoryPaths[name]! : name
            return RemoteFile(url: root + remote, path: path, format: .csv(requiredColumns: source.kind.requiredColumns[name] ?? []))
        }
        if source.kind == .stationDatabase {
            let folder = SourcesConfig.lexicallyNormalized(joinPath(rawFolder, source.path))
            files.append(RemoteFile(url: root + StationDatabaseReader.releaseFile, path: joinPath(folder, StationDatabaseReader.releaseFile),
                                    format: .upstreamRelease))
        }
        return files
    }

    /// The sources of `config` that have a url. `upstream`, when given, is the url of every
    /// station_database source instead of its own: a mirror of the upstream's repository.
    public static func plan(_ config: SourcesConfig, rawFolder: String, upstream: String? = nil) throws -> [RemoteSource] {
        var out: [RemoteSource] = []
        var problems = DiagnosticCollector()
        for (index, source) in config.sources.enumerated() {
            guard let url = source.kind == .stationDatabase ? upstream ?? source.url : source.url else { continue }
            guard WebURL(url) != nil else {
                problems.add(SourceLocation(file: joinPath(rawFolder, SourcesConfig.fileName), field: "sources.\(index).url"), WebURL.problem(url))
                continue
            }
            out.append(RemoteSource(declaration: source, files: files(of: source, url: url, rawFolder: rawFolder)))
        }
        try problems.check()
        return out
    }

    /// Refuses a source folder (the staging folder of a fetch, with the files the server
    /// left unchanged beside the new ones) that its reader refuses: the files of a release
    /// must name each other's stations and lines, not only each have the right columns.
    /// An upstream release that would take raw/ back (UpstreamRelease) is refused too,
    /// unless `allowOlder`.
    public func check(folder: String, allowOlder: Bool = false) throws {
        guard declaration.kind != .n02 else { return }   // one file, read whole by its format's check
        do {
            _ = try declaration.kind.read(folder, label: declaration.path)
        } catch let error as InputError {
            // Named by the file the problem is in (register.csv's url, not the source's first file's).
            let named = error.diagnostics.first.map { fileName(of: $0.location.file) }
            let file = files.first { fileName(of: $0.path) == named } ?? files.first
            throw TransferError.badContent(url: file?.url ?? "", file: file?.path ?? declaration.path, reason: FileFormat.firstProblem(of: error))
        }
        guard declaration.kind == .stationDatabase, !allowOlder, let release = files.first(where: { $0.format == .upstreamRelease }) else { return }
        let source = parentFolder(of: release.path)
        if let problem = try UpstreamRelease(current: source, candidate: folder, label: source).problem() {
            throw InputError(SourceLocation(file: release.url), "\(problem). Fetching it would have the next make take every app back, "
                             + "so \(source) is left as it was; to take it all the same (the upstream withdrew a release), "
                             + "fetch with --allow-older-release (make fetch ALLOW_OLDER_RELEASE=1)")
        }
    }
}
