import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// Dists made by the stationdb built with these tests, once per test process, in a
/// temporary folder removed when the process exits: the small network published as
/// version 1, then a station renamed (2) and two stations added (3). `atVersion1`
/// is the dist as it was after the first publish. Tests copy them before changing them.
struct PublishedDists: Sendable {
    let atVersion1: String
    let atVersion3: String

    static let folder = NSTemporaryDirectory() + "stationdb-deploy-dists-\(getpid())"

    static let made: Result<PublishedDists, any Error> = Result { try make() }

    static func shared() throws -> PublishedDists { try made.get() }

    private static func make() throws -> PublishedDists {
        let folder = Self.folder
        try? FileManager.default.removeItem(atPath: folder)
        atexit { try? FileManager.default.removeItem(atPath: PublishedDists.folder) }
        let raw = folder + "/raw", build = folder + "/build", dist = folder + "/dist"
        try SmallNetwork.write(to: raw)
        func publish(_ version: Int) throws {
            let run = try DeployFixture.runStationDB(["publish", "--raw", raw, "--build", build, "--dist", dist])
            guard run.status == 0, run.err.contains("published version \(version) ") else {
                throw BuiltTools.FixtureFailure("publishing the test dist failed (exit \(run.status)): \(run.err)")
            }
        }
        try publish(1)
        try FileManager.default.copyItem(atPath: dist, toPath: folder + "/dist-at-1")
        let stations = raw + "/stations.csv"
        try String(contentsOfFile: stations, encoding: .utf8).replacingOccurrences(of: "3,駅3,", with: "3,駅三,")
            .write(toFile: stations, atomically: true, encoding: .utf8)
        try publish(2)
        try SmallNetwork.write(to: raw, stations: 102)
        try String(contentsOfFile: stations, encoding: .utf8).replacingOccurrences(of: "3,駅3,", with: "3,駅三,")
            .write(toFile: stations, atomically: true, encoding: .utf8)
        try publish(3)
        return PublishedDists(atVersion1: folder + "/dist-at-1", atVersion3: dist)
    }
}

/// A test's own folder with copies of the published dists, a target folder, and the
/// stationdb built with the tests.
final class DeployFixture {
    let folder: String
    var target: String { folder + "/www" }

