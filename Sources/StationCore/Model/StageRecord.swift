import FoundationEssentials
import Glibc

// Whether a stage must run again is decided by the content of what it reads,
// never by file times: a deleted fixes.csv or weights.csv leaves nothing newer
// behind, and a tracked file rewritten with the same bytes is no change. Each
// stage records, beside its output, every input by its role with its sha256
// ("absent" for a file that is not there, so deleting an input is a change),
// the options that shape its output, and the sha256 of what it wrote. A later
// run, by `stationdb publish` (what make runs) or a stage by hand, reads the
// same record, so the two always agree. A file a stage wrote is known by its
// record's `written` while it has the stamp it was written with (FileDigests):
// the stamp only spares reading it again; a file whose stamp changed is hashed.

package struct StageRecord: Codable, Equatable, Sendable {
    /// "ingest", "priority" or "build".
    package var stage: String
    /// The stationdb that ran it (`stationdb --version`): a new one may write other bytes.
    package var stationdb: String
    /// Settings that shape the output, e.g. "seed".
    package var options: [String: String]
    /// Each input by its role ("registry", "source:ekidata/station.csv") -> sha256 or "absent".
    package var inputs: [String: String]
    /// Each output by its role ("staging") -> sha256 of the file as written.
    package var outputs: [String: String]
    /// Each file the stage wrote, by path, with its stamp: what a later run finds with the
    /// same stamp it takes for these bytes without reading it (`digest(of:known:)`).
    package var written: [String: WrittenFile]?
    /// What the run found that a later one needs without reading the outputs again
    /// (ingest: "review findings", the lint report's count of them).
    package var facts: [String: String]?

    package static let absent = "absent"

    package init(stage: String, options: [String: String] = [:], inputs: [String: String] = [:], outputs: [String: String] = [:]) {
        self.stage = stage; self.stationdb = StationDBVersion.description; self.options = options
        self.inputs = inputs; self.outputs = outputs
    }

    /// The sha256 of a file, or "absent" when there is none.
    package static func digest(of path: String) throws -> String {
        var digests = FileDigests()
        return try digests.digest(of: path)
    }

    /// Where the record of `output` is kept: beside it, as `<output>.inputs`.
    package static func path(for output: String) -> String { output + ".inputs" }

    /// The record of `output`, or nil when there is none (or it cannot be read: then the stage runs).
    package static func read(for output: String) -> StageRecord? {
        guard let bytes = try? Files.read(path(for: output)) else { return nil }
        return try? JSONDecoder().decode(StageRecord.self, from: Data(bytes))
    }

    /// Written after the outputs, so a record never vouches for an output that is not there.
    package func write(for output: String) throws {
        try AtomicFile.write(try jsonDocument(self), to: Self.path(for: output))
    }

    /// Whether the last run of this stage read exactly what `self` says it would read now,
    /// and every output it wrote (`outputs`: role -> path) is still as written.
    package func isCurrent(recorded: StageRecord?, outputs paths: [String: String], digests: inout FileDigests) -> Bool {
        guard let recorded, recorded.stage == stage, recorded.stationdb == stationdb, recorded.options == options,
              recorded.inputs == inputs, Set(recorded.outputs.keys) == Set(paths.keys) else { return false }
        digests.know(recorded.written ?? [:])
        // Taken for its record's word, each is checked when a reader of this run reads it.
        HeldInputs.current?.expect(recorded.written ?? [:])
        return paths.allSatisfy { role, path in (try? digests.digest(of: path)) == recorded.outputs[role] }
    }

    /// The inputs that differ from `recorded`'s, for the message saying why a stage runs.
    package func changes(since recorded: StageRecord?) -> [String] {
        guard let recorded else { return ["no record of an earlier run"] }
        var changes: [String] = []
        if recorded.stationdb != stationdb { changes.append("another stationdb binary") }
        for key in Set(options.keys).union(recorded.options.keys).sorted() where options[key] != recorded.options[key] {
            changes.append("\(key) \(recorded.options[key] ?? "unset") -> \(options[key] ?? "unset")")
        }
        for key in Set(inputs.keys).union(recorded.inputs.keys).sorted() where inputs[key] != recorded.inputs[key] {
            switch (recorded.inputs[key], inputs[key]) {
            case (nil, _), (Self.absent?, _): changes.append("\(key) added")
            case (_, nil), (_, Self.absent?): changes.append("\(key) removed")
            default: changes.append("\(key) changed")
            }
        }
        return changes.isEmpty ? ["an output was changed or removed"] : changes
    }
}

