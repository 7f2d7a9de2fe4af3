import CSIMD
import FoundationEssentials
import Glibc

// SHA-256 (FIPS 180-4) for manifests and download checks: small enough to own,
// and it spares every clean CI build a crypto package. Blocks go through the
// CPU's SHA instructions where it has them (CSIMD), else through the rounds below.

public struct SHA256 {
    // The state words are stored properties, not an array: an array costs a
    // uniqueness check and bounds checks on every block.
    private var h0: UInt32 = 0x6a09e667, h1: UInt32 = 0xbb67ae85, h2: UInt32 = 0x3c6ef372, h3: UInt32 = 0xa54ff53a
    private var h4: UInt32 = 0x510e527f, h5: UInt32 = 0x9b05688c, h6: UInt32 = 0x1f83d9ab, h7: UInt32 = 0x5be0cd19
    private var buffer: [UInt8] = []
    private var length: UInt64 = 0

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]

    public mutating func update<D: DataProtocol>(_ data: D) {
        for region in data.regions {
            region.withUnsafeBytes { update(UnsafeRawBufferPointer($0)) }
        }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        length &+= UInt64(bytes.count)
        var offset = 0
        if !buffer.isEmpty {
            let take = min(64 - buffer.count, bytes.count)
            buffer.append(contentsOf: bytes[0..<take])
            offset = take
            if buffer.count == 64 {
                buffer.withUnsafeBytes { compress($0.baseAddress!, blocks: 1) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        let blocks = (bytes.count - offset) / 64
        if blocks > 0 {
            compress(bytes.baseAddress! + offset, blocks: blocks)
            offset += blocks * 64
        }
        if offset < bytes.count { buffer.append(contentsOf: bytes[offset...]) }
    }

    static let cpuHasSHA = csimd_cpu_has_sha() == 1
    private let usesCPUInstructions: Bool

    public init() { usesCPUInstructions = SHA256.cpuHasSHA }

    /// `portable`: the rounds below even where the CPU has SHA instructions (for tests).
    init(portable: Bool) { usesCPUInstructions = !portable && SHA256.cpuHasSHA }

    private mutating func compress(_ start: UnsafeRawPointer, blocks: Int) {
        guard usesCPUInstructions else { compressPortably(start, blocks: blocks); return }
        var state = (h0, h1, h2, h3, h4, h5, h6, h7)
        withUnsafeMutableBytes(of: &state) { words in
            SHA256.k.withUnsafeBufferPointer { k in
                csimd_sha256_compress(words.baseAddress!.assumingMemoryBound(to: UInt32.self), start.assumingMemoryBound(to: UInt8.self),
                                      blocks, k.baseAddress!)
            }
        }
        (h0, h1, h2, h3, h4, h5, h6, h7) = state
    }

    /// Hashes `blocks` consecutive 64-byte blocks with the state in locals.
    private mutating func compressPortably(_ start: UnsafeRawPointer, blocks: Int) {
        var s0v = h0, s1v = h1, s2v = h2, s3v = h3, s4v = h4, s5v = h5, s6v = h6, s7v = h7
        // The message schedule lives on the stack: a heap array per 64-byte
        // block made hashing a bundle cost more than building it.
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            let w = w.baseAddress!
            SHA256.k.withUnsafeBufferPointer { kb in
                let k = kb.baseAddress!
                var p = start
                for _ in 0..<blocks {
                    for i in 0..<16 {
                        w[i] = UInt32(bigEndian: p.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
                    }
                    for i in 16..<64 {
                        let x = w[i &- 15], y = w[i &- 2]
                        let s0 = x.rotr(7) ^ x.rotr(18) ^ (x &>> 3)
                        let s1 = y.rotr(17) ^ y.rotr(19) ^ (y &>> 10)
                        w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
                    }
                    var a = s0v, b = s1v, c = s2v, d = s3v, e = s4v, f = s5v, g = s6v, hh = s7v
                    // Eight rounds per pass with the roles of the words rotated in
                    // the calls, so no word is moved between rounds.
                    var i = 0
                    while i < 64 {
                        SHA256.round(a, b, c, &d, e, f, g, &hh, k[i] &+ w[i])
                        SHA256.round(hh, a, b, &c, d, e, f, &g, k[i &+ 1] &+ w[i &+ 1])
                        SHA256.round(g, hh, a, &b, c, d, e, &f, k[i &+ 2] &+ w[i &+ 2])
                        SHA256.round(f, g, hh, &a, b, c, d, &e, k[i &+ 3] &+ w[i &+ 3])
                        SHA256.round(e, f, g, &hh, a, b, c, &d, k[i &+ 4] &+ w[i &+ 4])
                        SHA256.round(d, e, f, &g, hh, a, b, &c, k[i &+ 5] &+ w[i &+ 5])
                        SHA256.round(c, d, e, &f, g, hh, a, &b, k[i &+ 6] &+ w[i &+ 6])
                        SHA256.round(b, c, d, &e, f, g, hh, &a, k[i &+ 7] &+ w[i &+ 7])
                        i &+= 8
                    }
                    s0v &+= a; s1v &+= b; s2v &+= c; s3v &+= d; s4v &+= e; s5v &+= f; s6v &+= g; s7v &+= hh
                    p += 64
                }
            }
        }
        h0 = s0v; h1 = s1v; h2 = s2v; h3 = s3v; h4 = s4v; h5 = s5v; h6 = s6v; h7 = s7v
    }

    /// One round: d += t1 and h = t1 + t2, the other words renamed by the caller.
    @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                              _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
        let t1 = h &+ (e.rotr(6) ^ e.rotr(11) ^ e.rotr(25)) &+ (g ^ (e & (f ^ g))) &+ kw
        let t2 = (a.rotr(2) ^ a.rotr(13) ^ a.rotr(22)) &+ ((a & b) | (c & (a | b)))
        d &+= t1
        h = t1 &+ t2
    }

    public mutating func finalize() -> [UInt8] {
        let bitLength = length &* 8
        var pad: [UInt8] = [0x80]
        let rem = (buffer.count + 1) % 64
        pad += [UInt8](repeating: 0, count: rem <= 56 ? 56 - rem : 120 - rem)
        for i in (0..<8).reversed() { pad.append(UInt8(truncatingIfNeeded: bitLength >> (UInt64(i) * 8))) }
        let savedLength = length
        pad.withUnsafeBytes { update($0) }
        length = savedLength
        return [h0, h1, h2, h3, h4, h5, h6, h7].flatMap { v in (0..<4).reversed().map { UInt8(truncatingIfNeeded: v >> (UInt32($0) * 8)) } }
    }

    public static func hex<D: DataProtocol>(_ data: D) -> String {
        var s = SHA256()
        s.update(data)
        return hex(digest: s.finalize())
    }

    /// The digest of a file, read in chunks.
    public static func hex(fileAt path: String) throws -> String {
        guard let file = ReadOnlyFile(path: path) else { throw EnvironmentError("cannot read \(path)") }
        var hasher = SHA256()
        guard file.forEachChunk({ hasher.update($0) }) else { throw EnvironmentError("cannot read \(path)") }
        return hex(digest: hasher.finalize())
    }

    /// A digest in lowercase hex, as sha256sum prints it.
    public static func hex(digest: [UInt8]) -> String {
        digest.map { String(format2hex: $0) }.joined()
    }
}

private extension UInt32 {
    @inline(__always) func rotr(_ n: UInt32) -> UInt32 { (self &>> n) | (self &<< (32 &- n)) }
}
