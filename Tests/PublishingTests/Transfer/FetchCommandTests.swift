import Foundation
import StationCore
import TestSupport
import XCTest

/// `stationdb fetch` itself, built beside these tests, against a real HTTP
/// server on 127.0.0.1: what the nightly `make fetch` runs.
final class FetchCommandTests: XCTestCase {
    var scratch = ""
    var site = ""
    var server: TestServer!

    static let ksj = "http://nlftp.mlit.go.jp/ksj/schemas/ksj-app"

    /// An N02 document with one station on one section, as N02Reader reads it;
    /// `station` is put in place of the station's element.
    static func n02(station: String? = nil) -> String {
        let curve = { (id: String, points: String) in
            "<gml:Curve gml:id=\"\(id)\">\n<gml:segments>\n<gml:LineStringSegment>\n<gml:posList>\n\(points)\n</gml:posList>\n</gml:LineStringSegment>\n</gml:segments>\n</gml:Curve>"
        }
        let feature = { (element: String, id: String, curveID: String, extra: String) in
            "<ksj:\(element) gml:id=\"\(id)\">\n<ksj:location xlink:href=\"#\(curveID)\"/>\n<ksj:railwayType>12</ksj:railwayType>\n<ksj:serviceProviderType>4</ksj:serviceProviderType>\n<ksj:railwayLineName>本線</ksj:railwayLineName>\n<ksj:operationCompany>北鉄道</ksj:operationCompany>\n\(extra)</ksj:\(element)>"
        }
        return """
        <?xml version="1.0" encoding="UTF-8"?>
        <ksj:Dataset gml:id="D" xmlns:ksj="\(ksj)" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink">
        \(curve("c1", "35.000000 139.000000\n35.000100 139.000100"))
        \(curve("c2", "35.000000 139.000000\n35.010000 139.010000"))
        \(station ?? feature("Station", "s1", "c1", "<ksj:stationName>一番</ksj:stationName>\n"))
        \(feature("RailroadSection", "r1", "c2", ""))
        </ksj:Dataset>

        """
    }

