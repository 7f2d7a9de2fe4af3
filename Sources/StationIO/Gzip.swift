import CZlib
import Glibc

/// Reproducible gzip through zlib: zlib writes the header with mtime 0, no file
/// name and the Unix OS byte, so the same bytes in give the same bytes out.
public enum Gzip {
    /// zlib's default, level 6: every phone downloads this file once per version, and
    /// on the national bundle (2.0 MB) it is 782 KB against 847 KB at level 1, for
    /// about 0.1 s more once a night. Level 9 saves another 0.1% for six times the time.
    public static let level: Int32 = 6

    public enum Failure: Error, Sendable {
        /// Not a valid gzip (or zlib) stream, with zlib's reason.
        case damaged(String)
        /// The stream ends before its end marker.
        case truncated
        /// Inflating would pass the given limit.
        case tooLarge(limit: Int)
    }

    /// Compresses a file into another; returns the size and sha256 of the gzip written.
    public static func compress(fileAt source: String, to destination: String) throws -> (bytes: Int, sha256: String) {
        var stream = z_stream()
        // windowBits 15 + 16: deflate with a gzip wrapper.
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw EnvironmentError("zlib could not start compressing")
        }
        defer { deflateEnd(&stream) }
        let output = try OutputFile(destination)
        var out = [UInt8](repeating: 0, count: 1 << 16)
        func pump(_ flush: Int32) throws {
            repeat {
                let produced = out.withUnsafeMutableBufferPointer { buffer -> Int in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    _ = deflate(&stream, flush)
                    return buffer.count - Int(stream.avail_out)
                }
                try output.append(out[..<produced])
            } while stream.avail_out == 0
        }
        try Files.forEachChunk(of: source) { chunk in
            stream.next_in = UnsafeMutablePointer(mutating: chunk.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(chunk.count)
            try pump(Z_NO_FLUSH)
        }
        try pump(Z_FINISH)
        return try output.close()
    }

    /// The size a gzip file declares for what it inflates to: the ISIZE of its trailer
    /// (RFC 1952), which is modulo 4 GiB and, in a file of several members, the last
    /// member's alone (as `gzip -l` reads it); nil when the file is too short to have one.
    public static func declaredSize(ofFileAt path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { Glibc.close(fd) }
        var trailer: [UInt8] = [0, 0, 0, 0]
        let end = lseek(fd, 0, SEEK_END)
        guard end >= 18, pread(fd, &trailer, 4, end - 4) == 4 else { return nil }
        return trailer.reversed().reduce(0) { $0 << 8 | Int($1) }
    }

    /// Inflates a gzip (or zlib) file, several members in a row included, into
    /// `destination` (or only counts and hashes it when nil); returns the size and
    /// sha256 of the inflated bytes. Stops at `maxBytes` whatever the file claims.
    public static func decompress(fileAt source: String, to destination: String?, maxBytes: Int) throws -> (bytes: Int, sha256: String) {
        var stream = z_stream()
        // windowBits 15 + 32: a gzip or zlib wrapper, told by its header.
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw EnvironmentError("zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        let output = try destination.map(OutputFile.init)
        let hasher = SHA256Hasher()
        var written = 0, ended = false, sawInput = false
        var out = [UInt8](repeating: 0, count: 1 << 16)
        try Files.forEachChunk(of: source) { chunk in
            sawInput = true
            stream.next_in = UnsafeMutablePointer(mutating: chunk.bindMemory(to: Bytef.self).baseAddress)
            stream.avail_in = uInt(chunk.count)
            repeat {
                if ended {
                    // The next member of the file starts where the last one ended.
                    guard inflateReset(&stream) == Z_OK else { throw EnvironmentError("zlib could not restart") }
                    ended = false
                }
                let (rc, produced) = out.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let rc = inflate(&stream, Z_NO_FLUSH)
                    return (rc, buffer.count - Int(stream.avail_out))
                }
                if rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR {
                    throw Failure.damaged(stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)")
                }
                written += produced
                if written > maxBytes { throw Failure.tooLarge(limit: maxBytes) }
                out.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<produced])) }
                try output?.append(out[..<produced])
                if rc == Z_STREAM_END { ended = true }
                if rc == Z_BUF_ERROR { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
        }
        if !sawInput || !ended { throw Failure.truncated }
        _ = try output?.close()
        return (written, hasher.finalizeHex())
    }
}

/// A file written piece by piece, hashing what it writes.
final class OutputFile {
    let path: String
    private var fd: Int32
    private let hasher = SHA256Hasher()
    private var bytes = 0

    init(_ path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EnvironmentError("cannot write \(path): \(systemError())") }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func append(_ piece: ArraySlice<UInt8>) throws {
        try piece.withUnsafeBytes { raw in
            hasher.update(raw)
            if let failure = Files.writeAll(fd, raw) {
                throw EnvironmentError("cannot write \(path): \(String(cString: strerror(failure)))")
            }
        }
        bytes += piece.count
    }

    func close() throws -> (bytes: Int, sha256: String) {
        let rc = Glibc.close(fd)
        fd = -1
        if rc != 0 { throw EnvironmentError("cannot write \(path): \(systemError())") }
        return (bytes, hasher.finalizeHex())
    }
}