    init() throws {
        folder = NSTemporaryDirectory() + "deploy-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    /// A copy of one of the shared dists under `name`, for a test that changes it.
    func dist(_ source: KeyPath<PublishedDists, String>, as name: String) throws -> String {
        let path = folder + "/" + name
        try FileManager.default.copyItem(atPath: try PublishedDists.shared()[keyPath: source], toPath: path)
        return path
    }

    struct Run {
        var status: Int32
        var out: String
        var err: String
        /// The signal that ended the program, if one did.
        var signal: Int32?
    }

    static func runStationDB(_ arguments: [String], environment extra: [String: String] = [:], in directory: String? = nil) throws -> Run {
        try run(try BuiltTools.stationdb(), arguments, environment: extra, in: directory)
    }

    func stationdb(_ arguments: String..., environment: [String: String] = [:]) throws -> Run {
        try Self.runStationDB(arguments, environment: environment, in: folder)
    }

    static func run(_ program: String, _ arguments: [String], environment extra: [String: String] = [:], in directory: String? = nil) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // As a user runs it, even when the tests themselves run under `make test`.
        var environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "STATIONDB_DEPLOY_KILL_AT"].contains($0.key) }
        for (k, v) in extra { environment[k] = v }
        p.environment = environment
        // Files, not pipes: a chatty child never blocks on a pipe nobody reads yet.
        let outPath = NSTemporaryDirectory() + "deploy-out-\(UUID().uuidString)", errPath = outPath + ".err"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { unlink(outPath); unlink(errPath) }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath)), err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        p.standardOutput = out; p.standardError = err
        try p.run()
        p.waitUntilExit()
        try out.close(); try err.close()
        return Run(status: p.terminationStatus, out: try String(contentsOfFile: outPath, encoding: .utf8),
                   err: try String(contentsOfFile: errPath, encoding: .utf8),
                   signal: p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil)
    }

    // MARK: - What the target holds

    /// The published part of a dist or a target: latest.json and the numbered folders' files.
    static func published(_ folder: String) throws -> [String: String] {
        try folderDigests(folder).filter { key, _ in
            key == DistLayout.latest || key.first.map { $0.isNumber } == true && !key.contains(".tmp")
        }
    }

    /// What killed deploys leave: staging folders, latest.json's temporary files.
    static func leftovers(in target: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).filter {
            $0.hasPrefix(".tmp-deploy-") || $0.hasPrefix(".latest.json.")
        }.sorted()
    }

    /// Every file of `target` with its digest, inode and modification time: what
    /// "copied nothing" means.
    static func inodes(_ target: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for (rel, digest) in try folderDigests(target) {
            let attributes = try FileManager.default.attributesOfItem(atPath: target + "/" + rel)
            out[rel] = "\(digest) \(attributes[.systemFileNumber] ?? "") \(attributes[.modificationDate] ?? "")"
        }
        return out
    }

    static func latestVersion(_ folder: String) throws -> Int? {
        let path = folder + "/" + DistLayout.latest
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try PublishedBundle.read(path: path).version
    }

    /// The invariant of a deploy at any moment, killed or not: latest.json is absent or
    /// names one of `versions`; every file it names is there with its sha256; every
    /// version folder under its final name is the dist's, whole; and an app starting
    /// now (`stationdb pull` over HTTP into an empty database) gets that version.
    func assertServesWholeVersion(_ target: String, oneOf versions: Set<Int>, dist: String, server: StaticServer?,
                                  _ moment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []
        for name in names where Int(name) != nil {
            XCTAssertEqual(try folderDigests(target + "/" + name), try folderDigests(dist + "/" + name),
                           "\(moment): \(target)/\(name) is not the dist's folder, whole", file: file, line: line)
        }
        guard let version = try Self.latestVersion(target) else {
            XCTFail("\(moment): no latest.json at \(target)", file: file, line: line)
            return
        }
        XCTAssertTrue(versions.contains(version), "\(moment): latest.json names \(version), expected one of \(versions.sorted())", file: file, line: line)
        let latest = try PublishedBundle.read(path: target + "/" + DistLayout.latest)
        var named: [(String, String?)] = [(latest.database, latest.sha256), (latest.gzip, latest.gzipSHA256), (latest.manifest, nil), (latest.summary, nil)]
        if let patch = latest.patch { named.append((patch, latest.patchSHA256)) }
        for (relative, digest) in named {
            let path = target + "/" + relative
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(moment): latest.json names \(relative), which is missing", file: file, line: line)
            if let digest, FileManager.default.fileExists(atPath: path) {
                XCTAssertEqual(try SHA256.hex(fileAt: path), digest, "\(moment): \(relative) is not whole", file: file, line: line)
            }
        }
        if let server {
            let db = folder + "/app-\(UUID().uuidString).sqlite"
            let pull = try stationdb("pull", server.baseURL, "--db", db, "--attempts", "1")
            XCTAssertEqual(pull.status, 0, "\(moment): an app starting now fails: \(pull.err)", file: file, line: line)
            XCTAssertEqual(try Self.userVersion(db), version, "\(moment): \(pull.err)", file: file, line: line)
        }
    }

    /// After a deploy completed: the target holds exactly what the dist publishes, no leftovers.
    func assertDeployed(_ dist: String, to target: String, _ moment: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try Self.published(target), try Self.published(dist), "\(moment): the target is not the dist's published files", file: file, line: line)
        XCTAssertEqual(Self.leftovers(in: target), [], "\(moment): leftovers stayed", file: file, line: line)
    }

    static func userVersion(_ db: String) throws -> Int {
        let d = try SQLiteDatabase(path: db, mode: .readOnly)
        defer { d.close() }
        return try d.userVersion
    }

    /// Replaces the target's content with a copy of `source` (a target made earlier).
    func resetTarget(to source: String) throws {
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: source, toPath: target)
    }

    /// A stand-in for ssh with ssh's calling convention (`[options] host command...`,
    /// the words joined and run by the login's shell), run on this machine: rsync's
    /// -e and deploy's own commands go through it exactly as through ssh. Each call is
    /// logged, so a test sees what crossed to the "host".
    ///
    /// `holding` holds one call: the rsync receiving that version gets the first `bytes` of
    /// its stream, then nothing (the sender waits, the receiver waits), until the process
    /// group is killed. A copy of a file larger than that stops partway through it, for as
    /// long as the test likes. The call is known by its destination, the version's staging
    /// folder: a deploy that stopped staging is not held, and the test says so ("the deploy
    /// ended though its stream was held"). (dd, not head -c: head buffers what it passes on,
    /// and rsync's first messages would never reach the receiver.)
    func fakeSSH(holding: (version: Int, bytes: Int)? = nil) throws -> (command: String, log: String) {
        let path = folder + (holding == nil ? "/fake-ssh" : "/fake-ssh-held"), log = folder + "/fake-ssh.log"
        let held = holding.map { """
            case "$*" in
            *"rsync --server"*"/\(Deployment.stagingPrefix)\($0.version)-"*) { dd bs=65536 count=\($0.bytes) iflag=count_bytes status=none; exec sleep 3600; } | sh -c "$*"; exit ;;
            esac

            """ } ?? ""
        try """
            #!/bin/sh
            printf '%s\\n' "$*" >> '\(log)'
            while [ $# -gt 0 ]; do case "$1" in -l|-p|-i|-o) shift 2 ;; -*) shift ;; *) break ;; esac; done
            shift
            \(held)exec sh -c "$*"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return (path, log)
    }
}

/// stationdb deploy started in a process group of its own, so that a kill reaches
/// rsync and the stand-in ssh with it (as Ctrl-C or a stopped container would), and
/// whose stderr is read as it comes, to kill it at a moment it announces.
final class GroupProcess {
    let pid: pid_t
    private let errRead: Int32
    private(set) var err = ""

    init(_ program: String, _ arguments: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw StationError.environment("pipe: \(systemError())") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        let environment = ProcessInfo.processInfo.environment.filter { $0.key != "STATIONDB_DEPLOY_KILL_AT" }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for e in environment { free(e) } }
        let rc = posix_spawn(&pid, program, &actions, &attributes, argv, environment)
        close(fds[1])
        guard rc == 0 else { close(fds[0]); throw StationError.environment("cannot start \(program): \(String(cString: strerror(rc)))") }
        self.pid = pid
        errRead = fds[0]
    }

    deinit { close(errRead) }

    /// Reads stderr until it holds `text`; false when the program ended (or 60 s passed) first.
    func waitFor(_ text: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !err.contains(text) {
            var poller = pollfd(fd: errRead, events: Int16(POLLIN), revents: 0)
            guard Date() < deadline, poll(&poller, 1, 100) >= 0 else { return false }
            if poller.revents == 0 { continue }
            let n = read(errRead, &buffer, buffer.count)
            if n <= 0 { return false }
            err += String(decoding: buffer[..<n], as: UTF8.self)
        }
        return true
    }

    /// Waits for the program to end; its exit status (128 + the signal when one ended it).
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// Whether the program has ended (it may wait to be reaped: killGroup reaps it).
    var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// SIGKILL to the whole group; returns whether the deploy was still running (so the kill landed).
    func killGroup() -> Bool {
        var status: Int32 = 0
        let finished = waitpid(pid, &status, WNOHANG) == pid
        kill(-pid, SIGKILL)
        if !finished { while waitpid(pid, &status, 0) < 0 && errno == EINTR {} }
        // A killed process may still finish the system call it was in (a rename, an fsync):
        // the target is looked at only once no member of the group (rsync, the stand-in ssh) runs.
        var waited = 0
        while groupRuns(), waited < 1000 { usleep(10_000); waited += 1 }
        return !finished && (status & 0x7f) == SIGKILL
    }

    /// Whether a process of the group is alive (not yet dead, or a zombie nobody reaped).
    private func groupRuns() -> Bool {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            // "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after its ")".
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 2, fields[2] == Substring(String(pid)), fields[0] != "Z" { return true }
        }
        return false
    }
}
