import Foundation
import Publishing
import StationCore
import TestSupport
import XCTest

/// `stationdb fetch` of the upstream, as its events tell it: the first fetch of a fresh
/// clone (raw/ at v20260227, no .etag files) printed bytes and sha256 for every file, the
/// unchanged ones too, and never said which release raw/ went to.
final class UpstreamFetchTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("upstream-fetch-\(UUID().uuidString)").path
        try Files.createFolder(folder + "/raw")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabaseEarlier, toPath: folder + "/raw/station_database")
        // The mirror, laid out as the upstream's repository, at raw/'s own release.
        let site = folder + "/site"
        try Files.createFolder(site + "/out/main")
        try Files.createFolder(site + "/src")
        for name in ["station.csv", "line.csv", "register.csv"] {
            try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase + "/" + name, toPath: site + "/out/main/" + name)
        }
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase + "/company.csv", toPath: site + "/src/company.csv")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase + "/latest_info.json", toPath: site + "/latest_info.json")
        try Files.write(Array(#"{ "sources": [ { "kind": "station_database", "path": "station_database" } ] }"#.utf8), to: folder + "/raw/sources.json")
    }

    override func tearDown() { Files.remove(folder) }

    func fetch(from server: StaticServer, site: String = "", published: [String: String]? = nil, allowFuture: Bool = false) throws -> [FetchEvent] {
        let ((), events) = try Events.collect { try fetchAll(from: server, site: site, published: published, allowFuture: allowFuture) }
        return events.compactMap { $0 as? FetchEvent }
    }

    func fetchAll(from server: StaticServer, site: String, published: [String: String]?, allowFuture: Bool = false) throws {
        try RemoteSource.fetchAll(raw: folder + "/raw", upstream: server.baseURL + "/" + site, published: published, allowOlder: false,
                                  allowFuture: allowFuture, http: HTTPClient(options: TransferOptions()))
    }

    /// Fetches, which must be refused as bad input with raw/ as it was; what the refusal said.
    func refusal(from server: StaticServer, site: String, published: [String: String]? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let before = try folderDigests(folder + "/raw")
        let said = Said()
        XCTAssertThrowsError(try Events.sending(to: { if case .failed(let words)? = $0 as? FetchEvent { said.add(words) } }) {
            try fetchAll(from: server, site: site, published: published)
        }, file: file, line: line) { XCTAssertEqual($0.station(.badInput)?.said, true, "\($0)", file: file, line: line) }
        XCTAssertEqual(try folderDigests(folder + "/raw"), before, "raw/ as it was", file: file, line: line)
        return said.all
    }

    /// A mirror at `site` of the fixture's release `release`, its latest_info.json claiming `version` when given.
    func mirror(_ release: String, at site: String, claiming version: Int? = nil) throws {
        let root = folder + "/site/" + site
        try Files.createFolder(root + "/out/main")
        try Files.createFolder(root + "/src")
        for name in ["station.csv", "line.csv", "register.csv"] { try FileManager.default.copyItem(atPath: release + "/" + name, toPath: root + "/out/main/" + name) }
        try FileManager.default.copyItem(atPath: release + "/company.csv", toPath: root + "/src/company.csv")
        try FileManager.default.copyItem(atPath: release + "/latest_info.json", toPath: root + "/latest_info.json")
        if let version { try Files.write(Array("{\"version\": \(version)}\n".utf8), to: root + "/latest_info.json") }
    }

    /// raw/'s latest_info.json gone (or naming no release): the guard held nothing, and an older
    /// release went in with exit 0. It compares with the release the published version was made
    /// from; with none recorded either, a raw/ holding the source's files refuses, saying how.
    func testWithoutRawsReleaseNoteTheGuardComparesWithThePublishedRelease() throws {
        let server = try StaticServer(root: folder + "/site")
        defer { server.stop() }
        _ = try fetch(from: server)   // raw/ at v20260529, as a publish from it records
        try mirror(RepositoryData.stationDatabaseEarlier, at: "older")
        for note in ["", "{}\n"] {
            let path = folder + "/raw/station_database/latest_info.json"
            if note.isEmpty { unlink(path) } else { try Files.write(Array(note.utf8), to: path) }
            var said = try refusal(from: server, site: "older/", published: ["station_database": "v20260529"])
            XCTAssertTrue(said.contains("release 20260227, older than 20260529, the release the published version was made from"), said)
            said = try refusal(from: server, site: "older/")
            XCTAssertTrue(said.contains("latest_info.json is missing or names no release, and no published version records one"), said)
            XCTAssertTrue(said.contains("git checkout -- "), said)
        }
    }

    /// A release claiming 20991231 was taken, and then every real release was refused as older.
    /// One dated after tomorrow is refused, unless allowed.
    func testAReleaseDatedAfterTomorrowIsRefusedUnlessAllowed() throws {
        let server = try StaticServer(root: folder + "/site")
        defer { server.stop() }
        try mirror(RepositoryData.stationDatabase, at: "future", claiming: 20991231)
        let said = try refusal(from: server, site: "future/")
        XCTAssertTrue(said.contains("release 20991231 is dated after tomorrow"), said)
        XCTAssertTrue(said.contains("--allow-future-release"), said)
        let events = try fetch(from: server, site: "future/", allowFuture: true)
        XCTAssertEqual(events.last, .release(SourceRelease(source: "station_database", previous: "v20260227", current: "v20991231")))
    }

    /// A latest_info.json whose version no reader takes as written was "not valid JSON":
    /// it names the field and says it is out of range; raw/ is left as it was.
    func testAReleaseNumberOutOfRangeIsNamed() throws {
        let server = try StaticServer(root: folder + "/site")
        defer { server.stop() }
        try mirror(RepositoryData.stationDatabase, at: "huge/")
        try Files.write(Array("{\"version\": 99999999999999999999}\n".utf8), to: folder + "/site/huge/latest_info.json")
        let said = try refusal(from: server, site: "huge/")
        XCTAssertEqual(said, "error: \(server.baseURL)/huge/latest_info.json: not usable as \(folder)/raw/station_database/latest_info.json: "
                       + "\"version\" is 99999999999999999999, out of range; expected a JSON object whose \"version\" is a whole number (the release, as 20260529); "
                       + "check the url, or the server may be down for maintenance")
    }

    func testAFetchNamesTheReleaseItTookAndTheFilesThatDidNotChange() throws {
        let server = try StaticServer(root: folder + "/site")
        defer { server.stop() }
        let raw = folder + "/raw/station_database/"
        let first = try fetch(from: server)
        XCTAssertEqual(first.last, .release(SourceRelease(source: "station_database", previous: "v20260227", current: "v20260529")))
        // The two files the releases share are the bytes raw/ holds: unchanged, not downloaded.
        XCTAssertEqual(first.compactMap { if case .unchanged(let file) = $0 { file } else { nil } }, [raw + "company.csv", raw + "register.csv"])
        XCTAssertEqual(first.compactMap { if case .downloaded(let file, _, _) = $0 { file } else { nil } },
                       [raw + "line.csv", raw + "station.csv", raw + "latest_info.json"])
        XCTAssertEqual(FetchEvent.release(SourceRelease(source: "station_database", previous: "v20260227", current: "v20260529")).description,
                       "fetch: station_database: upstream release v20260227 -> v20260529")

        // What fetch keeps beside each file is this machine's cache: the repository leaves it out.
        let etags = Files.names(in: raw).filter { $0.hasSuffix(".etag") }.sorted()
        XCTAssertEqual(etags.count, 5, "\(etags)")
        for name in etags {
            let ignored = try runWithTimeout("/usr/bin/env", ["git", "-C", RepositoryData.root, "check-ignore", "--no-index", "-q", "raw/station_database/" + name],
                                             in: folder, timeout: 30)
            XCTAssertEqual(ignored.status, 0, "raw/station_database/\(name) is not in .gitignore: \(ignored.err)")
        }

        let again = try fetch(from: server)
        XCTAssertEqual(again.last, .release(SourceRelease(source: "station_database", previous: "v20260529", current: "v20260529")))
        XCTAssertEqual(again.last?.description, "fetch: station_database: upstream release v20260529 (unchanged)")
        XCTAssertEqual(again.count { if case .unchanged = $0 { true } else { false } }, 5)
    }
}

/// The words failures said, in order.
final class Said: @unchecked Sendable {
    private let lock = NSLock()
    private var words: [String] = []
    func add(_ text: String) { lock.lock(); words.append(text); lock.unlock() }
    var all: String { lock.lock(); defer { lock.unlock() }; return words.joined(separator: "\n") }
}
