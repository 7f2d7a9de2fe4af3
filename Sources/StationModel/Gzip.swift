import CZlib
import FoundationEssentials
import Glibc


/// Reproducible gzip (RFC 1952): the same bytes in give the same bytes out, on
/// every run and machine with the same zlib. The header is written here with
/// mtime 0, no file name and a fixed OS byte, so nothing of the run leaks in;
/// the body is raw deflate at a fixed level.
public enum Gzip {
    /// Level 1. Measured on the national bundle (2.0 MB): level 1 gives 886 KB,
    /// 6 gives 830 KB and 9 gives 829 KB, but 6 takes about 2.5 times and 9 about
    /// 10 times as long as 1 (SQLite pages make zlib's lazy matching slow), which
    /// alone would overrun the build's 100 ms budget. 7% more bytes to download is
    /// the cheaper side of that trade.
    public static let level: Int32 = 1

    public static func compress(_ input: Data, level: Int32 = Gzip.level) throws -> Data {
        var stream = z_stream()
        // windowBits -15: raw deflate, no zlib or gzip wrapper of zlib's own.
        var rc = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EnvironmentError("zlib: deflateInit2 failed (\(rc))") }
        defer { deflateEnd(&stream) }

        let bound = Int(deflateBound(&stream, uLong(input.count)))
        var out = Data(count: 10 + bound + 8)
        // ID1 ID2 CM FLG MTIME(4) XFL OS: no flags, mtime 0, XFL 2 = slowest / 4 = fastest, OS 3 = Unix.
        let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, level >= 9 ? 2 : (level == 1 ? 4 : 0), 3]
        var produced = 0
        try input.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            try out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
                let d = dst.bindMemory(to: UInt8.self)
                for (i, b) in header.enumerated() { d[i] = b }
                stream.next_in = UnsafeMutablePointer(mutating: src.bindMemory(to: UInt8.self).baseAddress)
                stream.avail_in = uInt(src.count)
                stream.next_out = d.baseAddress! + 10
                stream.avail_out = uInt(bound)
                rc = deflate(&stream, Z_FINISH)
                guard rc == Z_STREAM_END else { throw EnvironmentError("zlib: deflate failed (\(rc))") }
                produced = 10 + Int(stream.total_out)
                let crc = input.isEmpty ? 0 : crc32(0, src.bindMemory(to: UInt8.self).baseAddress, uInt(src.count))
                let size = UInt32(truncatingIfNeeded: src.count)
                for i in 0..<4 { d[produced + i] = UInt8(truncatingIfNeeded: UInt32(crc) >> (8 * UInt32(i))) }
                for i in 0..<4 { d[produced + 4 + i] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(i))) }
                produced += 8
            }
        }
        out.count = produced
        return out
    }

    /// Inflates a gzip file (any valid one, not only ours); for verify.
    public static func decompress(_ input: Data) throws -> Data {
        var stream = z_stream()
        // windowBits 15 + 16: expect and check a gzip wrapper.
        var rc = inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EnvironmentError("zlib: inflateInit2 failed (\(rc))") }
        defer { inflateEnd(&stream) }
        var out = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        try input.withUnsafeBytes { (src: UnsafeRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: src.bindMemory(to: UInt8.self).baseAddress)
            stream.avail_in = uInt(src.count)
            repeat {
                rc = chunk.withUnsafeMutableBufferPointer { buf in
                    stream.next_out = buf.baseAddress
                    stream.avail_out = uInt(buf.count)
                    return inflate(&stream, Z_NO_FLUSH)
                }
                guard rc == Z_OK || rc == Z_STREAM_END else {
                    throw InputError(SourceLocation(file: "gzip"), "not a valid gzip stream (zlib \(rc))")
                }
                out.append(contentsOf: chunk[0..<(chunk.count - Int(stream.avail_out))])
                if rc == Z_OK && stream.avail_in == 0 && stream.avail_out != 0 {
                    throw InputError(SourceLocation(file: "gzip"), "the gzip stream is truncated")
                }
            } while rc != Z_STREAM_END
        }
        return out
    }
}
