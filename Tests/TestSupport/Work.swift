import Foundation
import Glibc

// What a test measures instead of the wall clock, which other work on the machine
// stretches: what the code did, as the kernel counts it.

/// The bytes this process (every thread of it) has read with read(2) and its kin so
/// far: /proc/self/io's rchar. The difference across a call says whether it read a file.
package func bytesReadByThisProcess() throws -> Int {
    let text = try String(contentsOfFile: "/proc/self/io", encoding: .utf8)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("rchar:") }),
          let bytes = Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) else {
        throw BuiltTools.FixtureFailure("/proc/self/io has no rchar line: \(text)")
    }
    return bytes
}

/// The processor time the calling thread has used, in seconds: what a piece of work costs,
/// which (unlike the time it takes) other processes do not stretch by taking the processors.
package func cpuSecondsOfThisThread() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
