import StationCore

package enum StationHash {
    /// The one default seed: `stationdb priority` and `make` (which passes none unless SEED is set).
    package static let defaultSeed: UInt64 = 20_240_401

    /// A station's lottery ticket: depends only on the seed and its s_id, so
    /// re-ordering, adding or moving other stations never changes it.
    @inline(__always)
    package static func ticket(seed: UInt64, stationID: Int) -> UInt64 {
        SplitMix64.mix(SplitMix64.mix(seed) ^ UInt64(bitPattern: Int64(stationID)))
    }
}
