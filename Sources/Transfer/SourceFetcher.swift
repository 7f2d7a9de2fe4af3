import FoundationEssentials
import Glibc
import StationIO
import StationModel

/// One file of a source: where it comes from and where it lives under raw/.
public struct RemoteFile: Sendable, Hashable {
    public var url: String
    public var path: String

    public init(url: String, path: String) { self.url = url; self.path = path }
}

/// What `stationdb fetch` remembers beside each file (`<file>.etag`): the
/// validators for the next conditional GET, and the digest of what it wrote.
public struct FetchedFileState: Codable, Equatable, Sendable {
    public var url: String
    public var etag: String?
    public var lastModified: String?
    public var sha256: String
    public var bytes: Int

    enum CodingKeys: String, CodingKey {
        case url, etag, lastModified = "last_modified", sha256, bytes
    }

    public static let suffix = ".etag"

    public static func path(for file: String) -> String { file + suffix }

    /// The state of `file`, when it is still the file the state describes;
    /// otherwise nil, so the next GET is unconditional.
    public static func load(for file: String, url: String) -> FetchedFileState? {
        guard let bytes = try? Files.read(path(for: file)),
              let state = try? JSONDecoder().decode(FetchedFileState.self, from: Data(bytes)),
              state.url == url, Files.size(of: file) == state.bytes
        else { return nil }
        return state
    }

    func save(for file: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try AtomicFile.write([UInt8](try encoder.encode(self)) + [0x0A], to: FetchedFileState.path(for: file))
    }
}

public struct FetchReport: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// The server said 304, or sent the same bytes again.
        case unchanged
        case downloaded(bytes: Int, sha256: String)
    }

    public var file: RemoteFile
    public var outcome: Outcome
}

/// Downloads the files of one source and replaces them only when every one of
/// them arrived whole: a source is never left half old, half new.
public final class SourceFetcher {
    public let http: HTTPClient

    public init(http: HTTPClient) { self.http = http }

    public func fetch(_ files: [RemoteFile]) throws -> [FetchReport] {
        var staged: [(file: RemoteFile, temporary: String, state: FetchedFileState)] = []
        var reports: [FetchReport] = []
        var scratch: [String] = []
        var createdFolders: [String] = []
        var committed = false
        defer {
            for path in scratch { unlink(path) }
            // A failed first fetch leaves no empty folder behind (rmdir removes only empty ones).
            if !committed { for folder in createdFolders.reversed() { rmdir(folder) } }
        }

        for file in files {
            let folder = parentFolder(of: file.path)
            if !folder.isEmpty && !Files.exists(folder) {
                try Files.createFolder(folder)
                createdFolders.append(folder)
            }
            let previous = FetchedFileState.load(for: file.path, url: file.url)
            let final = AtomicFile.temporaryPath(for: file.path)
            let part = final + ".part"
            scratch += [part, final]

            let conditional = previous.map { Validators(etag: $0.etag, lastModified: $0.lastModified) }
            let result = try http.download(file.url, to: part, conditional: conditional)
            if result.notModified {
                reports.append(FetchReport(file: file, outcome: .unchanged))
                continue
            }
            if result.bytes == 0 {
                throw TransferError.corrupt(what: file.url, reason: "the server sent an empty file; check the URL or try again later")
            }
            var bytes = result.bytes
            var sha256 = result.sha256
            // A .gz body for a file stored plain (a compressed N02 or CSV): gunzip it; zlib checks its CRC.
            if !file.path.hasSuffix(".gz") && Self.isGzip(part) {
                (bytes, sha256) = try TransferError.inflating(what: file.url) {
                    try Gzip.decompress(fileAt: part, to: final, maxBytes: http.options.maxBytes)
                }
            } else if rename(part, final) != 0 {
                throw TransferError.io("cannot rename \(part) to \(final): \(String(cString: strerror(errno)))")
            }
            let state = FetchedFileState(url: file.url, etag: result.validators.etag,
                                         lastModified: result.validators.lastModified, sha256: sha256, bytes: bytes)
            if let previous, previous.sha256 == sha256, previous.bytes == bytes {
                // Same bytes from a server that ignores validators: keep the file, refresh the state.
                try state.save(for: file.path)
                reports.append(FetchReport(file: file, outcome: .unchanged))
                continue
            }
            staged.append((file, final, state))
            reports.append(FetchReport(file: file, outcome: .downloaded(bytes: bytes, sha256: sha256)))
        }

        committed = true
        for item in staged {
            try AtomicFile.commit(temporary: item.temporary, to: item.file.path)
            try item.state.save(for: item.file.path)
        }
        return reports
    }

    /// Whether a file starts with gzip's magic bytes 1f 8b.
    static func isGzip(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var head: [UInt8] = [0, 0]
        return read(fd, &head, 2) == 2 && head == [0x1f, 0x8b]
    }
}
