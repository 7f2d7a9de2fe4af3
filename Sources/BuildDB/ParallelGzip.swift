import CZlib
import FoundationEssentials
import Glibc
import StationModel

/// Gzip of the bundle on two cores, in the manner of pigz: the input is cut at
/// a fixed offset, each part is deflated on its own thread (the second primed
/// with the last 32 KiB of the first as its dictionary, so matches across the
/// cut are not lost), and the raw deflate streams are joined. The first part
/// ends with a full flush (an empty stored block, byte-aligned, not final), so
/// the joined bytes are one valid deflate stream that any gunzip reads.
/// The cut depends only on the input's length, so the output is as
/// reproducible as `Gzip.compress`'s: same bytes in, same bytes out.
public enum ParallelGzip {
    /// Below this a second thread is not worth starting.
    public static let minimumForSplit = 256 * 1024
    static let window = 32 * 1024

    public static func compress(_ input: Data, level: Int32 = Gzip.level) throws -> Data {
        guard input.count >= minimumForSplit else { return try Gzip.compress(input, level: level) }
        // Cut on a 64 KiB boundary near the middle (SQLite pages never straddle it).
        let cut = (input.count / 2) & ~0xFFFF
        // One output buffer for both parts (each thread writes its own region, the
        // second part is moved down after): no second copy of a large gzip in memory.
        let bound1 = deflateBoundRaw(cut, level: level), bound2 = deflateBoundRaw(input.count - cut, level: level)
        guard let buffer = malloc(10 + bound1 + bound2 + 8) else { throw EnvironmentError("out of memory for the gzip") }
        let out = buffer.assumingMemoryBound(to: UInt8.self)
        var keep = false
        defer { if !keep { free(buffer) } }
        return try input.withUnsafeBytes { src -> Data in
            let all = src.bindMemory(to: UInt8.self)
            let firstPart = UnsafeBufferPointer(rebasing: all[..<cut])
            let secondPart = UnsafeBufferPointer(rebasing: all[cut...])
            let dictionary = UnsafeBufferPointer(rebasing: all[(cut - window)..<cut])
            let secondOut = UnsafeMutableBufferPointer(start: out + 10 + bound1, count: bound2)
            let second = Background { () throws -> (Int, UInt) in
                let n = try deflateRaw(secondPart, into: secondOut, dictionary: dictionary, finish: true, level: level)
                return (n, crc32(0, secondPart.baseAddress, uInt(secondPart.count)))
            }
            let firstResult = Result { () throws -> (Int, UInt) in
                let n = try deflateRaw(firstPart, into: UnsafeMutableBufferPointer(start: out + 10, count: bound1),
                                       dictionary: nil, finish: false, level: level)
                return (n, crc32(0, firstPart.baseAddress, uInt(firstPart.count)))
            }
            // Wait for the second part even when the first failed: it writes into `buffer`.
            let secondResult = Result { try second.value() }
            let (n1, crc1) = try firstResult.get(), (n2, crc2) = try secondResult.get()
            let crc = UInt32(truncatingIfNeeded: crc32_combine(crc1, crc2, Int(secondPart.count)))
            // Same header as Gzip.compress: no name, mtime 0, OS 3 = Unix.
            let header: [UInt8] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, level >= 9 ? 2 : (level == 1 ? 4 : 0), 3]
            for (i, b) in header.enumerated() { out[i] = b }
            memmove(out + 10 + n1, out + 10 + bound1, n2)
            var produced = 10 + n1 + n2
            let size = UInt32(truncatingIfNeeded: input.count)
            for v in [crc, size] { for i in 0..<4 { out[produced + i] = UInt8(truncatingIfNeeded: v >> (8 * UInt32(i))) } ; produced += 4 }
            keep = true
            return Data(bytesNoCopy: buffer, count: produced, deallocator: .free)
        }
    }

    /// zlib's bound for raw deflate of `count` bytes, plus room for the full flush's empty stored block.
    private static func deflateBoundRaw(_ count: Int, level: Int32) -> Int {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return count + count / 8 + 1024
        }
        defer { deflateEnd(&stream) }
        return Int(deflateBound(&stream, uLong(count))) + 16
    }

    /// Deflates `part` into `output`; returns the number of bytes written.
    private static func deflateRaw(_ part: UnsafeBufferPointer<UInt8>, into output: UnsafeMutableBufferPointer<UInt8>,
                                   dictionary: UnsafeBufferPointer<UInt8>?, finish: Bool, level: Int32) throws -> Int {
        var stream = z_stream()
        var rc = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EnvironmentError("zlib: deflateInit2 failed (\(rc))") }
        defer { deflateEnd(&stream) }
        if let dictionary {
            rc = deflateSetDictionary(&stream, dictionary.baseAddress, uInt(dictionary.count))
            guard rc == Z_OK else { throw EnvironmentError("zlib: deflateSetDictionary failed (\(rc))") }
        }
        stream.next_in = UnsafeMutablePointer(mutating: part.baseAddress)
        stream.avail_in = uInt(part.count)
        stream.next_out = output.baseAddress
        stream.avail_out = uInt(output.count)
        rc = deflate(&stream, finish ? Z_FINISH : Z_FULL_FLUSH)
        guard rc == (finish ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else {
            throw EnvironmentError("zlib: deflate failed (\(rc))")
        }
        return Int(stream.total_out)
    }
}
