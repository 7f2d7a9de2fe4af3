// Seeded, process-independent randomness. Swift's Hasher is seeded afresh in
// every process, so it must never decide a weight or a synthetic station;
// SplitMix64 is a fixed, well-mixed function of its input, cheap per station.
package enum SplitMix64 {
    /// The generator's step (the golden ratio in 64 bits).
    package static let increment: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The output function: every bit of `z` reaches every bit of the result.
    @inline(__always)
    package static func finalize(_ z: UInt64) -> UInt64 {
        var z = z
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One value of the sequence that starts at `x`.
    @inline(__always)
    package static func mix(_ x: UInt64) -> UInt64 { finalize(x &+ increment) }
}

/// A seeded random number generator (SplitMix64), for the viewports of a report and
/// the random baselines; the same seed gives the same sequence everywhere.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = SplitMix64.mix(seed ^ 0x5EED) }

    package mutating func next() -> UInt64 {
        state &+= SplitMix64.increment
        return SplitMix64.finalize(state)
    }

    /// Uniform in [0, 1).
    package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in 0..<n without modulo bias worth worrying about at our sizes.
    package mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
