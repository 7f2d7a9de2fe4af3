import Foundation
import StationCore
import XCTest

/// A small native master: a hundred stations (by default) on two lines of two
/// operators around Tokyo, the raw/ of the tests that publish.
package enum SmallNetwork {
    package static func write(to raw: String, stations count: Int = 100) throws {
        try FileManager.default.createDirectory(atPath: raw, withIntermediateDirectories: true)
        try "o_id,operator,type,enabled\n1,東日本旅客鉄道,1,1\n2,東京地下鉄,2,1\n".write(toFile: raw + "/operators.csv", atomically: true, encoding: .utf8)
        try "l_id,line,o_id,enabled,l_type\n11,山手線,1,1,\n21,銀座線,2,1,\n".write(toFile: raw + "/lines.csv", atomically: true, encoding: .utf8)
        var stations = "s_id,station,yomi,wiki,pref,address,lat,lng,o_id,enabled\n", lines = "l_id,s_id,s_sort\n"
        for i in 1...count {
            let line = i <= 50 ? 11 : 21
            let lat = String(format: "%.6f", 35.60 + 0.002 * Double(i % 50)), lng = line == 11 ? "139.700000" : "139.800000"
            stations += "\(i),駅\(i),えき,,13,東京都,\(lat),\(lng),\(line == 11 ? 1 : 2),1\n"
            lines += "\(line),\(i),\(i)\n"
        }
        try stations.write(toFile: raw + "/stations.csv", atomically: true, encoding: .utf8)
        try lines.write(toFile: raw + "/stations_lines.csv", atomically: true, encoding: .utf8)
    }
}

/// Every file of a folder by relative path with its sha256 ("folder" for a folder),
/// the lock files left out (they are never written, but a run creates them).
package func folderDigests(_ folder: String) throws -> [String: String] {
    var out: [String: String] = [:]
    guard let e = FileManager.default.enumerator(atPath: folder) else { return out }
    while let rel = e.nextObject() as? String {
        let path = folder + "/" + rel
        var isFolder: ObjCBool = false
        _ = FileManager.default.fileExists(atPath: path, isDirectory: &isFolder)
        if rel.hasSuffix(".lock") { continue }
        out[rel] = isFolder.boolValue ? "folder" : try SHA256.hex(fileAt: path)
    }
    return out
}

/// A folder served over HTTP on 127.0.0.1 by Python's http.server, on a port the kernel picks:
/// a static web server as a dist is hosted. A ChildProcess: it ends with the test.
package final class StaticServer {
    package let port: Int
    private let process: ChildProcess

    package var baseURL: String { "http://127.0.0.1:\(port)" }

    package init(root: String) throws {
        process = try ChildProcess(["python3", "-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", root, "0"])
        // "Serving HTTP on 127.0.0.1 port 40123 (http://127.0.0.1:40123/) ..."
        let text = process.readLine() ?? ""
        guard let match = text.firstMatch(of: /port (\d+)/), let port = Int(match.1) else {
            process.stop()
            throw BuiltTools.FixtureFailure("python3 -m http.server did not start (\(text)); is python3 installed? `make test` installs it")
        }
        self.port = port
    }

    package func stop() { process.stop() }
}

/// The smallest N02 document with one station on one line, for the tests of where a
/// source may (not) stand and what reading it may (not) do.
package enum SmallN02 {
    package static let document = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ksj:Dataset gml:id="D" xmlns:ksj="http://nlftp.mlit.go.jp/ksj/schemas/ksj-app" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink">
        <gml:Curve gml:id="c1"><gml:segments><gml:LineStringSegment><gml:posList>35.0 135.0 35.0 135.001</gml:posList></gml:LineStringSegment></gml:segments></gml:Curve>
        <ksj:Station gml:id="s1"><ksj:location xlink:href="#c1"/><ksj:railwayType>12</ksj:railwayType><ksj:serviceProviderType>4</ksj:serviceProviderType><ksj:railwayLineName>L</ksj:railwayLineName><ksj:operationCompany>A</ksj:operationCompany><ksj:stationName>X</ksj:stationName></ksj:Station>
        </ksj:Dataset>

        """
}

/// The data this repository carries: the default raw/ (the upstream's release v20260529)
/// and the fixtures of the other layouts, under Tests/Fixtures.
package enum RepositoryData {
    package static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    package static var raw: String { root + "/raw" }
    package static var stationDatabase: String { raw + "/station_database" }
    /// The upstream's release before raw/'s (v20260227): the upstream moving under a fetch.
    package static var stationDatabaseEarlier: String { root + "/Tests/Fixtures/station_database/v20260227" }
    /// All of Japan in ekidata.jp's layout (a 2017 snapshot): raw/ before the upstream.
    package static var ekidata: String { root + "/Tests/Fixtures/ekidata" }
}