/// The digests a run has taken, by path, each with the stamp its file had then: each file
/// is read and hashed at most once a run, and one a stage wrote is known by the digest of
/// the bytes it wrote (its record's `written`) while it keeps the stamp it was written with.
package struct FileDigests: Sendable {
    private var known: [String: WrittenFile] = [:]

    package init() {}

    /// Files whose digests are known without reading them (a record's, latest.json as read).
    package mutating func know(_ files: [String: WrittenFile]) {
        known.merge(files) { _, new in new }
    }

    /// The sha256 of the file at `path`, or "absent" when there is none.
    package mutating func digest(of path: String) throws -> String {
        guard let stamp = WrittenFile.stamp(of: path) else { return StageRecord.absent }
        if let file = known[path], file.stamp == stamp { return file.sha256 }
        // In a run, the bytes hashed are the run's (HeldInputs: kept, or known by this digest).
        let sha256 = HeldInputs.current != nil ? SHA256.hex(try HeldInputs.read(path)) : try SHA256.hex(fileAt: path)
        known[path] = WrittenFile(sha256: sha256, stamp: stamp)
        return sha256
    }
}

/// Which stationdb this is: `stationdb --version`, and the `stationdb` of every
/// stage record. The build ID is the digest the linker stamps into the binary,
/// so a rebuilt stationdb that may write other bytes redoes the stages it ran,
/// while the same binary, wherever it lies, is the same stationdb.
package enum StationDBVersion {
    package static let number = "1.5.0"

    package static var description: String {
        "stationdb \(number): bundles as in docs/bundle.md (the 4 tables the clients read and renumbered_stations, user_version = bundle version), staging format \(StagingFile.format), ELF build ID \(buildID)"
    }

    /// The GNU build ID of the running program, in hex, read from its ELF notes ("unknown" without one).
    package static let buildID: String = {
        let fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return "unknown" }
        defer { close(fd) }
        func read<T>(_ type: T.Type, at offset: Int) -> T? {
            let value = UnsafeMutablePointer<T>.allocate(capacity: 1)
            defer { value.deallocate() }
            return pread(fd, value, MemoryLayout<T>.size, off_t(offset)) == MemoryLayout<T>.size ? value.pointee : nil
        }
        guard let elf = read(Elf64_Ehdr.self, at: 0) else { return "unknown" }
        for i in 0..<Int(elf.e_phnum) {
            guard let segment = read(Elf64_Phdr.self, at: Int(elf.e_phoff) + i * Int(elf.e_phentsize)), segment.p_type == PT_NOTE else { continue }
            var notes = [UInt8](repeating: 0, count: Int(segment.p_filesz))
            guard pread(fd, &notes, notes.count, off_t(segment.p_offset)) == notes.count else { continue }
            // Each note: name size, description size, type (4 bytes each), then name and description, each padded to 4 bytes.
            func word(_ at: Int) -> Int { notes[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | Int($1) } }
            var at = 0
            while at + 12 <= notes.count {
                let nameSize = word(at), size = word(at + 4), description = at + 12 + (nameSize + 3) & ~3
                guard description + size <= notes.count else { break }
                if word(at + 8) == NT_GNU_BUILD_ID {
                    return notes[description..<(description + size)].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                }
                at = description + (size + 3) & ~3
            }
        }
        return "unknown"
    }()
}
