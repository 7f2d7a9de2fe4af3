import Foundation
import Glibc
import XCTest
import StationCore
import TestSupport

/// Paths, whole-file reads and writes, and the atomic writer behind the staging
/// file, the registry, weights, manifests and synth.
final class FilesTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws { folder = try temporaryFolder("FilesTests") }
    override func tearDownWithError() throws { Files.remove(folder) }

    private func path(_ name: String) -> String { joinPath(folder, name) }

    /// A run reads the bytes it hashed (issue 43): what it first read stays its view of the file,
    /// replaced or rewritten meanwhile (a change made during a run is the next run's), until the
    /// run writes the file itself; a link swapped into raw/, leading out of it, is refused by the
    /// descriptor read, never read; a file a stage's record vouches for, damaged in place with its
    /// stamp put back, is refused when read, and removed so the next run makes it again.
    func testARunReadsTheBytesItHashed() throws {
        let raw = path("raw"), outside = path("secret.csv"), file = raw + "/fixes.csv", built = path("weights.csv")
        try Files.createFolder(raw)
        try Files.write(Array("one\n".utf8), to: file)
        try Files.write(Array("SECRET\n".utf8), to: outside)
        let written = try AtomicFile.write(Array("s_id,weight\n1,11\n".utf8), to: built)   // as a stage wrote it, in an earlier run
        try HeldInputs.$current.withValue(HeldInputs(raw: raw)) {
            XCTAssertEqual(try HeldInputs.read(file), Array("one\n".utf8))
            try "two, longer\n".write(toFile: file, atomically: true, encoding: .utf8)   // replaced, by another program
            XCTAssertEqual(try Files.read(file), Array("one\n".utf8))
            var digest = ""
            try Files.forEachChunk(of: file) { digest = SHA256.hex(Array($0)) }
            XCTAssertEqual(digest, SHA256.hex(Array("one\n".utf8)))
            try AtomicFile.write(Array("three\n".utf8), to: file)                      // the run's own write
            XCTAssertEqual(try Files.read(file), Array("three\n".utf8))

            let swapped = raw + "/weights.csv"
            XCTAssertEqual(symlink(outside, swapped), 0)
            XCTAssertThrowsError(try Files.read(swapped)) { error in
                XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [SourceLocation(file: swapped)], "\(error)")
                XCTAssertFalse("\(error)".contains("SECRET"))
            }

            var before = stat()
            XCTAssertEqual(stat(built, &before), 0)
            let fd = open(built, O_WRONLY)
            let other = Array("s_id,weight\n1,12\n".utf8)
            XCTAssertEqual(other.withUnsafeBytes { Glibc.pwrite(fd, $0.baseAddress, $0.count, 0) }, other.count)
            close(fd)
            var times = [before.st_atim, before.st_mtim]
            XCTAssertEqual(utimensat(AT_FDCWD, built, &times, 0), 0)
            XCTAssertEqual(WrittenFile.stamp(of: built), written.stamp, "the stamp put back")
            HeldInputs.current?.expect([built: written])
            XCTAssertThrowsError(try Files.read(built)) { XCTAssertNotNil($0.station(.damaged), "\($0)") }
            XCTAssertFalse(Files.exists(built), "removed, for the next run to make again")
        }
    }

    func testPathPieces() {
        XCTAssertEqual(joinPath("a", "b.csv"), "a/b.csv")
        XCTAssertEqual(joinPath("a/", "b.csv"), "a/b.csv")
        XCTAssertEqual(joinPath("", "b.csv"), "b.csv")
        XCTAssertEqual(joinPath("a", ""), "a")
        XCTAssertEqual(joinPath("/", "x"), "/x")
        XCTAssertEqual(fileName(of: "a/b.csv"), "b.csv")
        XCTAssertEqual(fileName(of: "b.csv"), "b.csv")
        XCTAssertEqual(fileName(of: "/a/dist/"), "dist")
        XCTAssertEqual(fileName(of: "/"), "/")
        XCTAssertEqual(parentFolder(of: "a/b.csv"), "a")
        XCTAssertEqual(parentFolder(of: "/x/y/z"), "/x/y")
        XCTAssertEqual(parentFolder(of: "b.csv"), "")
        XCTAssertEqual(parentFolder(of: "/b.csv"), "/")
        XCTAssertEqual(parentFolder(of: "a/b/"), "a")
    }

    func testReadWriteAndExamine() throws {
        let p = path("f.bin")
        XCTAssertFalse(Files.exists(p))
        XCTAssertNil(Files.size(of: p))
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Files.write(bytes, to: p)
        XCTAssertTrue(Files.exists(p))
        XCTAssertFalse(Files.isFolder(p))
        XCTAssertTrue(Files.isFolder(folder))
        XCTAssertEqual(Files.size(of: p), bytes.count)
        XCTAssertEqual(try Files.read(p), bytes)
        // Read a piece at a time, the pieces are the file.
        var pieces: [UInt8] = [], calls = 0
        try Files.forEachChunk(of: p) { pieces += $0; calls += 1 }
        XCTAssertEqual(pieces, bytes)
        XCTAssertGreaterThan(calls, 1)
        try Files.write([], to: p)
        XCTAssertEqual(try Files.read(p), [])

        try Files.createFolder(path("x/y/z"))
        XCTAssertTrue(Files.isFolder(path("x/y/z")))
        XCTAssertEqual(Files.names(in: folder), ["f.bin", "x"])
        XCTAssertEqual(Files.names(in: path("missing")), [])
        Files.remove(path("x"))
        XCTAssertFalse(Files.exists(path("x")))

        XCTAssertThrowsError(try Files.read(path("missing"))) {
            // A path that names nothing is what was given: bad input (exit 2), as diff and verify say it.
            XCTAssertEqual($0.station(.badInput)?.diagnostics, [Diagnostic(SourceLocation(file: self.path("missing")), "no such file or folder")])
        }
        // A folder where a file belongs is the user's to fix: bad input (exit 2), not an I/O failure.
        XCTAssertThrowsError(try Files.read(folder)) {
            XCTAssertEqual($0.station(.badInput)?.description, "error: \(self.folder!): a folder, not a file; expected a file here")
        }
        XCTAssertThrowsError(try Files.write([1], to: path("no/such/folder/f"))) {
            XCTAssertTrue($0.station(.environment)?.message.hasPrefix("cannot write \(self.path("no/such/folder/f")): ") == true, "\($0)")
        }
    }

    /// Only a regular file is read. A FIFO blocked the read (its open waits for a writer)
    /// and /dev/zero never ends: either hung a publish holding dist/.lock. Both are refused,
    /// naming the file, before a byte is read, by every way a file is read (whole, in
    /// pieces, for a digest or a stage record).
    func testOnlyRegularFilesAreRead() throws {
        let fifo = path("stations.csv")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        XCTAssertEqual(symlink("/dev/zero", path("station.csv")), 0)
        let zero = path("station.csv")
        // Turns a blocked open into an empty read (and a failed assertion) instead of a hang.
        let unblocker = FIFOUnblocker(fifo)
        defer { unblocker.stop() }
        func refusal(_ body: () throws -> Any) -> String {
            do {
                _ = try body()
                return "no error"
            } catch let error as StationError where error.kind == .badInput {
                return error.description
            } catch {
                return "\(error)"
            }
        }
        let isFIFO = "a FIFO (named pipe), not a file; expected a file here"
        XCTAssertEqual(refusal { try Files.read(fifo) }, "error: \(fifo): \(isFIFO)")
        XCTAssertEqual(refusal { try Files.read(fifo, label: "raw/stations.csv") }, "error: raw/stations.csv: \(isFIFO)")
        XCTAssertEqual(refusal { try CSVReader.read(path: fifo, displayName: "raw/stations.csv") }, "error: raw/stations.csv: \(isFIFO)")
        XCTAssertEqual(refusal { try Files.forEachChunk(of: fifo) { _ in } }, "error: \(fifo): \(isFIFO)")
        XCTAssertEqual(refusal { try SHA256.hex(fileAt: fifo) }, "error: \(fifo): \(isFIFO)")
        XCTAssertEqual(refusal { try StageRecord.digest(of: fifo) }, "error: \(fifo): \(isFIFO)")

        let isZero = "a character device (a link to /dev/zero), not a file; expected a file here"
        XCTAssertEqual(refusal { try Files.read(zero, label: "raw/ekidata/station.csv") }, "error: raw/ekidata/station.csv: \(isZero)")
        // Counted, so an endless read fails the test instead of running forever.
        var read = 0
        XCTAssertEqual(refusal {
            try Files.forEachChunk(of: zero) { read += $0.count; if read > 1 << 24 { throw StationError.environment("read 16 MiB of an endless file") } }
        }, "error: \(zero): \(isZero)")
        XCTAssertEqual(read, 0, "not a byte is read")
        XCTAssertEqual(refusal { try StageRecord.digest(of: "/dev/null") }, "error: /dev/null: a character device, not a file; expected a file here")
        XCTAssertFalse(unblocker.freedAReader, "refused at once, not after a writer came")

        // A regular file is read as before, and a missing one is still an I/O error.
        try Files.write(Array("s_id,weight\n".utf8), to: path("weights.csv"))
        XCTAssertEqual(try Files.read(path("weights.csv")), Array("s_id,weight\n".utf8))
        XCTAssertEqual(try StageRecord.digest(of: path("absent.csv")), StageRecord.absent)
    }

    /// A file larger than any real source is refused before it is read: a 2 GB file (or
    /// one growing without end) would be read whole into memory while the dist is locked.
    /// The limit is far above real masters and is raised by STATIONDB_MAX_SOURCE_BYTES.
    func testReadingHasASizeLimit() throws {
        XCTAssertNil(ProcessInfo.processInfo.environment[Files.readLimitSetting], "the test reads the default")
        XCTAssertEqual(Files.readLimitSetting, "STATIONDB_MAX_SOURCE_BYTES")
        XCTAssertEqual(try Files.readLimit(), 2_000_000_000)
        XCTAssertEqual(try Files.readLimit(setting: "3000000000"), 3_000_000_000)
        XCTAssertThrowsError(try Files.readLimit(setting: "2GB")) {
            XCTAssertEqual($0.station(.badInput)?.description,
                           "error: STATIONDB_MAX_SOURCE_BYTES: expected a whole number of bytes above 0, found '2GB'")
        }

        let small = path("small.csv")
        try Files.write([UInt8](repeating: 0x61, count: 20), to: small)
        XCTAssertEqual(try Files.read(small, limit: 20).count, 20)
        let over = "20 bytes, more than the limit of 19 bytes on a file stationdb reads; if the file is right, "
            + "raise the limit with the environment setting STATIONDB_MAX_SOURCE_BYTES=<bytes>"
        XCTAssertThrowsError(try Files.read(small, label: "raw/small.csv", limit: 19)) {
            XCTAssertEqual($0.station(.badInput)?.description, "error: raw/small.csv: \(over)")
        }
        XCTAssertThrowsError(try Files.forEachChunk(of: small, limit: 19) { _ in }) {
            XCTAssertEqual($0.station(.badInput)?.description, "error: \(small): \(over)")
        }

        // A sparse file just over the default: refused by its size, not read (which took seconds).
        let huge = path("huge.csv")
        let fd = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertEqual(ftruncate(fd, 2_000_000_001), 0)
        close(fd)
        // What this process read meanwhile, as the kernel counts it (not how long it took,
        // which a busy machine stretches): a few bytes, not 2 GB.
        let readBefore = try bytesReadByThisProcess()
        XCTAssertThrowsError(try StageRecord.digest(of: huge)) {
            XCTAssertTrue($0.station(.badInput)?.description.contains("2000000001 bytes, more than the limit of 2000000000 bytes") == true, "\($0)")
        }
        XCTAssertThrowsError(try Files.read(huge)) { XCTAssertTrue($0.station(.badInput) != nil, "\($0)") }
        XCTAssertLessThan(try bytesReadByThisProcess() - readBefore, 1 << 20, "the file was read")
    }

    /// A failure inside leaves the old file and no temporary one; large and small
    /// writes come out whole; a missing folder is created.
    func testAtomicWriterKeepsTheOldFileOnFailure() throws {
        let p = path("w.txt")
        XCTAssertEqual(AtomicFile.temporaryPath(for: p), path(".w.txt.tmp-\(getpid())"))
        XCTAssertEqual(AtomicFile.temporaryPath(for: "w.txt"), ".w.txt.tmp-\(getpid())")
        try AtomicFile.write("old\n", to: p)
        XCTAssertEqual(try Files.read(p), Array("old\n".utf8))
        XCTAssertEqual(Files.names(in: folder), ["w.txt"])

        // The temporary file cannot be written (a folder holds its name).
        try Files.createFolder(AtomicFile.temporaryPath(for: p))
        XCTAssertThrowsError(try AtomicFile.write("new", to: p)) { error in
            XCTAssertTrue(error.station(.environment)?.message.hasPrefix("cannot write \(AtomicFile.temporaryPath(for: p))") == true, "\(error)")
        }
        XCTAssertEqual(try Files.read(p), Array("old\n".utf8))
        Files.remove(AtomicFile.temporaryPath(for: p))

        // A folder holds the final name: refused before anything is written (the rename
        // would replace an empty one), and no temporary file is left.
        let d = path("d")
        try Files.createFolder(joinPath(d, "inside"))
        XCTAssertThrowsError(try AtomicFile.write("new", to: d)) { XCTAssertTrue($0.station(.badInput) != nil, "\($0)") }
        XCTAssertEqual(Files.names(in: folder), ["d", "w.txt"])
        XCTAssertTrue(Files.isFolder(joinPath(d, "inside")))

        // A commit of a temporary file that is not there changes nothing.
        XCTAssertThrowsError(try AtomicFile.commit(temporary: path("never-written"), to: p)) { XCTAssertNotNil($0.station(.environment), "\($0)") }
        XCTAssertEqual(try Files.read(p), Array("old\n".utf8))

        // A commit of a temporary file written by the caller replaces the file.
        try Files.write(Array("committed".utf8), to: AtomicFile.temporaryPath(for: p))
        try AtomicFile.commit(temporary: AtomicFile.temporaryPath(for: p), to: p)
        XCTAssertEqual(try Files.read(p), Array("committed".utf8))
        XCTAssertEqual(Files.names(in: folder), ["d", "w.txt"])

        let big = [UInt8](repeating: 7, count: 3 << 20)
        try AtomicFile.write(Array("-42".utf8) + big + Array("end".utf8), to: p)
        XCTAssertEqual(try Files.read(p), Array("-42".utf8) + big + Array("end".utf8))
        try AtomicFile.write(Data([1, 2, 3]), to: p)
        XCTAssertEqual(try Files.read(p), [1, 2, 3])

        // Into a folder that does not exist yet.
        try AtomicFile.write("deep", to: path("new/folder/f.txt"))
        XCTAssertEqual(try Files.read(path("new/folder/f.txt")), Array("deep".utf8))
        XCTAssertEqual(Files.names(in: path("new/folder")), ["f.txt"])
    }
}

