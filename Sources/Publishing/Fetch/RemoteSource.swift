import FoundationEssentials
import Ingest
import StationCore

/// What `stationdb fetch` downloads for one source of raw/sources.json that has a url:
/// each file with its url and the format it must have. A source's files replace raw/'s
/// only together, and only once the source's reader reads them as one source.
package struct RemoteSource: Sendable {
    package var declaration: SourceDeclaration
    package var files: [RemoteFile]

    /// The url of each file of a source whose `url` is `base`:
    /// - n02: the url names the file itself;
    /// - native, ekidata: a base URL, the file names appended;
    /// - station_database: the root of the upstream's repository (or a mirror laid out as
    ///   it is), each file at its place there (`StationDatabaseReader.repositoryPaths`),
    ///   and the release's `latest_info.json` beside them, kept in raw/.
    package static func files(of source: SourceDeclaration, url base: String, rawFolder: String) -> [RemoteFile] {
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
    package static func plan(_ config: SourcesConfig, rawFolder: String, upstream: String? = nil) throws -> [RemoteSource] {
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
    /// An upstream release that would take raw/ back (UpstreamRelease, against raw/'s release
    /// or else `published`, the one the published version was made from) is refused too,
    /// unless `allowOlder`; and one dated after tomorrow, which would stand above every real
    /// release after it, unless `allowFuture`.
    package func check(folder: String, published: [String: String]? = nil, allowOlder: Bool = false, allowFuture: Bool = false) throws {
        guard declaration.kind != .n02 else { return }   // one file, read whole by its format's check
        do {
            _ = try declaration.kind.read(folder, label: declaration.path)
        } catch let error as StationError where error.kind == .badInput {
            // Named by the file the problem is in (register.csv's url, not the source's first file's).
            let named = error.diagnostics.first.map { fileName(of: $0.location.file) }
            let file = files.first { fileName(of: $0.path) == named } ?? files.first
            throw StationError(.badContent(url: file?.url ?? "", file: file?.path ?? declaration.path, reason: FileFormat.firstProblem(of: error)))
        }
        guard declaration.kind == .stationDatabase, let release = files.first(where: { $0.format == .upstreamRelease }) else { return }
        let source = parentFolder(of: release.path)
        let upstream = UpstreamRelease(current: source, candidate: folder, label: source,
                                       published: published?[declaration.path].flatMap { Int($0.drop { $0 == "v" }) })
        let lastDay = UpstreamRelease.lastDay()
        if !allowFuture, let claimed = try upstream.claimed, claimed > lastDay {
            throw StationError.badInput(SourceLocation(file: release.url), "release \(claimed) is dated after tomorrow (\(lastDay), UTC): taken, it would "
                             + "stand above every real release after it, each then refused as older. \(source) is left as it was; if the date is "
                             + "right, fetch with --allow-future-release (make fetch ALLOW_FUTURE_RELEASE=1)")
        }
        guard !allowOlder, let problem = try upstream.problem() else { return }
        throw StationError.badInput(SourceLocation(file: release.url), "\(problem). Fetching it could have the next make take every app back, "
                         + "so \(source) is left as it was; to take it all the same (the upstream withdrew a release), "
                         + "fetch with --allow-older-release (make fetch ALLOW_OLDER_RELEASE=1)")
    }
}

/// What `stationdb fetch` tells as it goes, source by source: each value a test can
/// match, and the sentence the command says for it.
package enum FetchEvent: Event, Equatable {
    /// No source of sources.json has a url.
    case nothingToFetch(sources: String)
    case unchanged(file: String)
    case downloaded(file: String, bytes: Int, sha256: String)
    /// The upstream release a station_database source holds now, and the one it held before.
    case release(SourceRelease)
    /// The source was left as it was (its failure is said before).
    case leftAsItWas(source: String, kind: String)
    /// A failure, in the words of the error that says it.
    case failed(String)

    package var description: String {
        switch self {
        case .nothingToFetch(let sources): "fetch: no source in \(sources) has a url; nothing to fetch"
        case .unchanged(let file): "fetch: \(file): unchanged"
        case .downloaded(let file, let bytes, let sha256): "fetch: \(file): \(bytes) bytes, sha256 \(sha256)"
        case .release(let release): "fetch: \(release.source): upstream release \(release.transition)"
        case .leftAsItWas(let source, let kind): "fetch: \(source) (\(kind)) left as it was"
        case .failed(let message): message
        }
    }
}

extension RemoteSource {
    /// The upstream release raw/ holds for this source (station_database's latest_info.json), if it names one.
    package var heldRelease: String? {
        guard let file = files.first(where: { $0.format == .upstreamRelease }), Files.exists(file.path),
              let version = try? StationDatabaseReader.release(of: Files.read(file.path)) else { return nil }
        return SourceRelease.name(version)
    }

    /// `stationdb fetch`: every source of `raw`/sources.json that has a url, each told as it
    /// goes (FetchEvent); a source that fails is left as it was and the others are still
    /// fetched. `published`: the releases the published version was made from (its latest.json's).
    /// Throws a StationError with the worst status when one failed.
    package static func fetchAll(raw: String, upstream: String?, published: [String: String]? = nil, allowOlder: Bool, allowFuture: Bool = false,
                                 http: HTTPClient) throws {
        let config = try SourcesConfig.load(rawFolder: raw)
        let remote = try plan(config, rawFolder: raw, upstream: upstream)
        if remote.isEmpty { return Events.send(FetchEvent.nothingToFetch(sources: joinPath(raw, SourcesConfig.fileName))) }
        let fetcher = SourceFetcher(http: http)
        var worst: StationError.Kind?, failed: [String] = []
        for source in remote {
            let before = source.heldRelease
            do {
                let reports = try fetcher.fetch(source.files) { try source.check(folder: $0, published: published, allowOlder: allowOlder, allowFuture: allowFuture) }
                for report in reports {
                    switch report.outcome {
                    case .unchanged: Events.send(FetchEvent.unchanged(file: report.file.path))
                    case .downloaded(let bytes, let sha256): Events.send(FetchEvent.downloaded(file: report.file.path, bytes: bytes, sha256: sha256))
                    }
                }
                if let now = source.heldRelease {
                    Events.send(FetchEvent.release(SourceRelease(source: source.declaration.path, previous: before, current: now)))
                }
            } catch let error as StationError {
                Events.send(FetchEvent.failed("\(error)"))
                if case .partlyReplaced? = error.transfer {} else {
                    Events.send(FetchEvent.leftAsItWas(source: source.declaration.path, kind: source.declaration.kind.rawValue))
                }
                failed.append(source.declaration.path)
                if worst.map({ error.exitStatus.rawValue > $0.exitStatus.rawValue }) ?? true { worst = error.kind }
            }
        }
        if let worst {
            throw StationError(worst, reasons: ["not fetched: \(failed.joined(separator: ", ")) (each said above); the others were"], said: true)
        }
    }
}
