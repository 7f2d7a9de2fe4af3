import CZlib
import FoundationEssentials
import Glibc
import StationModel

/// Gzip of the bundle in pieces, in the manner of pigz: each piece is deflated
/// on its own (on its own thread, or while the rest of the file is still being
/// written) as a raw deflate segment, and the segments are joined. Every segment
/// but the last ends with a full flush (an empty stored block, byte-aligned, not
/// final), so the joined bytes are one valid deflate stream that any gunzip
/// reads. A segment may be primed with the 32 KiB before it as its dictionary, so
/// matches across the cut are not lost; one made before the bytes ahead of it
/// were final is not primed, and then simply never refers back past its start.
/// Cuts depend only on the input, so the output is as reproducible as
/// `Gzip.compress`'s: same bytes in, same bytes out.
public enum ParallelGzip {
    /// Below this a second thread is not worth starting.
    public static let minimumForSplit = 256 * 1024
    static let window = 32 * 1024

    /// One piece of the input, deflated: the raw deflate bytes, and the piece's
    /// CRC-32 and length for the gzip trailer.
    public struct Segment: Sendable {
        public var deflated: [UInt8]
        public var crc: UInt
        public var count: Int
    }

    /// The whole input, in two halves on two cores when it is large enough.
    public static func compress(_ input: Data, level: Int32 = Gzip.level) throws -> Data {
        guard input.count >= minimumForSplit else { return try Gzip.compress(input, level: level) }
        return try input.withUnsafeBytes { raw in
            let all = raw.bindMemory(to: UInt8.self)
            return gzip(try deflate(all, in: 0..<all.count, primed: false, final: true, level: level), level: level)
        }
    }

    /// `all[range]` as segments: two halves on two cores when it is large
    /// enough, the second primed with the end of the first. The first is primed
    /// with the bytes before `range` when `primed`; the last is final when `final`.
    public static func deflate(_ all: UnsafeBufferPointer<UInt8>, in range: Range<Int>, primed: Bool, final: Bool,
                               level: Int32 = Gzip.level) throws -> [Segment] {
        func dictionary(before start: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: all[max(0, start - window)..<start])
        }
        let firstDictionary = primed && range.lowerBound > 0 ? dictionary(before: range.lowerBound) : nil
        guard range.count >= minimumForSplit else {
            return [try segment(UnsafeBufferPointer(rebasing: all[range]), dictionary: firstDictionary, final: final, level: level)]
        }
        // Cut on a 64 KiB boundary near the middle (SQLite pages never straddle it).
        let cut = range.lowerBound + (range.count / 2) & ~0xFFFF
        let secondDictionary = dictionary(before: cut)
        let second = Background {
            try segment(UnsafeBufferPointer(rebasing: all[cut..<range.upperBound]), dictionary: secondDictionary, final: final, level: level)
        }
        let first = Result { try segment(UnsafeBufferPointer(rebasing: all[range.lowerBound..<cut]), dictionary: firstDictionary, final: false, level: level) }
        // Wait for the second even when the first failed: it reads `all`.
        let secondResult = Result { try second.value() }
        return [try first.get(), try secondResult.get()]
    }

    /// Deflates one piece; not final ends it with a full flush.
    public static func segment(_ piece: UnsafeBufferPointer<UInt8>, dictionary: UnsafeBufferPointer<UInt8>?, final: Bool,
                               level: Int32 = Gzip.level) throws -> Segment {
        var stream = z_stream()
        var rc = deflateInit2_(&stream, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY,
                               zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard rc == Z_OK else { throw EnvironmentError("zlib: deflateInit2 failed (\(rc))") }
        defer { deflateEnd(&stream) }
        if let dictionary, dictionary.count > 0 {
            rc = deflateSetDictionary(&stream, dictionary.baseAddress, uInt(dictionary.count))
            guard rc == Z_OK else { throw EnvironmentError("zlib: deflateSetDictionary failed (\(rc))") }
        }
        // zlib's bound, plus room for the full flush's empty stored block.
        let bound = Int(deflateBound(&stream, uLong(piece.count))) + 16
        var failure: Int32?
        let deflated = [UInt8](unsafeUninitializedCapacity: bound) { out, produced in
            stream.next_in = UnsafeMutablePointer(mutating: piece.baseAddress)
            stream.avail_in = uInt(piece.count)
            stream.next_out = out.baseAddress
            stream.avail_out = uInt(out.count)
            let rc = CZlib.deflate(&stream, final ? Z_FINISH : Z_FULL_FLUSH)
            if rc != (final ? Z_STREAM_END : Z_OK) || stream.avail_in != 0 { failure = rc; produced = 0; return }
            produced = Int(stream.total_out)
        }
        if let failure { throw EnvironmentError("zlib: deflate failed (\(failure))") }
        return Segment(deflated: deflated, crc: crc32(0, piece.baseAddress, uInt(piece.count)), count: piece.count)
    }

    /// The gzip file of `segments` in order (the last must be final).
    public static func gzip(_ segments: [Segment], level: Int32 = Gzip.level) -> Data {
        var out = Data(capacity: 18 + segments.reduce(0) { $0 + $1.deflated.count })
        // Same header as Gzip.compress: no name, mtime 0, OS 3 = Unix.
        out.append(contentsOf: [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, level >= 9 ? 2 : (level == 1 ? 4 : 0), 3] as [UInt8])
        var crc: UInt = 0, total = 0
        for s in segments {
            out.append(contentsOf: s.deflated)
            crc = total == 0 ? s.crc : UInt(crc32_combine(uLong(crc), uLong(s.crc), Int(s.count)))
            total += s.count
        }
        for v in [UInt32(truncatingIfNeeded: crc), UInt32(truncatingIfNeeded: total)] {
            out.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) })
        }
        return out
    }
}

