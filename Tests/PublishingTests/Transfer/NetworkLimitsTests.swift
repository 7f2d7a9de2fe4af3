import Foundation
import Glibc
import Publishing
import StationCore
import TestSupport
import XCTest

/// What a server may not make a download do: speak another protocol, hold it past its
/// time, or write into the log what it likes.
extension BundleClientTests {
    /// A TCP port on 127.0.0.1 that listens and never answers, to see whether anyone called.
    final class Listener {
        let fd: Int32
        let port: Int
        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.fd = fd
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, $0, &length) == 0 }
            }
            guard bound else { throw POSIXError(.EADDRINUSE) }
            port = Int(UInt16(bigEndian: address.sin_port))
        }
        /// Whether a connection is waiting to be accepted.
        var wasCalled: Bool {
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return poll(&ready, 1, 0) > 0
        }
        deinit { close(fd) }
    }

    func testARedirectToAnotherProtocolIsRefusedAtOnce() throws {
        let ftp = try Listener()
        let location = "ftp://127.0.0.1:\(ftp.port)/x"
        try installVersion1WithCompletions()
        try fixture.publish(3)
        // latest.json, the URL given: the URL serves no dist over HTTP (exit 2), one attempt.
        try server.setFaults(["/latest.json": "redirect:\(location)"])
        try assertFailsUntouched(client()) { error in
            XCTAssertEqual(error, .notHTTP(url: server.baseURL + "/latest.json", location: location))
            XCTAssertEqual(error.exitStatus, .badInput)
        }
        XCTAssertEqual(server.requests(), ["/latest.json 302"], "one attempt, not a retry per attempt")
        // The gzip latest.json names: a damaged dist (exit 3), one attempt.
        server.clearLog()
        try server.setFaults(["/3/stations.sqlite.gz": "redirect:\(location)"])
        try assertFailsUntouched(client()) { error in
            guard case .corrupt(let what, _) = error else { return XCTFail("expected a damaged dist, got \(error)") }
            XCTAssertEqual(what, server.baseURL + "/3/stations.sqlite.gz")
            XCTAssertEqual(error.exitStatus, .environment)
        }
        XCTAssertEqual(server.requests(), ["/latest.json 200", "/3/stations.sqlite.gz 302"])
        XCTAssertFalse(ftp.wasCalled, "libcurl followed the redirect to ftp://")
        // A source's URL (fetch) goes through the same client.
        XCTAssertThrowsError(try HTTPClient(options: Self.fastOptions).download(server.baseURL + "/3/stations.sqlite.gz", to: scratch + "/x")) {
            XCTAssertEqual(($0 as? StationError)?.transfer, .notHTTP(url: server.baseURL + "/3/stations.sqlite.gz", location: location))
        }
        XCTAssertFalse(ftp.wasCalled)
    }

    /// A length far past --max-bytes, and no body: it waited out the time limit and said
    /// "try again later". The header alone refuses it, at once and without a retry: too
    /// large (a client that waited for the body would have timed out), long before the limit.
    func testALengthPastTheLimitIsRefusedAtOnce() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/latest.json": "claims-3GB"])
        let started = Date()
        try assertFailsUntouched(client(options: TransferOptions(connectTimeout: 10, totalTimeout: 60, maxBytes: 1 << 20, attempts: 3, backoff: 0.05))) { error in
            XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/latest.json", limit: 1 << 20))
        }
        // Half the limit: far past one request's time on a loaded machine, far short of waiting the limit out.
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        XCTAssertEqual(server.requests(), ["/latest.json 200"], "one attempt")
    }

    /// --timeout is each file's, whole: a server that drips, or holds a body without a
    /// length open, is given up on at that time, not that time once per attempt. The first
    /// attempt spends the file's time, so none is left for a retry: one request, however
    /// long the machine took (a limit per attempt made three).
    func testEachFileHasOneTimeLimitRetriesIncluded() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        let options = TransferOptions(connectTimeout: 1, totalTimeout: 2, maxBytes: 1 << 20, attempts: 3, backoff: 0.05)
        for fault in ["drip", "no-length"] {
            try server.setFaults(["/latest.json": fault])
            server.clearLog()
            try assertFailsUntouched(client(options: options)) { error in
                XCTAssertEqual(error, .timedOut(url: server.baseURL + "/latest.json", seconds: 2), fault)
                XCTAssertEqual(error.exitStatus, .environment)
            }
            XCTAssertEqual(server.requests(), ["/latest.json 200"], "\(fault): the limit held for each attempt, not for the file")
        }
        // Each retry is told.
        try server.setFaults(["/latest.json": "500-once"])
        let (_, events) = try Events.collect {
            try client(options: TransferOptions(connectTimeout: 10, totalTimeout: 60, maxBytes: 1 << 20, attempts: 3, backoff: 0.05)).pull()
        }
        XCTAssertEqual(events.compactMap { $0 as? Retrying }, [Retrying(error: .httpStatus(url: server.baseURL + "/latest.json", status: 500), seconds: 0.05)])
    }

    func testAJSONErrorIsSaidWhole() throws {
        try fixture.publish(1)
        let path = scratch + "/dist/latest.json"
        var latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        latest["gzip_sha256"] = 7
        try JSONSerialization.data(withJSONObject: latest).write(to: URL(fileURLWithPath: path))
        try assertFailsUntouched(client()) { error in
            guard case .badContent(_, let file, let reason) = error else { return XCTFail("expected not a dist's latest.json, got \(error)") }
            XCTAssertEqual(file, "latest.json")
            XCTAssertTrue(reason.hasPrefix("gzip_sha256: expected a string"), reason)
            XCTAssertEqual(error.exitStatus, .badInput, "the URL serves no dist")
        }
    }

    /// stationdb itself, against the test server, with a time limit of its own.
    func stationdb(_ arguments: [String]) throws -> TimedRun {
        try runWithTimeout(try BuiltTools.stationdb(), arguments, in: scratch, timeout: 60)
    }

    func testAServersTextCannotForgeALogLine() throws {
        try fixture.publish(1)
        let path = scratch + "/dist/latest.json"
        var latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
        latest["gzip"] = "1/x\r\nerror: forged\u{1B}[2J"
        try JSONSerialization.data(withJSONObject: latest).write(to: URL(fileURLWithPath: path))
        let run = try stationdb(["pull", server.baseURL, "--db", local, "--attempts", "1"])
        // A path with a line break is no path inside a dist: latest.json is refused as no dist's (exit 2).
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertFalse(run.err.split(separator: "\n").contains { $0.hasPrefix("error: forged") }, run.err)
        XCTAssertFalse(run.err.contains("\r") || run.err.contains("\u{1B}"), run.err)
    }

    func testPlanTakesPullsTransferOptionsAndSaysEachRetry() throws {
        let raw = scratch + "/raw"
        try SmallNetwork.write(to: raw)
        try fixture.publish(1)
        let plan = ["plan", "--raw", raw, "--build", scratch + "/build", "--dist", scratch + "/local-dist", "--against", server.baseURL]
        try server.setFaults(["/latest.json": "drip"])
        var run = try stationdb(plan + ["--timeout", "2", "--attempts", "3", "--backoff", "0.1"])
        XCTAssertEqual(run.status, 3, run.err)
        // --timeout reached the download: its 2 s, for the file whole (one request, no retry after it).
        XCTAssertTrue(run.err.contains("\(server.baseURL)/latest.json: no complete answer within 2 s"), run.err)
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/latest.json ") }, ["/latest.json 200"], run.err)
        try server.setFaults(["/latest.json": "500"])
        run = try stationdb(plan + ["--attempts", "3", "--backoff", "0.1"])
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertEqual(run.err.split(separator: "\n").filter { $0.contains("retrying") }.count, 2, run.err)
    }

    /// pull's own help suggests a server for this machine only, not every interface.
    func testPullsHelpSuggestsALocalServer() throws {
        let help = try stationdb(["pull", "--help"]).out
        let servers = help.split(separator: "\n").filter { $0.contains("http.server") }
        XCTAssertFalse(servers.isEmpty, help)
        XCTAssertTrue(servers.allSatisfy { $0.contains("--bind 127.0.0.1") }, help)
    }

    /// Values no download can be given are refused before anything starts (they trapped).
    func testTransferOptionsOutOfRangeAreBadInput() throws {
        let raw = scratch + "/raw"
        try Files.createFolder(raw)
        try "{ \"sources\": [ { \"kind\": \"n02\", \"path\": \"N02.xml\", \"url\": \"\(server.baseURL)/N02.xml\" } ] }"
            .write(toFile: raw + "/sources.json", atomically: true, encoding: .utf8)
        try fixture.publish(1)
        let commands = [["pull", server.baseURL, "--db", local], ["fetch", "--raw", raw],
                        ["deploy", scratch + "/dist", scratch + "/www", "--check", server.baseURL],
                        ["plan", "--raw", raw, "--build", scratch + "/build", "--against", server.baseURL]]
        for command in commands {
            for option in [["--timeout", "1e300"], ["--connect-timeout", "inf"], ["--timeout", "nan"], ["--backoff", "1e300"], ["--timeout", "0"]] {
                let run = try stationdb(command + option)
                XCTAssertEqual(run.status, 2, "\(command[0]) \(option): \(run.err)")
            }
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: raw), ["sources.json"], "a fetch left files")
        XCTAssertEqual(server.requests(), [], "nothing was downloaded")
    }
}
