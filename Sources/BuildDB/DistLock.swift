import StationIO
import StationModel

/// One publish at a time per dist: `stationdb publish` holds dist/.lock from
/// ingest to the new latest.json, and `stationdb build` alone holds it while it
/// publishes. Version numbers are taken under it, and the temporary folders of
/// a publish are only ever removed by the holder (every other one is a dead run's).
public enum DistLock {
    public static let fileName = ".lock"

    /// Takes the lock of `dist` (creating the folder). When another publish holds it:
    /// with `wait`, says so and waits; without, throws an environment error (exit 3).
    public static func acquire(dist: String, wait: Bool) throws -> FileLock {
        try Files.createFolder(dist)
        let path = joinPath(dist, fileName)
        let lock = try FileLock.acquire(path, wait: wait) { pid in
            note("waiting for another publish into \(dist) to finish (\(pid.map { "pid \($0)" } ?? "a process") holds \(path))")
        }
        guard let lock else {
            let holder = FileLock.holder(of: path).map { "pid \($0)" } ?? "another process"
            throw EnvironmentError("another publish into \(dist) is running (\(holder) holds \(path)); not waiting for it (--no-wait). Try again when it has finished.")
        }
        return lock
    }
}
