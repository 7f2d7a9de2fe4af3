import Glibc

// A fetch or a pull that is killed leaves its temporary files behind. They are
// named for the process that made them (".stations.sqlite.tmp-<pid>.gz",
// ".fetch-<pid>"), so the next run can tell a leftover from the files of a run
// still going on in another process.

/// Whether the process a temporary file is named for is gone, so the file is a
/// leftover the next run may remove. This process counts as gone too: a run
/// looks for leftovers before it makes any file of its own, so a file with its
/// id was left by an earlier process that had the same id (after a reboot, or
/// in a container where every run gets the same ids).
package func isGone(_ pid: Int32) -> Bool {
    pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
}

/// The process id at the start of `text` and what follows it:
/// "123.part" gives (123, ".part"); nil when `text` does not start with digits.
package func leadingProcessID(_ text: Substring) -> (pid: Int32, rest: Substring)? {
    let digits = text.prefix { $0 >= "0" && $0 <= "9" }
    guard let pid = Int32(digits) else { return nil }
    return (pid, text.dropFirst(digits.count))
}
