import FoundationEssentials
import Glibc
import StationCore

/// One file of a source: where it comes from, where it lives under raw/, and
/// what it must be to replace the file there.
package struct RemoteFile: Sendable, Hashable {
    package var url: String
    package var path: String
    package var format: FileFormat

    package init(url: String, path: String, format: FileFormat) {
        self.url = url; self.path = path; self.format = format
    }
}

/// What `stationdb fetch` remembers beside each file (`<file>.etag`): the
/// validators for the next conditional GET, and the digest of what it wrote.
package struct FetchedFileState: Codable, Equatable, Sendable {
    package var url: String
    package var etag: String?
    package var lastModified: String?
    package var sha256: String
    package var bytes: Int

    package init(url: String, etag: String?, lastModified: String?, sha256: String, bytes: Int) {
        self.url = url; self.etag = etag; self.lastModified = lastModified; self.sha256 = sha256; self.bytes = bytes
    }

    enum CodingKeys: String, CodingKey {
        case url, etag, lastModified = "last_modified", sha256, bytes
    }

    package static let suffix = ".etag"

    package static func path(for file: String) -> String { file + suffix }

    /// The state of `file`, when it is still the file the state describes;
    /// otherwise nil, so the next GET is unconditional.
    package static func load(for file: String, url: String) -> FetchedFileState? {
        guard let bytes = try? Files.read(path(for: file)),
              let state = try? JSONDecoder().decode(FetchedFileState.self, from: Data(bytes)),
              state.url == url, Files.size(of: file) == state.bytes
        else { return nil }
        return state
    }

    package func save(for file: String) throws {
        try AtomicFile.write(try jsonDocument(self), to: FetchedFileState.path(for: file))
    }
}

package struct FetchReport: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// The server said 304, or sent the same bytes again.
        case unchanged
        case downloaded(bytes: Int, sha256: String)
    }

    package var file: RemoteFile
    package var outcome: Outcome
}

