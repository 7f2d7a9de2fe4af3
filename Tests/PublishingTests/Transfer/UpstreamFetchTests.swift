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
    }

    override func tearDown() { Files.remove(folder) }

    func fetch(from server: StaticServer) throws -> [FetchEvent] {
        try Files.write(Array(#"{ "sources": [ { "kind": "station_database", "path": "station_database" } ] }"#.utf8), to: folder + "/raw/sources.json")
        let ((), events) = try Events.collect {
            try RemoteSource.fetchAll(raw: folder + "/raw", upstream: server.baseURL + "/", allowOlder: false, http: HTTPClient(options: TransferOptions()))
        }
        return events.compactMap { $0 as? FetchEvent }
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
