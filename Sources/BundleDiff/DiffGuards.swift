import StationIO
import StationModel

/// Limits on how much one version may change before a human has to look.
///
/// A nil limit is not checked. A limit is exceeded when the figure is strictly above
/// it (DiffSummary documents each figure):
/// - maxRemovedPercent:     stations rows removed / stations in OLD, in %;
/// - maxDisabledPercent:    stations going enabled 1 -> 0 / enabled stations in OLD, in %;
/// - maxMovedMetres:        any station moved further than this;
/// - maxWeightChurnPercent: live stations whose weight changed / live stations in both, in %.
///
/// `stationdb diff` checks only the limits it is given; `stationdb build` checks
/// `.nightly` (or its options) against the published version before publishing.
public struct DiffGuards: Sendable, Equatable {
    public var maxRemovedPercent: Double?
    public var maxDisabledPercent: Double?
    public var maxMovedMetres: Double?
    public var maxWeightChurnPercent: Double?

    public init(maxRemovedPercent: Double? = nil, maxDisabledPercent: Double? = nil,
                maxMovedMetres: Double? = nil, maxWeightChurnPercent: Double? = nil) {
        self.maxRemovedPercent = maxRemovedPercent; self.maxDisabledPercent = maxDisabledPercent
        self.maxMovedMetres = maxMovedMetres; self.maxWeightChurnPercent = maxWeightChurnPercent
    }

    /// No limit at all.
    public static let none = DiffGuards()

    /// The nightly's defaults. A normal night changes a handful of stations: sources
    /// fix a few coordinates and names, priorities reshuffle a few weights where
    /// stations open or close. These leave room for that and stop what a broken
    /// source or a bug looks like (a region vanishing, a mass switch-off, a station
    /// landing in the wrong town, the weights of a whole country being redrawn).
    /// - removed 2% (about 200 of Japan's ~10,000 stations);
    /// - disabled 2%;
    /// - moved 5,000 m: further than any re-survey of a platform, less than the gap
    ///   between most neighbouring stations, so a move like that is a wrong station;
    /// - weight churn 10%.
    public static let nightly = DiffGuards(maxRemovedPercent: 2, maxDisabledPercent: 2, maxMovedMetres: 5_000, maxWeightChurnPercent: 10)

    public var isEmpty: Bool { self == .none }

    /// Why the difference is refused, one sentence per exceeded limit; empty when it passes.
    public func violations(of summary: DiffSummary) -> [String] {
        var reasons: [String] = []
        if let limit = maxRemovedPercent, summary.removedPercent > limit {
            reasons.append("\(summary.stationsRemoved) of \(summary.oldStations) stations removed (\(Self.percent(summary.removedPercent))), more than the limit of \(Self.percent(limit)) (--max-removed)")
        }
        if let limit = maxDisabledPercent, summary.disabledPercent > limit {
            reasons.append("\(summary.stationsDisabled) of \(summary.oldEnabledStations) enabled stations disabled (\(Self.percent(summary.disabledPercent))), more than the limit of \(Self.percent(limit)) (--max-disabled)")
        }
        if let limit = maxMovedMetres {
            let far = summary.moves.filter { $0.metres > limit }
            if !far.isEmpty {
                let shown = far.prefix(5).map { "s_id \($0.stationID) \($0.name) \(Self.metres($0.metres))" }.joined(separator: ", ")
                let more = far.count > 5 ? ", and \(far.count - 5) more" : ""
                reasons.append("\(far.count) station\(far.count == 1 ? "" : "s") moved further than \(Self.metres(limit)) (--max-moved-m): \(shown)\(more)")
            }
        }
        if let limit = maxWeightChurnPercent, summary.weightChurnPercent > limit {
            reasons.append("\(summary.weightChurn) of \(summary.liveInBoth) live stations changed weight (\(Self.percent(summary.weightChurnPercent))), more than the limit of \(Self.percent(limit)) (--max-weight-churn)")
        }
        return reasons
    }

    public func violations(of difference: BundleDifference) -> [String] {
        violations(of: DiffSummary(difference: difference))
    }

    static func percent(_ value: Double) -> String { fixed(value, decimals: 2) + "%" }
    static func metres(_ value: Double) -> String { fixed(value, decimals: 1) + " m" }
}
