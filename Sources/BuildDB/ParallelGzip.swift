import CZlib
import Foundation
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
        let second = Background { () throws -> (Data, UInt) in
            try input.withUnsafeBytes { src in
                let all = src.bindMemory(to: UInt8.self)
                let part = UnsafeBufferPointer(rebasing: all[cut...])
                let dictionary = UnsafeBufferPointer(rebasing: all[(cut - window)..<cut])
                let out = try deflateRaw(part, dictionary: dictionary, finish: true, level: level)
                return (out, crc32(0, part.baseAddress, uInt(part.count)))
            }
        }
        let (firstOut, firstCRC) = try input.withUnsafeBytes { src -> (Data, UInt) in
            let part = UnsafeBufferPointer(rebasing: src.bindMemory(to: UInt8.self)[..<cut])
            let out = try deflateRaw(part, dictionary: nil, finish: false, level: level)
            return (out, crc32(0, part.baseAddress, uInt(part.count)))
        }
        let (secondOut, secondCRC) = try second.value()
        let crc = UInt32(truncatingIfNeeded: crc32_combine(firstCRC, secondCRC, Int(input.count - cut)))

        var out = Data(capacity: 10 + firstOut.count + secondOut.count + 8)
        // Same header as Gzip.compress: no name, mtime 0, OS 3 = Unix.
        out.append(contentsOf: [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, level >= 9 ? 2 : (level == 1 ? 4 : 0), 3])
        out.append(firstOut)
        out.append(secondOut)
        let size = UInt32(truncatingIfNeeded: input.count)
        for v in [crc, size] { for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) } }
        return out
    }

    private static func deflateRaw(_ part: UnsafeBufferPointer<UInt8>, dictionary: UnsafeBufferPointer<UInt8>?,
                                   finish: Bool, level: Int32) throws -> Data {
        var stream = z_stream()
        var rc = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EnvironmentError("zlib: deflateInit2 failed (\(rc))") }
        defer { deflateEnd(&stream) }
        if let dictionary {
            rc = deflateSetDictionary(&stream, dictionary.baseAddress, uInt(dictionary.count))
            guard rc == Z_OK else { throw EnvironmentError("zlib: deflateSetDictionary failed (\(rc))") }
        }
        // deflateBound plus room for the flush's empty stored block.
        let bound = Int(deflateBound(&stream, uLong(part.count))) + 16
        var out = Data(count: bound)
        var produced = 0
        try out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) in
            stream.next_in = UnsafeMutablePointer(mutating: part.baseAddress)
            stream.avail_in = uInt(part.count)
            stream.next_out = dst.bindMemory(to: UInt8.self).baseAddress
            stream.avail_out = uInt(bound)
            rc = deflate(&stream, finish ? Z_FINISH : Z_FULL_FLUSH)
            guard rc == (finish ? Z_STREAM_END : Z_OK), stream.avail_in == 0 else {
                throw EnvironmentError("zlib: deflate failed (\(rc))")
            }
            produced = Int(stream.total_out)
        }
        out.count = produced
        return out
    }
}