extension ParallelGzip {
    /// A piece deflated ahead of time: `input[range]` as it was then.
    public typealias EarlySegment = (range: Range<Int>, segment: Segment)

    /// Deflates `range` of the file, not final: a piece the rest of the file will
    /// be put around (see `compress(_:reusing:)`). It is primed with up to 32 KiB
    /// of the file before it, from offset `primedAfter` on (bytes before that may
    /// still change, so they cannot be its dictionary). The range is fixed by the
    /// caller, not read from the file here, so that the cuts do not depend on when
    /// this runs. Nil for an empty range.
    public static func segment(ofFile path: String, range: Range<Int>, primedAfter: Int,
                               level: Int32 = Gzip.level) throws -> EarlySegment? {
        guard !range.isEmpty else { return nil }
        let offset = min(range.lowerBound, max(primedAfter, range.lowerBound - window))
        // Mapped, not read: the pages were just written and are in the page cache.
        let segment = try MappedFile.withBytes(path: path, range: offset..<range.upperBound) { all in
            let split = range.lowerBound - offset
            return try self.segment(UnsafeBufferPointer(rebasing: all[split...]),
                                    dictionary: UnsafeBufferPointer(rebasing: all[..<split]), final: false, level: level)
        }
        guard let segment else { throw EnvironmentError("cannot read \(path) (bytes \(offset)..<\(range.upperBound))") }
        return (range, segment)
    }

    /// The gzip of `input`, reusing the `early` pieces (consecutive, in order) when
    /// the bytes they cover and were primed with are still the same (their CRC-32s
    /// say so; else the input is compressed whole): the bytes before them, them,
    /// then the rest, primed with the end of the last.
    public static func compress(_ input: Data, reusing early: [EarlySegment], level: Int32 = Gzip.level) throws -> Data {
        guard let first = early.first, let last = early.last, last.range.upperBound <= input.count,
              zip(early, early.dropFirst()).allSatisfy({ $0.range.upperBound == $1.range.lowerBound }) else {
            return try compress(input, level: level)
        }
        return try input.withUnsafeBytes { raw -> Data in
            let all = raw.bindMemory(to: UInt8.self)
            for piece in early {
                let region = UnsafeBufferPointer(rebasing: all[piece.range])
                guard crc32(0, region.baseAddress, uInt(region.count)) == piece.segment.crc else { return try compress(input, level: level) }
            }
            let head = try segment(UnsafeBufferPointer(rebasing: all[..<first.range.lowerBound]), dictionary: nil, final: false, level: level)
            let rest = try deflate(all, in: last.range.upperBound..<all.count, primed: true, final: true, level: level)
            return gzip([head] + early.map(\.segment) + rest, level: level)
        }
    }
}
