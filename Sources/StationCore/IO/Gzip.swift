import CLibdeflate
import CZlib
import Glibc

/// The download's gzip, written whole by libdeflate; zlib inflates (the client,
/// the verifier, a fetched source). libdeflate writes one standard member (RFC 1952):
/// a header with no name and mtime 0 (XFL 2, OS 255 "unknown"), the deflate stream,
/// CRC-32 and ISIZE, so the same bytes and the same libdeflate (Debian 12's 1.14) give
/// the same gzip on every machine.
package enum Gzip {
    /// libdeflate's highest level, 12, whose output is the smallest: every phone downloads this file once per version,
    /// and nobody waits for a publish's gzip (the diff runs beside it). On the national
    /// bundle (bench/README.md) it is 0.918x of `gzip -6` and 0.996x of `zopfli --i15`
    /// (4.7 s) in 0.12 s; level 6 is 0.948x in 0.02 s, 9 is 0.943x, 10 and 11 are 0.2%
    /// and 0.04% larger than 12 in 0.07 s and 0.09 s.
    package static let level: Int32 = 12

    /// Why an inflate stopped: the cause of the StationError it throws (damaged).
    package enum Failure: Sendable, Equatable {
        /// Not a valid gzip (or zlib) stream, with zlib's reason.
        case damaged(String)
        /// The stream ends before its end marker.
        case truncated
        /// Inflating would pass the given limit.
        case tooLarge(limit: Int)
    }

    /// Compresses a file into another, in one piece (libdeflate compresses whole
    /// buffers: the file and its gzip are both in memory meanwhile); returns the size
    /// and sha256 of the gzip written.
    package static func compress(fileAt source: String, to destination: String) throws -> (bytes: Int, sha256: String) {
        let input = try Files.read(source)
        guard let compressor = libdeflate_alloc_compressor(level) else {
            throw StationError.environment("libdeflate could not start compressing")
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_gzip_compress_bound(compressor, input.count)
        // Not zeroed first: only the pages the gzip fills are ever touched.
        let gzip = try [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            count = input.withUnsafeBytes { libdeflate_gzip_compress(compressor, $0.baseAddress, $0.count, buffer.baseAddress, buffer.count) }
            if count == 0 { throw StationError.environment("libdeflate could not compress \(source)") }
        }
        try Files.write(gzip, to: destination)
        return (gzip.count, SHA256.hex(gzip))
    }

    /// The size a gzip file declares for what it inflates to: the ISIZE of its trailer
    /// (RFC 1952), which is modulo 4 GiB and, in a file of several members, the last
    /// member's alone (as `gzip -l` reads it); nil when the file is too short to have one.
    package static func declaredSize(ofFileAt path: String) -> Int? {
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
    package static func decompress(fileAt source: String, to destination: String?, maxBytes: Int) throws -> (bytes: Int, sha256: String) {
        var stream = z_stream()
        // windowBits 15 + 32: a gzip or zlib wrapper, told by its header.
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw StationError.environment("zlib could not start inflating")
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
                    guard inflateReset(&stream) == Z_OK else { throw StationError.environment("zlib could not restart") }
                    ended = false
                }
                let (rc, produced) = out.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(buffer.count)
                    let rc = inflate(&stream, Z_NO_FLUSH)
                    return (rc, buffer.count - Int(stream.avail_out))
                }
                if rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR {
                    throw failure(.damaged(stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"))
                }
                written += produced
                if written > maxBytes { throw failure(.tooLarge(limit: maxBytes)) }
                out.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[..<produced])) }
                try output?.append(out[..<produced])
                if rc == Z_STREAM_END { ended = true }
                if rc == Z_BUF_ERROR { break }
            } while stream.avail_in > 0 || stream.avail_out == 0
        }
        if !sawInput || !ended { throw failure(.truncated) }
        try output?.close()
        return (written, hasher.finalizeHex())
    }
}

/// A file written piece by piece (what a gzip inflates to).
final class OutputFile {
    let path: String
    private var fd: Int32

    init(_ path: String) throws {
        self.path = path
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw StationError.environment("cannot write \(path): \(systemError())") }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    func append(_ piece: ArraySlice<UInt8>) throws {
        try piece.withUnsafeBytes { try append($0) }
    }

    func append(_ raw: UnsafeRawBufferPointer) throws {
        if let failure = Files.writeAll(fd, raw) {
            throw StationError.environment("cannot write \(path): \(String(cString: strerror(failure)))")
        }
    }

    func close() throws {
        let rc = Glibc.close(fd)
        fd = -1
        if rc != 0 { throw StationError.environment("cannot write \(path): \(systemError())") }
    }
}

extension Gzip {
    static func failure(_ failure: Failure) -> StationError {
        let reason = switch failure {
        case .damaged(let zlib): "not a valid gzip stream (\(zlib))"
        case .truncated: "the gzip stream ends early"
        case .tooLarge(let limit): "inflates past the limit of \(limit) bytes"
        }
        return StationError(.damaged, reasons: [reason], cause: .gzip(failure))
    }
}
