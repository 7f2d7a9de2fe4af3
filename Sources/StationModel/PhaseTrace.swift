import Glibc

// With STATIONDB_PHASES set in the environment, a command prints to stderr the
// milliseconds since the first mark (the start of main) and the page faults so far at each step of its
// work, with the thread that reached it: how bench/README.md's "Where the time
// goes" is found. Without it, `phase` costs one load and a branch.

private let phasesShown = getenv("STATIONDB_PHASES") != nil
nonisolated(unsafe) private var phaseClockStart = monotonicMilliseconds()

private func monotonicMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

/// Marks the end of a step of the work (see above).
public func phase(_ step: @autoclosure () -> String) {
    guard phasesShown else { return }
    let elapsed = monotonicMilliseconds() - phaseClockStart
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let thread = pthread_self() % 10_000
    StandardStream.error.write("[\((elapsed * 10).rounded() / 10) ms, thread \(thread), \(usage.ru_minflt) page faults] \(step())\n")
}
