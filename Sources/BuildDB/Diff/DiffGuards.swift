import StationCore

/// Limits on how much one version may change before a human has to look.
///
/// A nil limit is not checked. A limit is exceeded when the figure is strictly above
/// it (DiffSummary documents each figure):
/// - maxRemovedPercent:     rows removed / rows in OLD, in %, for stations, lines and operators each;
/// - maxDisabledPercent:    rows going enabled 1 -> 0 / enabled rows in OLD, in %, for each of the three;
/// - maxLineRowsRemovedPercent: stations_lines rows removed / its rows in OLD, in % (a line emptied,
///                          or a master whose stations_lines lost its rows, empties the apps' line lists);
/// - maxMovedMetres:        any station moved further than this;
/// - maxWeightChurnPercent: live stations whose weight changed / live stations in both, in %;
/// - maxRenamedPercent:     stations renamed / stations rows in OLD, in %;
/// - maxMovedFarPercent:    stations moved more than 300 m / stations rows in OLD, in %.
///
/// `stationdb diff` checks only the limits it is given; `stationdb build` checks
/// `.nightly` (or its options) against the published version before publishing.
package struct DiffGuards: Sendable, Equatable {
    package var maxRemovedPercent: Double?
    package var maxDisabledPercent: Double?
    package var maxLineRowsRemovedPercent: Double?
    package var maxMovedMetres: Double?
    package var maxWeightChurnPercent: Double?
    package var maxRenamedPercent: Double?
    package var maxMovedFarPercent: Double?

    package init(maxRemovedPercent: Double? = nil, maxDisabledPercent: Double? = nil, maxLineRowsRemovedPercent: Double? = nil,
                maxMovedMetres: Double? = nil, maxWeightChurnPercent: Double? = nil, maxRenamedPercent: Double? = nil,
                maxMovedFarPercent: Double? = nil) {
        self.maxRemovedPercent = maxRemovedPercent; self.maxDisabledPercent = maxDisabledPercent
        self.maxLineRowsRemovedPercent = maxLineRowsRemovedPercent
        self.maxMovedMetres = maxMovedMetres; self.maxWeightChurnPercent = maxWeightChurnPercent
        self.maxRenamedPercent = maxRenamedPercent; self.maxMovedFarPercent = maxMovedFarPercent
    }

    /// No limit at all.
    package static let none = DiffGuards()

    /// The nightly's defaults. A normal night changes a handful of stations: sources
    /// fix a few coordinates and names, priorities reshuffle a few weights where
    /// stations open or close. These leave room for that and stop what a broken
    /// source or a bug looks like (a region vanishing, a mass switch-off, a station
    /// landing in the wrong town, the weights of a whole country being redrawn).
    /// - removed 2% (about 200 of Japan's ~10,000 stations), of lines and operators too;
    /// - disabled 2%, of stations, lines and operators each (4 of ~170 operators is a mass switch-off);
    /// - station-line rows removed 5%: a line or two re-drawn, not a region's lines emptied;
    /// - moved 5,000 m: further than any re-survey of a platform, less than the gap
    ///   between most neighbouring stations, so a move like that is a wrong station;
    /// - weight churn 10%;
    /// - renamed 2% (about 200 stations: a month renames a handful), and moved more than
    ///   300 m 2%: a source that renamed everything, or shifted every point (another
    ///   datum), is no night's work, though each station alone would pass.
    package static let nightly = DiffGuards(maxRemovedPercent: 2, maxDisabledPercent: 2, maxLineRowsRemovedPercent: 5,
                                           maxMovedMetres: 5_000, maxWeightChurnPercent: 10, maxRenamedPercent: 2, maxMovedFarPercent: 2)

    package var isEmpty: Bool { self == .none }

    /// Why the difference is refused, one sentence per exceeded limit; empty when it passes.
    package func violations(of summary: DiffSummary) -> [String] {
        var reasons: [String] = []
        func share(_ part: Int, _ whole: Int) -> Double { DiffSummary.percent(part, of: whole) }
        if let limit = maxRemovedPercent {
            for (part, whole, what) in [(summary.stationsRemoved, summary.oldStations, "stations"), (summary.linesRemoved, summary.oldLines, "lines"),
                                        (summary.operatorsRemoved, summary.oldOperators, "operators")] where share(part, whole) > limit {
                reasons.append("\(part) of \(whole) \(what) removed (\(Self.percent(share(part, whole)))), more than the limit of \(Self.percent(limit)) (--max-removed)")
            }
        }
        if let limit = maxDisabledPercent {
            for (part, whole, what) in [(summary.stationsDisabled, summary.oldEnabledStations, "stations"),
                                        (summary.linesDisabled, summary.oldEnabledLines, "lines"),
                                        (summary.operatorsDisabled, summary.oldEnabledOperators, "operators")] where share(part, whole) > limit {
                reasons.append("\(part) of \(whole) enabled \(what) disabled (\(Self.percent(share(part, whole)))), more than the limit of \(Self.percent(limit)) (--max-disabled)")
            }
        }
        if let limit = maxLineRowsRemovedPercent, summary.stationLinesRemovedPercent > limit {
            reasons.append("\(summary.stationLinesRemoved) of \(summary.oldStationLines) stations_lines rows removed (\(Self.percent(summary.stationLinesRemovedPercent))), "
                           + "more than the limit of \(Self.percent(limit)) (--max-line-rows-removed): the apps' line lists would lose them")
        }
        if let limit = maxMovedMetres {
            let far = summary.moves.filter { $0.metres > limit }
            if !far.isEmpty {
                let shown = far.prefix(5).map { "s_id \($0.stationID) \($0.name) \(Self.metres($0.metres))" }.joined(separator: ", ")
                let more = far.count > 5 ? ", and \(far.count - 5) more" : ""
                reasons.append("\(far.count) station\(far.count == 1 ? "" : "s") moved further than \(Self.metres(limit)) (--max-moved-m): \(shown)\(more)")
            }
        }
        if let limit = maxRenamedPercent, summary.renamedPercent > limit {
            reasons.append("\(summary.stationsRenamed) of \(summary.oldStations) stations renamed (\(Self.percent(summary.renamedPercent))), more than the limit of \(Self.percent(limit)) (--max-renamed)")
        }
        if let limit = maxMovedFarPercent, summary.movedFarPercent > limit {
            reasons.append("\(summary.stationsMovedFar) of \(summary.oldStations) stations moved more than \(Self.metres(DiffSummary.samePlaceMetres)) (\(Self.percent(summary.movedFarPercent))), more than the limit of \(Self.percent(limit)) (--max-moved-far)")
        }
        if let limit = maxWeightChurnPercent, summary.weightChurnPercent > limit {
            reasons.append("\(summary.weightChurn) of \(summary.liveInBoth) live stations changed weight (\(Self.percent(summary.weightChurnPercent))), more than the limit of \(Self.percent(limit)) (--max-weight-churn)")
        }
        return reasons
    }

    static func percent(_ value: Double) -> String { fixed(value, decimals: 2) + "%" }
    static func metres(_ value: Double) -> String { fixed(value, decimals: 1) + " m" }
}
