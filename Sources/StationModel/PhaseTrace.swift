import Glibc

// With STATIONDB_PHASES set in the environment, a command prints to stderr the
// milliseconds since the first mark (the start of main), the page faults so far and the memory
// resident now and at its peak at each step of its
// work, with the thread that reached it: how bench/README.md's "Where the time
// goes" is found. Without it, `phase` costs one load and a branch.

private let phasesShown = getenv("STATIONDB_PHASES") != nil
nonisolated(unsafe) private var phaseClockStart = monotonicMilliseconds()

private func monotonicMilliseconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
}

/// The memory in use now (VmRSS), to find where the peak comes from.
private func residentMegabytes() -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    var text = [UInt8](repeating: 0, count: 128)
    let n = read(fd, &text, text.count)
    guard n > 0 else { return -1 }
    // "size resident shared ...", in pages.
    let fields = text[..<n].split(separator: 0x20)
    guard fields.count > 1, let pages = Int(String(decoding: fields[1], as: UTF8.self)) else { return -1 }
    return (pages * Int(sysconf(Int32(_SC_PAGESIZE)))) >> 20
}

/// Marks the end of a step of the work (see above).
public func phase(_ step: @autoclosure () -> String) {
    guard phasesShown else { return }
    let elapsed = monotonicMilliseconds() - phaseClockStart
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let thread = pthread_self() % 10_000
    StandardStream.error.write("[\((elapsed * 10).rounded() / 10) ms, thread \(thread), \(usage.ru_minflt) page faults, \(residentMegabytes()) MB resident, "
                               + "\(usage.ru_maxrss / 1024) MB peak] \(step())\n")
}
