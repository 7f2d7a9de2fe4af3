import CZlib
import FoundationEssentials
import Glibc
import StationModel

/// gzip files through zlib, streamed so a national file never sits in memory.
extension Gzip {
    /// True when the file starts with the gzip magic bytes 1f 8b.
    public static func isGzip(fileAt path: String) -> Bool {
        guard let head = ReadOnlyFile(path: path)?.read(upTo: 2) else { return false }
        return head == [0x1f, 0x8b]
    }

    /// Inflates `source` (gzip, or zlib: windowBits 15+32 detects either) into
    /// `destination`; a bad header, a CRC mismatch or a stream cut short throws.
    /// Returns the size and sha256 of what was written.
    @discardableResult
    public static func decompress(fileAt source: String, to destination: String, maxBytes: Int, what: String) throws -> (bytes: Int, sha256: String) {
        guard let input = ReadOnlyFile(path: source) else { throw TransferError.io("cannot read \(source)") }
        let fd = open(destination, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw TransferError.io("cannot write \(destination): \(String(cString: strerror(errno)))") }
        defer { close(fd) }

        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw TransferError.io("zlib could not start")
        }
        defer { inflateEnd(&stream) }

        let chunk = 1 << 16
        var out = [UInt8](repeating: 0, count: chunk)
        var hasher = SHA256()
        var written = 0
        var streamEnded = false
        var sawInput = false

        while true {
            guard let data = input.read(upTo: chunk) else { throw TransferError.io("cannot read \(source)") }
            if data.isEmpty { break }
            sawInput = true
            // A gzip file may hold several members back to back: start the next after each end.
            if streamEnded {
                guard inflateReset(&stream) == Z_OK else { throw TransferError.io("zlib could not restart") }
                streamEnded = false
            }
            try data.withUnsafeBytes { (inBuf: UnsafeRawBufferPointer) in
                stream.next_in = UnsafeMutablePointer(mutating: inBuf.bindMemory(to: Bytef.self).baseAddress!)
                stream.avail_in = uInt(inBuf.count)
                repeat {
                    if streamEnded {
                        if stream.avail_in == 0 { break }
                        guard inflateReset(&stream) == Z_OK else { throw TransferError.io("zlib could not restart") }
                        streamEnded = false
                    }
                    let rc: Int32 = out.withUnsafeMutableBufferPointer { outBuf in
                        stream.next_out = outBuf.baseAddress
                        stream.avail_out = uInt(chunk)
                        return inflate(&stream, Z_NO_FLUSH)
                    }
                    if rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR {
                        let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
                        throw TransferError.corrupt(what: what, reason: "not a valid gzip stream (\(reason)); the download is damaged, try again")
                    }
                    let produced = chunk - Int(stream.avail_out)
                    if produced > 0 {
                        written += produced
                        if written > maxBytes {
                            throw TransferError.tooLarge(url: what, limit: maxBytes)
                        }
                        try out.withUnsafeBytes { buf in
                            let part = UnsafeRawBufferPointer(rebasing: buf[0..<produced])
                            hasher.update(part)
                            try writeAll(fd, part, path: destination)
                        }
                    }
                    if rc == Z_STREAM_END { streamEnded = true }
                    if rc == Z_BUF_ERROR { break }
                } while stream.avail_in > 0 || stream.avail_out == 0
            }
        }
        if !sawInput || !streamEnded {
            throw TransferError.corrupt(what: what, reason: "the gzip stream ends early; the download was cut short, try again")
        }
        return (written, SHA256.hex(digest: hasher.finalize()))
    }
}

func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
    var offset = 0
    while offset < buffer.count {
        let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            throw TransferError.io("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        offset += n
    }
}
