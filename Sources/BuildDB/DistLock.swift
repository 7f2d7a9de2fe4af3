import StationCore

/// One publish at a time per dist: `stationdb publish` holds dist/.lock from
/// ingest to the new latest.json, and `stationdb build` alone holds it while it
/// publishes. Version numbers are taken under it, and the temporary folders of
/// a publish are only ever removed by the holder (every other one is a dead run's).
package enum DistLock {
    package static let fileName = ".lock"

    /// Takes the lock of `dist` (creating the folder). When another publish holds it:
    /// with `wait`, says so and waits; without, throws an environment error (exit 3).
    package static func acquire(dist: String, wait: Bool) throws -> FileLock {
        try Files.createFolder(dist)
        return try FileLock.take(joinPath(dist, fileName), for: "publish into \(dist)", wait: wait)
    }

    /// The build folder's lock: plans, publishes and builds by hand share its staging
    /// file and candidate, one at a time.
    package static func acquire(build: String, wait: Bool) throws -> FileLock {
        try Files.createFolder(build)
        return try FileLock.take(joinPath(build, fileName), for: "plan or publish using \(build)", wait: wait)
    }
}
