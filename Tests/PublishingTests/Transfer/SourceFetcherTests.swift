import Foundation
import Ingest
import Publishing
import StationCore
import XCTest

/// `stationdb fetch`'s per-source download against a real HTTP server.
final class SourceFetcherTests: XCTestCase {
    var scratch = ""
    var server: TestServer!
    var raw = ""
    var site = ""

    let ekidataFiles = ["company.csv", "line.csv", "station.csv", "join.csv"]
    /// Each file of the ekidata fixture: the columns EkidataReader requires, and one row.
    static let ekidataColumns: [String: [String]] = [
        "company.csv": ["company_cd", "company_name", "company_type", "e_status"],
        "line.csv": ["line_cd", "company_cd", "line_name", "e_status"],
        "station.csv": ["station_cd", "station_g_cd", "station_name", "line_cd", "pref_cd", "lon", "lat", "e_status"],
        "join.csv": ["line_cd", "station_cd1", "station_cd2"],
    ]
    static let ekidataBodies: [String: String] = [
        "company.csv": "company_cd,rr_cd,company_name,company_type,e_status\n1,11,JR北海道,1,0\n",
        "line.csv": "line_cd,company_cd,line_name,e_status\n11101,1,\"函館本線, 函館-長万部\",0\n",
        "station.csv": "station_cd,station_g_cd,station_name,line_cd,pref_cd,lon,lat,e_status\n1110101,1110101,函館,11101,1,140.726413,41.773709,0\n"
            + "1110102,1110102,五稜郭,11101,1,140.733539,41.803557,0\n",
        "join.csv": "line_cd,station_cd1,station_cd2\n11101,1110101,1110102\n",
    ]
    let n02Text = FetchCommandTests.n02()
    /// A process id no process has: what a killed run left its temporary names with.
    let deadPID = Int(Int32.max)

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "transfer-fetch-\(UUID().uuidString)"
        site = scratch + "/site"
        raw = scratch + "/raw"
        try Files.createFolder(site + "/ekidata")
        try Files.createFolder(raw)
        for name in ekidataFiles {
            try serve(name, SourceFetcherTests.ekidataBodies[name]!)
        }
        try n02Text.write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)
        _ = try Gzip.compress(fileAt: site + "/N02.xml", to: site + "/N02.xml.gz")
        server = try TestServer(root: site, scratch: scratch)
    }

    /// Puts `text` on the site as ekidata's `name`.
    func serve(_ name: String, _ text: String) throws {
        try text.write(toFile: "\(site)/ekidata/\(name)", atomically: true, encoding: .utf8)
    }

    /// The fixture's file `name` with its first row changed: a new version of it.
    func changed(_ name: String) -> String {
        SourceFetcherTests.ekidataBodies[name]!.replacingOccurrences(of: "\n1", with: "\n2")
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(atPath: scratch)
    }

    /// Fast retries; a time limit far past what a download from this machine takes, however
    /// loaded it is, but for a test of the limit itself.
    func fetcher(maxBytes: Int = 1 << 20, attempts: Int = 3, seconds: Double = 60) -> SourceFetcher {
        SourceFetcher(http: HTTPClient(options: TransferOptions(connectTimeout: min(10, seconds), totalTimeout: seconds, maxBytes: maxBytes, attempts: attempts, backoff: 0.05)))
    }

    /// A file of a source: a CSV with the columns its reader requires, or (columns nil) an N02 document.
    func remote(_ url: String, _ path: String, columns: [String]?) -> RemoteFile {
        RemoteFile(url: url, path: path, format: columns.map { .csv(requiredColumns: $0) } ?? .n02)
    }

    var ekidataSource: [RemoteFile] {
        ekidataFiles.map { remote(server.baseURL + "/ekidata/" + $0, raw + "/ekidata/" + $0, columns: SourceFetcherTests.ekidataColumns[$0]) }
    }

    func n02Source(_ urlPath: String = "/N02.xml", to name: String = "N02-stations.xml") -> [RemoteFile] {
        [remote(server.baseURL + urlPath, raw + "/" + name, columns: nil)]
    }

    func rawSnapshot() throws -> [String: String] {
        var out: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: raw)!
        while let name = enumerator.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: raw + "/" + name, isDirectory: &isDir) {
                out[name] = isDir.boolValue ? "folder" : try SHA256.hex(fileAt: raw + "/" + name)
            }
        }
        return out
    }

    func assertFailsUntouched(_ files: [RemoteFile], _ fetcher: SourceFetcher, file: StaticString = #filePath, line: UInt = #line,
                              _ check: (TransferFailure) -> Void) throws {
        let before = try rawSnapshot()
        XCTAssertThrowsError(try fetcher.fetch(files), file: file, line: line) { error in
            guard let error = (error as? StationError)?.transfer else { return XCTFail("not a TransferFailure: \(error)", file: file, line: line) }
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
        try serve("station.csv", changed("station.csv"))
        let reports = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(reports.filter { $0.outcome != .unchanged }.map(\.file.path), [raw + "/ekidata/station.csv"])
        XCTAssertEqual(try String(contentsOfFile: raw + "/ekidata/station.csv", encoding: .utf8), changed("station.csv"))
    }

    func testGzipBodiesAreStoredInflated() throws {
        let target = raw + "/N02-stations.xml"
        _ = try fetcher().fetch(n02Source("/N02.xml.gz"))
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), n02Text)
        XCTAssertEqual(FetchedFileState.load(for: target, url: server.baseURL + "/N02.xml.gz")?.sha256, try SHA256.hex(fileAt: target))

        // Content-Encoding: gzip is undone by libcurl.
        try server.setFaults(["/N02.xml": "gzip-encoding"])
        let plain = raw + "/plain.xml"
        _ = try fetcher().fetch(n02Source("/N02.xml", to: "plain.xml"))
        XCTAssertEqual(try String(contentsOfFile: plain, encoding: .utf8), n02Text)
    }

    func testA404LeavesTheWholeSourceAsItWas() throws {
        _ = try fetcher().fetch(ekidataSource)
        try serve("company.csv", changed("company.csv"))
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
            try serve(name, changed(name))
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
        try assertFailsUntouched(ekidataSource, fetcher(attempts: 1, seconds: 1)) { error in
            XCTAssertEqual(error, .timedOut(url: server.baseURL + "/ekidata/station.csv", seconds: 1))
        }
        try server.setFaults([:])
        try assertFailsUntouched(ekidataSource, fetcher(maxBytes: 10)) { error in
            guard case .tooLarge = error else { return XCTFail("expected too large, got \(error)") }
        }
        server.stop()
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            guard case .network(_, 7, _) = error else { return XCTFail("expected connection refused, got \(error)") }
        }
    }

    func testACorruptGzipKeepsTheOldFile() throws {
        let target = raw + "/N02-stations.xml"
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        try server.setFaults(["/N02.xml.gz": "corrupt"])
        try assertFailsUntouched(n02Source("/N02.xml.gz"), fetcher()) { error in
            guard case .corrupt = error else { return XCTFail("expected a corrupt gzip, got \(error)") }
        }
    }

    /// The campaign's bomb: a gzip whose trailer claims 2,007,040 bytes inflated to
    /// 1.07 GB under the default limit. The trailer's claim caps the inflate.
    func testAGzipBombStopsNearItsTrailersSize() throws {
        let target = raw + "/N02-stations.xml"
        try "old".write(toFile: target, atomically: true, encoding: .utf8)
        let zeros = scratch + "/zeros"
        try Files.write([UInt8](repeating: 0x20, count: 8 << 20), to: zeros)
        _ = try Gzip.compress(fileAt: zeros, to: site + "/bomb.xml.gz")
        let claimed = 2_007_040
        XCTAssertEqual(Gzip.declaredSize(ofFileAt: site + "/bomb.xml.gz"), 8 << 20)
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: site + "/bomb.xml.gz"))
        handle.seekToEndOfFile()
        handle.seek(toFileOffset: handle.offsetInFile - 4)
        handle.write(Data((0..<4).map { UInt8(truncatingIfNeeded: claimed >> (8 * $0)) }))
        handle.closeFile()
        XCTAssertEqual(Gzip.declaredSize(ofFileAt: site + "/bomb.xml.gz"), claimed)
        try assertFailsUntouched(n02Source("/bomb.xml.gz"), fetcher(maxBytes: 64 << 20)) { error in
            guard case .corrupt(_, let reason) = error else { return XCTFail("expected the claim to stop it, got \(error)") }
            XCTAssertTrue(reason.contains("past the \(claimed) bytes its gzip trailer declares (stopped at \(claimed + HTTPClient.declaredSizeSlack))"), reason)
            XCTAssertEqual(error.exitStatus, .environment)
        }
        XCTAssertEqual(Files.names(in: raw).sorted(), ["N02-stations.xml"], "no staging left behind")
    }

    // MARK: - Each file is checked as its source's format before anything is replaced

    func testAMaintenancePageReplacesNothing() throws {
        _ = try fetcher().fetch(ekidataSource)
        try serve("company.csv", changed("company.csv"))
        try serve("station.csv", "<html>maintenance</html>\n")
        server.clearLog()
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            XCTAssertEqual(error.exitStatus, .badInput)
            let message = error.description
            XCTAssertTrue(message.contains(server.baseURL + "/ekidata/station.csv"), message)
            XCTAssertTrue(message.contains(raw + "/ekidata/station.csv"), message)
            XCTAssertTrue(message.contains("station_cd"), message)
            XCTAssertFalse(message.contains("<html>maintenance</html>"), "an unreadable header is never echoed: \(message)")
        }
        // company.csv arrived whole and valid, but its source is replaced together or not at all.
        XCTAssertEqual(try String(contentsOfFile: raw + "/ekidata/company.csv", encoding: .utf8), SourceFetcherTests.ekidataBodies["company.csv"])
    }

    func testACSVThatIsNotItsSourcesFormatIsRefused() throws {
        _ = try fetcher().fetch(ekidataSource)
        let header = "station_cd,station_g_cd,station_name,line_cd,pref_cd,lon,lat,e_status\n"
        let cases: [(body: [UInt8], why: String)] = [
            (Array("station_cd,station_g_cd,station_name,line_cd,pref_cd,lon,e_status\n1,1,函館,1,1,140.7,0\n".utf8), "lat"),
            (Array(header.utf8), "no rows"),
            (Array(header.utf8) + Array("1,1,".utf8) + [0x94, 0x9F, 0x8A, 0xD9] + Array(",1,1,140.7,41.7,0\n".utf8), "UTF-8"),
            (Array((header + "1,1,\"函館,1,1,140.7,41.7,0\n").utf8), "quote"),
            (Array((header + "1,1,函館\n").utf8), "fields"),
            (Array((String(repeating: "x", count: 100_000) + "\n1\n").utf8), "missing columns"),
        ]
        for (body, why) in cases {
            try Data(body).write(to: URL(fileURLWithPath: site + "/ekidata/station.csv"))
            try assertFailsUntouched(ekidataSource, fetcher()) { error in
                XCTAssertEqual(error.exitStatus, .badInput, "\(why): \(error)")
                XCTAssertTrue(error.description.contains(why), "expected \"\(why)\" in: \(error)")
                XCTAssertTrue(error.description.contains(raw + "/ekidata/station.csv"), error.description)
                XCTAssertLessThan(error.description.count, 900, "a long value (a 100,000-byte header) is cut: \(error.description.prefix(300))")
            }
        }
    }

    func testAnN02FileMustBeTheN02Dataset() throws {
        let target = raw + "/N02-stations.xml"
        _ = try fetcher().fetch(n02Source())
        let whole = FetchCommandTests.n02()
        let cases: [(body: String, why: String)] = [
            ("<html>maintenance</html>\n", "html"),
            ("<?xml version=\"1.0\"?>\n<gml:FeatureCollection xmlns:gml=\"http://www.opengis.net/gml/3.2\"></gml:FeatureCollection>\n", "FeatureCollection"),
            ("<?xml version=\"1.0\"?>\n<Dataset xmlns=\"urn:something-else\"></Dataset>\n", "expected ksj:Dataset"),
            (String(whole.dropLast(40)), "line"),
            ("station_cd,station_name\n1,函館\n", "line 1"),
        ]
        for (body, why) in cases {
            try body.write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)
            try assertFailsUntouched(n02Source(), fetcher()) { error in
                XCTAssertEqual(error.exitStatus, .badInput, "\(why): \(error)")
                XCTAssertTrue(error.description.contains(why), "expected \"\(why)\" in: \(error)")
                XCTAssertTrue(error.description.contains(target), error.description)
            }
        }
        // A comment before the root and after it are still the document N02Reader reads.
        let good = whole.replacingOccurrences(of: "?>\n", with: "?>\n<!-- <gml:Other> -->\n") + "<!-- end -->\n"
        try good.write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)
        _ = try fetcher().fetch(n02Source())
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), good)
    }

    // MARK: - A kill at any moment leaves the source all old or all new

    /// What a fetch killed after staging every file (and, with `journal`, after
    /// naming them in its journal) leaves in `folder`: `.fetch-<pid>/` holding the
    /// new files and their states, and `journal` listing them, one name a line.
    func leaveKilledFetch(of files: [RemoteFile], in folder: String, journal: Bool) throws -> String {
        let staging = folder + "/.fetch-\(deadPID)"
        try Files.createFolder(staging)
        var names: [String] = []
        for file in files {
            let name = fileName(of: file.path)
            let bytes = try Files.read(site + "/ekidata/" + name)
            try Files.write(bytes, to: staging + "/" + name)
            let state = FetchedFileState(url: file.url, etag: nil, lastModified: nil, sha256: SHA256.hex(bytes), bytes: bytes.count)
            try state.save(for: staging + "/" + name)
            names += [name, name + FetchedFileState.suffix]
        }
        if journal {
            try Files.write(Array(names.map { $0 + "\n" }.joined().utf8), to: staging + "/journal")
        }
        return staging
    }

    func testAKillDuringTheCommitIsCompletedByTheNextFetch() throws {
        _ = try fetcher().fetch(ekidataSource)
        for name in ekidataFiles { try serve(name, changed(name)) }
        let folder = raw + "/ekidata"
        let staging = try leaveKilledFetch(of: ekidataSource, in: folder, journal: true)
        // Killed after two of the renames: company.csv and its state are new, the rest old.
        for name in ["company.csv", "company.csv.etag"] {
            XCTAssertEqual(rename(staging + "/" + name, folder + "/" + name), 0)
        }
        XCTAssertEqual(try String(contentsOfFile: folder + "/company.csv", encoding: .utf8), changed("company.csv"))
        XCTAssertEqual(try String(contentsOfFile: folder + "/station.csv", encoding: .utf8), SourceFetcherTests.ekidataBodies["station.csv"])
        // Until a fetch completes it, ingest refuses the half-replaced source.
        let source = SourceDeclaration(kind: .ekidata, path: "ekidata")
        XCTAssertThrowsError(try IngestPipeline.read(source, options: IngestOptions(rawFolder: raw))) { error in
            XCTAssertNotNil(error.station(.badInput), "\(error)")
            XCTAssertTrue("\(error)".contains("journal remains") && "\(error)".contains("stationdb fetch"), "\(error)")
        }

        server.clearLog()
        let reports = try fetcher().fetch(ekidataSource)
        // The next fetch first completes the commit, then finds every file up to date.
        XCTAssertEqual(reports.map(\.outcome), Array(repeating: .unchanged, count: 4))
        for name in ekidataFiles {
            XCTAssertEqual(try String(contentsOfFile: folder + "/" + name, encoding: .utf8), changed(name), name)
        }
        XCTAssertEqual(Files.names(in: folder), ekidataFiles.flatMap { [$0, $0 + ".etag"] }.sorted(), "leftovers remain")
    }

    func testAFolderWhereAFileBelongsReplacesNothing() throws {
        _ = try fetcher().fetch(ekidataSource)
        for name in ekidataFiles { try serve(name, changed(name)) }
        let station = raw + "/ekidata/station.csv"
        try FileManager.default.removeItem(atPath: station)
        try Files.createFolder(station)
        try assertFailsUntouched(ekidataSource, fetcher()) { error in
            XCTAssertEqual(error.exitStatus, .badInput, "\(error)")
            XCTAssertTrue(error.description.contains(station + ": not a file"), error.description)
        }
        XCTAssertEqual(try String(contentsOfFile: raw + "/ekidata/company.csv", encoding: .utf8), SourceFetcherTests.ekidataBodies["company.csv"])
    }

    func testAKillBeforeTheJournalLeavesTheOldFilesAndNoLeftovers() throws {
        _ = try fetcher().fetch(ekidataSource)
        let before = try rawSnapshot()
        let folder = raw + "/ekidata"
        for name in ekidataFiles { try serve(name, changed(name)) }
        _ = try leaveKilledFetch(of: ekidataSource, in: folder, journal: false)
        // Temporary files under the names earlier versions of fetch used.
        for name in ["station.csv", "station.csv.etag"] {
            try Files.write([1, 2, 3], to: folder + "/.\(name).tmp-\(deadPID)")
        }
        try Files.write([1, 2, 3], to: folder + "/.station.csv.tmp-\(deadPID).part")
        for name in ekidataFiles { try serve(name, SourceFetcherTests.ekidataBodies[name]!) }

        let reports = try fetcher().fetch(ekidataSource)
        XCTAssertEqual(reports.map(\.outcome), Array(repeating: .unchanged, count: 4))
        XCTAssertEqual(try rawSnapshot(), before, "the staged files of the killed run were committed, or leftovers remain")
    }

    func testAnotherRunningFetchKeepsItsFiles() throws {
        _ = try fetcher().fetch(ekidataSource)
        let folder = raw + "/ekidata"
        // Process 1 is alive: its staging folder belongs to a fetch still running.
        try Files.createFolder(folder + "/.fetch-1")
        try Files.write([1], to: folder + "/.fetch-1/station.csv")
        _ = try fetcher().fetch(ekidataSource)
        XCTAssertTrue(Files.exists(folder + "/.fetch-1/station.csv"))
    }
}
