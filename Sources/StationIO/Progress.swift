import Glibc

/// Seconds on a clock that only moves forward (for timeouts and intervals, not dates).
public func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Progress of a long run, as ProgressEvents: one each time the whole percent (or, with
/// no total, the thousand) changes, and one when it finishes. A caller shows them on a
/// terminal, a log leaves them out.
public final class Progress {
    public let label: String
    public let total: Int?
    private var lastShown = -1

    public init(_ label: String, total: Int? = nil) { self.label = label; self.total = total }

    public func update(_ done: Int) {
        let step = total.map { $0 > 0 ? done * 100 / $0 : 100 } ?? done / 1000
        guard step != lastShown else { return }
        lastShown = step
        Events.send(ProgressEvent(label: label, done: done, total: total))
    }

    public func finish() {
        guard lastShown >= 0 else { return }
        Events.send(ProgressEvent(label: label, done: -1, total: total))
    }
}

/// How far a long run has come: `done` of `total` (no total: a count), or `done` -1 when it is over.
public struct ProgressEvent: Event, Equatable {
    public var label: String
    public var done: Int
    public var total: Int?
    public var finished: Bool { done < 0 }

    public var description: String {
        if finished { return "\(label): done" }
        guard let total, total > 0 else { return "\(label): \(done)" }
        return "\(label): \(done * 100 / total)% (\(done)/\(total))"
    }
}