/// Downloads the files of one source, checks each as its source's format, and
/// replaces them all together or not at all.
///
/// A kill at any moment leaves the source all old or all new:
/// 1. each new file, and its `.etag` state, is downloaded, checked and flushed
///    in a staging folder beside the source's files, `.fetch-<pid>/`;
/// 2. the names to move are written to `.fetch-<pid>/journal`, which appears
///    whole or not at all (written beside, flushed, renamed);
/// 3. each named file is renamed over the old one, then the journal and the
///    staging folder are removed.
/// A kill before the journal exists leaves the old files and a staging folder
/// that the next fetch removes. A kill after it leaves the journal, and the
/// next fetch replays it before anything else: a name whose staged file is
/// still there is a rename still to do. Until then the source may be half
/// old, half new, and ingest refuses it (FetchJournal).
package final class SourceFetcher {
    package let http: HTTPClient
    static let journalName = FetchJournal.journalName
    static let stagingPrefix = FetchJournal.stagingPrefix

    package init(http: HTTPClient) { self.http = http }

    /// Fetches the files of one source; they must all live in one folder. `check`, when
    /// given, sees the source whole before any file is replaced: a folder holding each new
    /// file and a copy of each unchanged one.
    package func fetch(_ files: [RemoteFile], checkSource: ((String) throws -> Void)? = nil) throws -> [FetchReport] {
        guard let first = files.first else { return [] }
        let parent = parentFolder(of: first.path)
        precondition(files.allSatisfy { parentFolder(of: $0.path) == parent }, "the files of one source live in one folder")
        let folder = parent.isEmpty ? "." : parent

        // A failed first fetch leaves no empty folder behind (rmdir removes only empty ones).
        let createdFolder = !Files.exists(folder)
        try Files.createFolder(folder)
        try Self.finishEarlierFetches(in: folder, names: files.map { fileName(of: $0.path) })

        let staging = joinPath(folder, Self.stagingPrefix + "\(getpid())")
        var journaled = false
        defer {
            // Once the journal exists, only its replay may remove the staging folder.
            if !journaled { Files.remove(staging) }
            if !journaled && createdFolder { rmdir(folder) }
        }
        try Files.createFolder(staging)

        var reports: [FetchReport] = []
        var newFiles: [String] = []
        var states: [String] = []
        for file in files {
            let name = fileName(of: file.path)
            let staged = joinPath(staging, name)
            let previous = FetchedFileState.load(for: file.path, url: file.url)
            let conditional = previous.map { Validators(etag: $0.etag, lastModified: $0.lastModified) }
            let part = staged + ".part"
            let result = try http.download(file.url, to: part, conditional: conditional, limit: file.format == .upstreamRelease ? TransferFailure.documentLimit : nil)
            if result.notModified {
                // Unchanged only from the copy raw/ holds and asked about: a 304 to anything else
                // (a broken cache or mirror) leaves nothing to keep.
                guard conditional != nil, Files.exists(file.path) else {
                    throw StationError(.badContent(url: file.url, file: file.path, reason: "the server answered 304 Not Modified, "
                                                   + "but \(Files.exists(file.path) ? "it was not asked about a copy" : "raw/ has no copy of it to keep")"))
                }
                reports.append(FetchReport(file: file, outcome: .unchanged))
                continue
            }
            if result.bytes == 0 {
                throw StationError(.corrupt(what: file.url, reason: "the server sent an empty file; check the URL or try again later"))
            }
            var bytes = result.bytes
            var sha256 = result.sha256
            // A gzip body (a compressed N02 or CSV) is stored inflated; zlib checks its CRC.
            // Its trailer's size caps the inflate, but only under a limit below 4 GiB,
            // where the size modulo 4 GiB is the size.
            if Self.isGzip(part) {
                let declared = http.options.maxBytes < 1 << 32 ? Gzip.declaredSize(ofFileAt: part) : nil
                (bytes, sha256) = try http.inflate(part, to: staged, what: file.url, declared: declared, by: "its gzip trailer")
                unlink(part)
            } else if rename(part, staged) != 0 {
                throw StationError.environment("cannot rename \(part) to \(staged): \(systemError())")
            }
            try check(staged, as: file)

            let state = FetchedFileState(url: file.url, etag: result.validators.etag,
                                         lastModified: result.validators.lastModified, sha256: sha256, bytes: bytes)
            try state.save(for: staged)
            states.append(name + FetchedFileState.suffix)
            // Same bytes from a server that ignores validators, or the very bytes raw/ holds
            // without a state of their own (a fresh clone: the .etag files are not committed):
            // keep the file, refresh its state.
            let same = previous.map { $0.sha256 == sha256 && $0.bytes == bytes }
                ?? (Files.size(of: file.path) == bytes && (try? SHA256.hex(fileAt: file.path)) == sha256)
            if same {
                reports.append(FetchReport(file: file, outcome: .unchanged))
                continue
            }
            try Files.sync(staged)
            newFiles.append(name)
            reports.append(FetchReport(file: file, outcome: .downloaded(bytes: bytes, sha256: sha256)))
        }
        if states.isEmpty { return reports }
        if let checkSource, !newFiles.isEmpty {
            for file in files where !newFiles.contains(fileName(of: file.path)) && Files.exists(file.path) {
                try Files.write(try Files.read(file.path), to: joinPath(staging, fileName(of: file.path)))
            }
            try checkSource(staging)
        }

        // Every rename must be able to succeed before the first one is made.
        for name in newFiles + states {
            let destination = joinPath(folder, name)
            if Files.notPlain(destination) != nil { throw StationError(.notAFile(path: destination)) }
        }
        let journal = (newFiles + states).map { $0 + "\n" }.joined()
        try AtomicFile.write(journal, to: joinPath(staging, Self.journalName))
        journaled = true
        try Self.replayJournal(of: staging, into: folder)
        return reports
    }

    /// Refuses a staged file that its source's reader would refuse.
    private func check(_ staged: String, as file: RemoteFile) throws {
        if let problem = try file.format.problem(withFileAt: staged, name: file.path) {
            throw StationError(.badContent(url: file.url, file: file.path, reason: problem))
        }
    }

    /// Moves every file the journal in `staging` names into `folder`, then
    /// removes the journal and the staging folder. A name whose staged file is
    /// gone was moved by an earlier, interrupted replay.
    static func replayJournal(of staging: String, into folder: String) throws {
        let journal = joinPath(staging, journalName)
        let text = try Files.read(journal)
        let names = String(decoding: text, as: UTF8.self).split(separator: "\n").map(String.init)
        for name in names where !name.contains("/") {
            let from = joinPath(staging, name)
            guard Files.exists(from) else { continue }
            let to = joinPath(folder, name)
            if rename(from, to) != 0 {
                throw StationError(.partlyReplaced("cannot rename \(from) to \(to): \(systemError())"))
            }
        }
        try Files.sync(folder)
        unlink(journal)
        Files.remove(staging)
    }

    /// Completes or removes what killed fetches left in `folder`: a staging
    /// folder with a journal is replayed (its files were all checked), one
    /// without is removed, and so are the temporary files that earlier versions
    /// of fetch made beside each file (`.<name>.tmp-<pid>`, `.part`).
    static func finishEarlierFetches(in folder: String, names: [String]) throws {
        let temporaryPrefixes = names.flatMap { [".\($0).tmp-", ".\($0)\(FetchedFileState.suffix).tmp-"] }
        for entry in Files.names(in: folder) {
            let path = joinPath(folder, entry)
            if entry.hasPrefix(stagingPrefix) {
                guard let (pid, rest) = leadingProcessID(entry.dropFirst(stagingPrefix.count)), rest.isEmpty, isGone(pid) else { continue }
                if Files.exists(joinPath(path, journalName)) {
                    try replayJournal(of: path, into: folder)
                } else {
                    Files.remove(path)
                }
            } else if let prefix = temporaryPrefixes.first(where: { entry.hasPrefix($0) }) {
                guard let (pid, rest) = leadingProcessID(entry.dropFirst(prefix.count)), rest.isEmpty || rest == ".part", isGone(pid) else { continue }
                unlink(path)
            }
        }
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
