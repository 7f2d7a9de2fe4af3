import Glibc

/// Seconds on a clock that only moves forward (for timeouts and intervals, not dates).
package func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// Progress of a long run, as ProgressEvents: one each time the whole percent (or, with
/// no total, the thousand) changes, and one when it finishes. A caller shows them on a
/// terminal, a log leaves them out.
package final class Progress {
    package let label: String
    package let total: Int?
    private var lastShown = -1

    package init(_ label: String, total: Int? = nil) { self.label = label; self.total = total }

    package func update(_ done: Int) {
        let step = total.map { $0 > 0 ? done * 100 / $0 : 100 } ?? done / 1000
        guard step != lastShown else { return }
        lastShown = step
        Events.send(ProgressEvent(label: label, done: done, total: total))
    }

    package func finish() {
        guard lastShown >= 0 else { return }
        Events.send(ProgressEvent(label: label, done: -1, total: total))
    }
}

/// How far a long run has come: `done` of `total` (no total: a count), or `done` -1 when it is over.
package struct ProgressEvent: Event, Equatable {
    package var label: String
    package var done: Int
    package var total: Int?
    package var finished: Bool { done < 0 }

    package var description: String {
        if finished { return "\(label): done" }
        guard let total, total > 0 else { return "\(label): \(done)" }
        return "\(label): \(done * 100 / total)% (\(done)/\(total))"
    }
}
