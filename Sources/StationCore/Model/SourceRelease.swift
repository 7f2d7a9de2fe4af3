/// The upstream release a source of raw/ holds ("v20260529", from station_database's
/// latest_info.json), and the one the version before was made from: what a maintainer
/// reads first of an update, so fetch, plan, summary.txt and latest.json name it.
package struct SourceRelease: Codable, Sendable, Equatable, CustomStringConvertible {
    /// The source's path in raw/ ("station_database").
    package var source: String
    /// The release the baseline was made from; nil when it names none (a first version, or
    /// one published before latest.json named releases).
    package var previous: String?
    package var current: String

    package init(source: String, previous: String?, current: String) {
        self.source = source; self.previous = previous; self.current = current
    }

    package var changed: Bool { previous != current }

    /// "v20260227 -> v20260529", "v20260529 (unchanged)", or "v20260529" with nothing before it.
    package var transition: String {
        guard let previous else { return current }
        return previous == current ? "\(current) (unchanged)" : "\(previous) -> \(current)"
    }

    /// "station_database v20260227 -> v20260529".
    package var description: String { "\(source) \(transition)" }

    /// Each source's release now (`current`, by source) against the baseline's (`previous`), by source.
    package static func list(previous: [String: String]?, current: [String: String]) -> [SourceRelease] {
        current.keys.sorted().map { SourceRelease(source: $0, previous: previous?[$0], current: current[$0]!) }
    }

    /// How a release is named: the upstream's latest_info.json version, as its tags spell it.
    package static func name(_ version: Int) -> String { "v\(version)" }
}