/// Messages and the numbers in them.
final class DiagnosticsTests: XCTestCase {
    func testLocationsAndErrorsPrintFileLineAndField() {
        XCTAssertEqual(SourceLocation(file: "raw/a.csv", line: 3, field: "name").description, "raw/a.csv:3: name")
        XCTAssertEqual(SourceLocation(file: "raw/a.csv", line: 3).description, "raw/a.csv:3")
        XCTAssertEqual(SourceLocation(file: "raw/a.csv", field: "x").description, "raw/a.csv: x")
        let d = Diagnostic(SourceLocation(file: "f", line: 1), "bad")
        XCTAssertEqual(d.description, "f:1: bad")
        XCTAssertEqual(StationError.badInput([d, d], truncated: true).description, "error: f:1: bad\nerror: f:1: bad\nerror: too many problems; stopped after 2")
        XCTAssertEqual(StationError.environment("disk full").description, "error: disk full")
        XCTAssertEqual(StationError.refused(["a", "b"]).description, "refused: a\nrefused: b")
        XCTAssertEqual([ExitStatus.success, .differences, .badInput, .environment, .guardRefused].map(\.rawValue), [0, 1, 2, 3, 4])
    }

    func testCollectorStopsAtItsLimit() throws {
        var problems = DiagnosticCollector(limit: 2)
        XCTAssertTrue(problems.isEmpty)
        XCTAssertNoThrow(try problems.check())
        for k in 1...3 { problems.add(SourceLocation(file: "f", line: k), "p\(k)") }
        XCTAssertTrue(problems.isFull)
        XCTAssertEqual(problems.diagnostics.map(\.description), ["f:1: p1", "f:2: p2"])
        XCTAssertThrowsError(try problems.check()) { error in
            XCTAssertEqual(error.station(.badInput)?.truncated, true)
            XCTAssertEqual(error.station(.badInput)?.diagnostics.count, 2)
        }
        var other = DiagnosticCollector()
        other.add(StationError.badInput(SourceLocation(file: "g"), "q"))
        XCTAssertEqual(other.diagnostics.map(\.description), ["g: q"])
        XCTAssertFalse(other.isFull)
    }

