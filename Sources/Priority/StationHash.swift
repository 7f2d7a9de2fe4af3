// Seeded, process-independent randomness. Swift's Hasher is seeded afresh in
// every process, so it must never decide a weight; SplitMix64 is a fixed,
// well-mixed function of its input, cheap enough to call per station.

public enum StationHash {
    /// The one default seed: `stationdb priority` and `make` (which passes none unless SEED is set).
    public static let defaultSeed: UInt64 = 20_240_401

    @inline(__always)
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A station's lottery ticket: depends only on the seed and its s_id, so
    /// re-ordering, adding or moving other stations never changes it.
    @inline(__always)
    public static func ticket(seed: UInt64, stationID: Int) -> UInt64 {
        mix(mix(seed) ^ UInt64(bitPattern: Int64(stationID)))
    }
}

/// A seeded random number generator (SplitMix64) for the report's viewports
/// and the random baseline; the same seed gives the same sequence everywhere.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = StationHash.mix(seed ^ 0x5EED) }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in 0..<n without modulo bias worth worrying about at our sizes.
    public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
