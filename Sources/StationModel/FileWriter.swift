import CZlib
import Glibc

/// A file being written through `AtomicFile.write(to:)`: appends go to a
/// buffer that is written out a megabyte at a time. Appends do not throw; the
/// first failed write is kept and thrown when the file is finished, so row
/// loops stay free of `try`.
public struct FileWriter: ~Copyable {
    private var buffer = ByteWriter(capacity: flushAt + (64 << 10))
    private let fd: Int32
    private var failure: Int32?
    /// CRC-32 of the bytes written out so far, when asked for (`appendCRC32`).
    private var crc: uLong?
    private static let flushAt = 1 << 20

    init(fd: Int32, checksummed: Bool) {
        self.fd = fd
        crc = checksummed ? crc32(0, nil, 0) : nil
    }

    @inline(__always) public mutating func append(_ byte: UInt8) { buffer.append(byte); flushIfFull() }
    @inline(__always) public mutating func append(utf8 s: String) { buffer.append(utf8: s); flushIfFull() }
    @inline(__always) public mutating func append(decimal v: Int) { buffer.append(decimal: v); flushIfFull() }
    @inline(__always) public mutating func append(varint v: Int) { buffer.append(varint: v); flushIfFull() }

    /// Bytes of any size: a large run goes straight to the file, not through the buffer.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count < Self.flushAt {
            buffer.append(bytes)
            flushIfFull()
        } else {
            flush()
            write(bytes)
        }
    }

    public mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// The CRC-32 of every byte appended before it, 4 bytes little-endian
    /// (for a file given `checksummed: true`).
    public mutating func appendCRC32() {
        flush()
        let c = UInt32(truncatingIfNeeded: crc!)
        for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: c >> UInt32(shift))) }
    }

    @inline(__always) private mutating func flushIfFull() {
        if buffer.count >= Self.flushAt { flush() }
    }

    mutating func flush() {
        let (fd, crc) = (self.fd, self.crc)
        if failure == nil, buffer.count > 0 {
            (self.crc, failure) = buffer.withBytes { (Self.checksum(crc, $0), writeAll(fd, $0)) }
        }
        buffer.removeAll()
    }

    private mutating func write(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil, bytes.count > 0 else { return }
        crc = Self.checksum(crc, bytes)
        failure = writeAll(fd, bytes)
    }

    private static func checksum(_ crc: uLong?, _ bytes: UnsafeRawBufferPointer) -> uLong? {
        crc.map { crc32($0, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), uInt(bytes.count)) }
    }

    /// Writes what is buffered; the errno of the first failed write, if any.
    mutating func finish() -> Int32? {
        flush()
        return failure
    }
}

extension AtomicFile {
    /// Writes `path` through a temporary file beside it: `body` appends the
    /// contents, which are flushed to disk; then `beforeCommit` runs (e.g. writing
    /// a file that must be older than this one) and the file is renamed into
    /// place. A failure anywhere removes the temporary file and leaves `path` as it was.
    public static func write(to path: String, checksummed: Bool = false, beforeCommit: () throws -> Void = {},
                             _ body: (inout FileWriter) throws -> Void) throws {
        try createParent(of: path)
        let tmp = temporaryPath(for: path)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EnvironmentError("cannot write \(tmp): \(String(cString: strerror(errno)))") }
        var file = FileWriter(fd: fd, checksummed: checksummed)
        var bodyError: Error?
        do { try body(&file) } catch { bodyError = error }
        var failure = file.finish()
        // Flushed to disk before `beforeCommit`, which may wait for other work.
        if bodyError == nil, failure == nil, Glibc.fsync(fd) != 0, errno != EINVAL { failure = errno }
        let closeFailure = close(fd) == 0 ? nil : errno
        do {
            if let bodyError { throw bodyError }
            if let failure = failure ?? closeFailure {
                throw EnvironmentError("cannot write \(tmp): \(String(cString: strerror(failure)))")
            }
            try beforeCommit()
            try commit(temporary: tmp, to: path, alreadySynced: true)
        } catch {
            unlink(tmp)
            throw error
        }
    }
}