    override func setUpWithError() throws {
        scratch = NSTemporaryDirectory() + "transfer-cli-\(UUID().uuidString)"
        site = scratch + "/site"
        try Files.createFolder(site + "/ekidata")
        try Files.createFolder(scratch + "/raw")
        for (name, body) in SourceFetcherTests.ekidataBodies {
            try body.write(toFile: site + "/ekidata/" + name, atomically: true, encoding: .utf8)
        }
        try Self.n02().write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)
        server = try TestServer(root: site, scratch: scratch)
        let sources = """
        { "sources": [
            { "kind": "ekidata", "path": "ekidata", "url": "\(server.baseURL)/ekidata/" },
            { "kind": "n02", "path": "N02-stations.xml", "url": "\(server.baseURL)/N02.xml" } ] }
        """
        try sources.write(toFile: scratch + "/raw/sources.json", atomically: true, encoding: .utf8)
    }

    override func tearDownWithError() throws {
        server?.stop()
        server = nil
        try? FileManager.default.removeItem(atPath: scratch)
    }

    static func stationdb() throws -> String { try BuiltTools.stationdb() }

    /// Runs `stationdb fetch --raw raw` in the scratch folder: its exit status and stderr.
    func fetch() throws -> (status: Int32, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.stationdb())
        p.currentDirectoryURL = URL(fileURLWithPath: scratch)
        p.arguments = ["fetch", "--raw", "raw", "--attempts", "1", "--timeout", "10"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func rawSnapshot() throws -> [String: String] {
        var out: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: scratch + "/raw")!
        while let name = enumerator.nextObject() as? String {
            var isDir: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: scratch + "/raw/" + name, isDirectory: &isDir)
            out[name] = isDir.boolValue ? "folder" : try SHA256.hex(fileAt: scratch + "/raw/" + name)
        }
        return out
    }

    /// A source path `../escape.xml` (or `../../outside/dir`) made fetch write there, exit 0
    /// (here both would land in the test's scratch folder, beside raw/).
    func testFetchWritesNothingOutsideRaw() throws {
        let sources = """
        { "sources": [
            { "kind": "n02", "path": "../escape.xml", "url": "\(server.baseURL)/N02.xml" },
            { "kind": "ekidata", "path": "ekidata/../../outside/dir", "url": "\(server.baseURL)/ekidata/" } ] }
        """
        try sources.write(toFile: scratch + "/raw/sources.json", atomically: true, encoding: .utf8)
        let run = try fetch()
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/escape.xml"), run.err)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch).sorted(), ["raw", "requests.log", "site"],
                       "nothing new beside raw/")
    }

    /// `{"kind":"n02","path":"registry.csv","url":...}` made fetch overwrite raw/registry.csv,
    /// the memory of every s_id; so for sources.json, fixes.csv and weights.csv. A source may
    /// not name raw/'s own files, however the path is spelled.
    func testASourceNamingRawsOwnFilesIsRefused() throws {
        for name in ["registry.csv", "sources.json", "fixes.csv", "weights.csv", "./registry.csv", ".//weights.csv"] {
            try "kept\n".write(toFile: scratch + "/raw/registry.csv", atomically: true, encoding: .utf8)
            try "action,table,match,field,value,expect,note\n".write(toFile: scratch + "/raw/fixes.csv", atomically: true, encoding: .utf8)
            try "s_id,weight,note\n".write(toFile: scratch + "/raw/weights.csv", atomically: true, encoding: .utf8)
            try "{ \"sources\": [ { \"kind\": \"n02\", \"path\": \"\(name)\", \"url\": \"\(server.baseURL)/N02.xml\" } ] }\n"
                .write(toFile: scratch + "/raw/sources.json", atomically: true, encoding: .utf8)
            let before = try rawSnapshot()
            let run = try fetch()
            XCTAssertEqual(run.status, 2, "\(name): \(run.err)")
            XCTAssertTrue(run.err.contains("raw/sources.json:1: sources.0.path: "), "\(name): \(run.err)")
            XCTAssertTrue(run.err.contains("one of raw/'s own files"), "\(name): \(run.err)")
            XCTAssertEqual(try rawSnapshot(), before, name)
            XCTAssertFalse(server.requests().contains { $0.hasPrefix("/N02.xml") }, "nothing was even downloaded")
        }
    }

    /// A server that answers 304 Not Modified for a file raw/ does not have (a broken cache,
    /// a mirror that ignores the request) was reported as "unchanged": raw/ has nothing to
    /// keep, so the source is refused and left as it was.
    func testA304ForAFileRawLacksIsNotUnchanged() throws {
        try server.setFaults(["/N02.xml": "304"])
        let before = try rawSnapshot()
        let run = try fetch()
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertFalse(run.err.contains("raw/N02-stations.xml: unchanged"), run.err)
        XCTAssertTrue(run.err.contains("\(server.baseURL)/N02.xml: not usable as raw/N02-stations.xml: the server answered 304 Not Modified"), run.err)
        XCTAssertTrue(run.err.contains("N02-stations.xml (n02) left as it was"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "/raw/N02-stations.xml"))
        XCTAssertNil(before["N02-stations.xml"])
    }

    func testFetchRefusesWhatItsSourcesReadersWouldRefuse() throws {
        let first = try fetch()
        XCTAssertEqual(first.status, 0, first.err)
        XCTAssertEqual(try String(contentsOfFile: scratch + "/raw/N02-stations.xml", encoding: .utf8), Self.n02())
        let before = try rawSnapshot()

        try "<html>maintenance</html>\n".write(toFile: site + "/ekidata/station.csv", atomically: true, encoding: .utf8)
        try "company_cd,rr_cd,company_name,company_type,e_status\n2,11,JR東日本,1,0\n"
            .write(toFile: site + "/ekidata/company.csv", atomically: true, encoding: .utf8)
        // Root and end as N02's, but a tag closed by another name inside: only a real XML parser sees it.
        let broken = Self.n02(station: "<ksj:Station gml:id=\"s1\">\n<ksj:stationName>一番</ksj:stationNam>\n</ksj:Station>")
        try broken.write(toFile: site + "/N02.xml", atomically: true, encoding: .utf8)

        let second = try fetch()
        XCTAssertEqual(second.status, 2, second.err)
        for expected in [server.baseURL + "/ekidata/station.csv", "raw/ekidata/station.csv", "station_cd",
                         server.baseURL + "/N02.xml", "raw/N02-stations.xml", "stationNam",
                         "ekidata (ekidata) left as it was", "N02-stations.xml (n02) left as it was"] {
            XCTAssertTrue(second.err.contains(expected), "expected \"\(expected)\" in:\n\(second.err)")
        }
        XCTAssertEqual(try rawSnapshot(), before, "raw/ changed after a refused fetch")
    }
}
