import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// latest.json as a hostile or broken server may send it (issue 50): bounded as it comes,
/// a redirect loop not retried, a number out of range or a URL where a path belongs named
/// at its field. The app's database is untouched every time.
extension BundleClientTests {
    /// The client with a body limit far above the manifest's own.
    func roomyClient() -> BundleClient {
        client(options: TransferOptions(connectTimeout: 1, totalTimeout: 10, maxBytes: 1 << 26, attempts: 3, backoff: 0.05))
    }

    /// latest.json swollen past 1 MiB: sent without a length (a stream), and gzip-encoded
    /// (4 KiB on the wire): refused at the manifest's own limit, once, whatever --max-bytes allows.
    func testALatestJSONPastTheDocumentLimitIsRefusedAsItComes() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        let path = scratch + "/dist/latest.json"
        let latest = try Files.read(path)
        try Files.write(Array(latest.dropLast()) + [UInt8](repeating: 0x20, count: 4 << 20) + [0x0A], to: path)
        for fault in ["no-length", "gzip-encoding"] {
            server.clearLog()
            try server.setFaults(["/latest.json": fault])
            try assertFailsUntouched(roomyClient()) { error in
                XCTAssertEqual(error, .tooLarge(url: server.baseURL + "/latest.json", limit: TransferFailure.documentLimit), fault)
                XCTAssertEqual(error.exitStatus, .environment)
            }
            XCTAssertEqual(server.requests(), ["/latest.json 200"], "\(fault): one attempt")
        }
    }

    /// latest.json redirected to itself: a loop is the server's doing, said once, not retried.
    func testARedirectLoopIsNotRetried() throws {
        try installVersion1WithCompletions()
        try fixture.publish(3)
        try server.setFaults(["/latest.json": "redirect:\(server.baseURL)/latest.json"])
        try assertFailsUntouched(roomyClient()) { error in
            XCTAssertEqual(error, .tooManyRedirects(url: server.baseURL + "/latest.json", limit: 5))
            XCTAssertEqual(error.exitStatus, .environment)
        }
        XCTAssertEqual(server.requests(), Array(repeating: "/latest.json 302", count: 6), "the first request and 5 redirects, once")
    }

    /// Each value no reader takes as written, and a URL where latest.json names a file of the
    /// dist: refused as the dist's latest.json (exit 2), naming the field and what is wrong.
    func testAValueOutOfRangeOrAURLIsNamedAtItsField() throws {
        try fixture.publish(1)
        let path = scratch + "/dist/latest.json"
        let published = try String(contentsOfFile: path, encoding: .utf8)
        let cases: [(field: String, value: String, reason: String)] = [
            ("version", "99999999999999999999", "version: 99999999999999999999 is out of range: no reader takes it as written"),
            ("bytes", "1e400", "bytes: 1e400 is out of range: no reader takes it as written"),
            ("gzip_bytes", "18446744073709551616", "gzip_bytes: 18446744073709551616 is out of range: no reader takes it as written"),
            ("gzip", "\"file:///etc/passwd\"", "gzip: \"file:///etc/passwd\" is a URL (file:), not a path: a dist names its files by their path inside it, as 3/stations.sqlite.gz"),
        ]
        for (field, value, reason) in cases {
            let line = try XCTUnwrap(published.split(separator: "\n").first { $0.hasPrefix("  \"\(field)\" : ") }, field)
            try published.replacingOccurrences(of: line, with: "  \"\(field)\" : \(value)" + (line.hasSuffix(",") ? "," : "")).write(toFile: path, atomically: true, encoding: .utf8)
            try assertFailsUntouched(client()) { error in
                guard case .badContent(_, let file, let said) = error else { return XCTFail("\(field): expected not a dist's latest.json, got \(error)") }
                XCTAssertEqual(file, "latest.json")
                XCTAssertEqual(said, reason + "; is this the dist/ folder of a build?", field)
                XCTAssertEqual(error.exitStatus, .badInput, field)
            }
        }
    }
}