    func testShownCutsLongValues() {
        XCTAssertEqual(shown("short"), "short")
        let long = String(repeating: "駅", count: 100)
        XCTAssertEqual(shown(long), String(repeating: "駅", count: 80) + "... (300 bytes)")
        XCTAssertEqual(shown("abcdef", limit: 3), "abc... (6 bytes)")
    }

    func testFixedPrintsAsPrintfDoes() {
        XCTAssertEqual(fixed(1.5, decimals: 0), "2")
        XCTAssertEqual(fixed(2.5, decimals: 0), "2")
        XCTAssertEqual(fixed(0.125, decimals: 2), "0.12")
        XCTAssertEqual(fixed(-0.0001, decimals: 3), "-0.000")
        XCTAssertEqual(fixed(3, decimals: 2, alwaysSigned: true), "+3.00")
        XCTAssertEqual(fixed(-3.14159, decimals: 4, alwaysSigned: true), "-3.1416")
        XCTAssertEqual(fixed(0, decimals: 1, alwaysSigned: true), "+0.0")
        XCTAssertEqual(fixed(123_456_789.25, decimals: 1), "123456789.2")
        XCTAssertEqual(fixed(1e20, decimals: 2), "100000000000000000000.00")
        XCTAssertEqual(fixed(.infinity, decimals: 2), "inf")
    }
}
