import Foundation
import StationIO
import StationModel
import XCTest
@testable import Transfer

/// `stationdb fetch`'s per-source download against a real HTTP server.
final class SourceFetcherTests: XCTestCase {
    var scratch = ""
    var server: TestServer!
    var raw = ""
    var site = ""

    let ekidataFiles = ["company.csv", "line.csv", "station.csv", "join.csv"]
    let n02Text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ksj:Dataset>" + String(repeating: "<ksj:Station/>\n", count: 400) + "</ksj:Dataset>\n"

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "transfer-fetch-\(UUID().uuidString)"
        site = scratch + "/site"
        raw = scratch + "/raw"
        try Files.createFolder(site + "/ekidata")
        try Files.createFolder(raw)
        for name in ekidataFiles {
            try "header_\(name)\n1,東京,\"quoted, field\"\n".write(toFile: "\(site)/ekidata/\(name)", atomically: true, encoding: .utf8)
        }
        try n02Text.write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)
        _ = try Gzip.compress(fileAt: site + "/N02.xml", to: site + "/N02.xml.gz")
        server = try TestServer(root: site, scratch: scratch)
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(atPath: scratch)
    }

    func fetcher(maxBytes: Int = 1 << 20, attempts: Int = 3) -> SourceFetcher {
        SourceFetcher(http: HTTPClient(options: TransferOptions(connectTimeout: 1, totalTimeout: 1, maxBytes: maxBytes, attempts: attempts, backoff: 0.05)))
    }

    var ekidataSource: [RemoteFile] {
        ekidataFiles.map { RemoteFile(url: server.baseURL + "/ekidata/" + $0, path: raw + "/ekidata/" + $0) }
    }

    func rawSnapshot() throws -> [String: String] {
        var out: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: raw)!
        while let name = enumerator.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: raw + "/" + name, isDirectory: &isDir), !isDir.boolValue {
                out[name] = try SHA256.hex(fileAt: raw + "/" + name)
            }
        }
        return out
    }

    func assertFailsUntouched(_ files: [RemoteFile], _ fetcher: SourceFetcher, file: StaticString = #filePath, line: UInt = #line,
                              _ check: (TransferError) -> Void) throws {
        let before = try rawSnapshot()
        XCTAssertThrowsError(try fetcher.fetch(files), file: file, line: line) { error in
            guard let error = error as? TransferError else { return XCTFail("not a TransferError: \(error)", file: file, line: line) }
            check(error)
        }
        XCTAssertEqual(try rawSnapshot(), before, "raw/ changed after a failed fetch", file: file, line: line)
    }

    func testFirstFetchThenConditionalGetCostsOne304PerFile() throws {
        let first = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(first.count, 4)
        for (report, name) in zip(first, ekidataFiles) {
            let path = raw + "/ekidata/" + name
            XCTAssertEqual(FileManager.default.contents(atPath: path), FileManager.default.contents(atPath: site + "/ekidata/" + name))
            let sha = try SHA256.hex(fileAt: path)
            guard case .downloaded(let bytes, let reportedSHA) = report.outcome else { return XCTFail("expected a download") }
            XCTAssertEqual(reportedSHA, sha)
            let state = try XCTUnwrap(FetchedFileState.load(for: path, url: report.file.url))
            XCTAssertEqual(state.sha256, sha)
            XCTAssertEqual(state.bytes, bytes)
            XCTAssertNotNil(state.etag)
            XCTAssertEqual(state.lastModified, "Mon, 01 Jan 2024 00:00:00 GMT")
        }
        server.clearLog()
        let before = try rawSnapshot()
        let second = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(second.map(\.outcome), Array(repeating: .unchanged, count: 4))
        XCTAssertEqual(server.requests(), ekidataFiles.map { "/ekidata/\($0) 304" })
        XCTAssertEqual(try rawSnapshot(), before)
    }

    func testAChangedFileIsDownloadedAgain() throws {
        _ = try fetcher().fetch(ekidataSource)
        try "header\n2,神田,\n".write(toFile: site + "/ekidata/station.csv", atomically: true, encoding: .utf8)
        let reports = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(reports.filter { $0.outcome != .unchanged }.map(\.file.path), [raw + "/ekidata/station.csv"])
        XCTAssertEqual(try String(contentsOfFile: raw + "/ekidata/station.csv", encoding: .utf8), "header\n2,神田,\n")
    }

    func testGzipBodiesAreStoredInflated() throws {
        let target = raw + "/N02-stations.xml"
        _ = try fetcher().fetch([RemoteFile(url: server.baseURL + "/N02.xml.gz", path: target)])
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), n02Text)
        XCTAssertEqual(FetchedFileState.load(for: target, url: server.baseURL + "/N02.xml.gz")?.sha256, try SHA256.hex(fileAt: target))

        // Content-Encoding: gzip is undone by libcurl.
        try server.setFaults(["/N02.xml": "gzip-encoding"])
        let plain = raw + "/plain.xml"
        _ = try fetcher().fetch([RemoteFile(url: server.baseURL + "/N02.xml", path: plain)])
        XCTAssertEqual(try String(contentsOfFile: plain, encoding: .utf8), n02Text)
    }

    func testA404LeavesTheWholeSourceAsItWas() throws {
        _ = try fetcher().fetch(ekidataSource)
        try "header\nnew\n".write(toFile: site + "/ekidata/company.csv", atomically: true, encoding: .utf8)
        try server.setFaults(["/ekidata/join.csv": "404"])
        server.clearLog()
        // company.csv downloads fine, join.csv is missing: neither replaces anything.
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            XCTAssertEqual(error, .httpStatus(url: server.baseURL + "/ekidata/join.csv", status: 404))
            XCTAssertEqual(error.exitStatus, .badInput)
        }
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/ekidata/join.csv") }, ["/ekidata/join.csv 404"])
    }

    func testA500ThenSuccess() throws {
        try server.setFaults(["/ekidata/line.csv": "500-once"])
        let reports = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(reports.count, 4)
        XCTAssertEqual(server.requests().filter { $0.hasPrefix("/ekidata/line.csv") }, ["/ekidata/line.csv 500", "/ekidata/line.csv 200"])
        XCTAssertEqual(FileManager.default.contents(atPath: raw + "/ekidata/line.csv"), FileManager.default.contents(atPath: site + "/ekidata/line.csv"))
    }

    func testNetworkFailuresKeepTheOldFiles() throws {
        _ = try fetcher().fetch(ekidataSource)
        for name in ekidataFiles {
            try "header\nchanged\n".write(toFile: site + "/ekidata/" + name, atomically: true, encoding: .utf8)
        }
        try server.setFaults(["/ekidata/station.csv": "truncate"])
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            guard case .network(_, 18, _) = error else { return XCTFail("expected a partial file, got \(error)") }
            XCTAssertEqual(error.exitStatus, .environment)
        }
        try server.setFaults(["/ekidata/station.csv": "500"])
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            XCTAssertEqual(error, .httpStatus(url: server.baseURL + "/ekidata/station.csv", status: 500))
        }
        try server.setFaults(["/ekidata/station.csv": "slow"])
        try assertFailsUntouched(ekidataSource, fetcher(attempts: 1)) { error in
            XCTAssertEqual(error, .timedOut(url: server.baseURL + "/ekidata/station.csv", seconds: 1))
        }
        try server.setFaults([:])
        try assertFailsUntouched(ekidataSource, fetcher(maxBytes: 10)) { error in
            guard case .tooLarge = error else { return XCTFail("expected too large, got \(error)") }
        }
        let deadBase = server.baseURL
        server.stop()
        try assertFailsUntouched(ekidataSource.map { RemoteFile(url: $0.url.replacingOccurrences(of: deadBase, with: deadBase), path: $0.path) }, fetcher()) { error in
            guard case .network(_, 7, _) = error else { return XCTFail("expected connection refused, got \(error)") }
        }
    }

    func testACorruptGzipKeepsTheOldFile() throws {
        let target = raw + "/N02-stations.xml"
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try server.setFaults(["/N02.xml.gz": "corrupt"])
        try assertFailsUntouched([RemoteFile(url: server.baseURL + "/N02.xml.gz", path: target)], fetcher()) { error in
            guard case .corrupt = error else { return XCTFail("expected a corrupt gzip, got \(error)") }
        }
    }
}
