import Foundation
import XCTest
import Ingest
import StationCore

/// Builds small N02 documents, one element per line, so tests can name exact lines.
private struct N02Doc {
    var items: [String] = []
    var encoding = "UTF-8"

    static func curve(_ id: String, _ points: [(Double, Double)]) -> String {
        let pos = points.map { String(format: "%.6f %.6f", $0.0, $0.1) }.joined(separator: "\n")
        return """
        <gml:Curve gml:id="\(id)">
        <gml:segments>
        <gml:LineStringSegment>
        <gml:posList>
        \(pos)
        </gml:posList>
        </gml:LineStringSegment>
        </gml:segments>
        </gml:Curve>
        """
    }

    static func feature(_ element: String, id: String, curve: String?, company: String?, line: String?,
                        spt: Int = 4, rt: Int = 12, extra: [String]) -> String {
        var rows = ["<ksj:\(element) gml:id=\"\(id)\">"]
        if let curve { rows.append("<ksj:location xlink:href=\"#\(curve)\"/>") }
        rows.append("<ksj:railwayType>\(rt)</ksj:railwayType>")
        rows.append("<ksj:serviceProviderType>\(spt)</ksj:serviceProviderType>")
        if let line { rows.append("<ksj:railwayLineName>\(line)</ksj:railwayLineName>") }
        if let company { rows.append("<ksj:operationCompany>\(company)</ksj:operationCompany>") }
        rows += extra
        rows.append("</ksj:\(element)>")
        return rows.joined(separator: "\n")
    }

    static func station(_ id: String, curve: String?, company: String?, line: String?, name: String?,
                        code: String? = nil, group: String? = nil, spt: Int = 4, rt: Int = 12) -> String {
        var extra: [String] = []
        if let name { extra.append("<ksj:stationName>\(name)</ksj:stationName>") }
        if let code { extra.append("<ksj:stationCode>\(code)</ksj:stationCode>") }
        if let group { extra.append("<ksj:groupCode>\(group)</ksj:groupCode>") }
        return feature("Station", id: id, curve: curve, company: company, line: line, spt: spt, rt: rt, extra: extra)
    }

    static func section(_ id: String, curve: String?, company: String?, line: String?, spt: Int = 4, rt: Int = 12) -> String {
        feature("RailroadSection", id: id, curve: curve, company: company, line: line, spt: spt, rt: rt, extra: [])
    }

    var text: String {
        """
        <?xml version="1.0" encoding="\(encoding)"?>
        <ksj:Dataset gml:id="D" xmlns:ksj="http://nlftp.mlit.go.jp/ksj/schemas/ksj-app" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink">
        \(items.joined(separator: "\n"))
        </ksj:Dataset>

        """
    }
}

/// 1-based line of the first line of `text` containing `marker`.
private func line(of marker: String, in text: String) -> Int {
    let lines = text.components(separatedBy: "\n")
    return lines.firstIndex { $0.contains(marker) }! + 1
}

/// A network without its origins, to compare documents laid out differently.
private struct Shape: Equatable {
    var operators: [String]
    var lines: [String]
    var stations: [String]
    var links: [String]

    init(_ n: SourceNetwork) {
        operators = n.operators.map { "\($0.key)|\($0.name)|\($0.type.map(String.init) ?? "-")" }
        lines = n.lines.map { "\($0.key)|\($0.name)|\($0.operatorKey)|\($0.type.map(String.init) ?? "-")" }
        stations = n.stations.map {
            "\($0.key)|\($0.name)|\($0.lat)|\($0.lng)|\($0.operatorKey)|\($0.matchKeys.joined(separator: ","))"
        }
        links = n.stationLines.map { "\($0.lineKey)|\($0.stationKey)|\($0.sort)" }
    }
}

final class N02ReaderTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("n02-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    private func write(_ data: Data, _ name: String = "n02.xml") throws -> String {
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    private func read(_ text: String, encoding: String.Encoding = .utf8) throws -> SourceNetwork {
        try N02Reader.read(path: write(text.data(using: encoding)!), label: "raw/n02.xml")
    }

    private func readBytes(_ data: Data) throws -> SourceNetwork {
        try N02Reader.read(path: write(data), label: "raw/n02.xml")
    }

    /// The messages a bad document gives, as printed.
    private func problems(_ data: Data, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try readBytes(data)
            XCTFail("expected bad input", file: file, line: line)
            return []
        } catch let error as StationError where error.kind == .badInput {
            return error.diagnostics.map(\.description)
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return []
        }
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        problems(text.data(using: .utf8)!, file: file, line: line)
    }

    // MARK: A small network

    /// Two JR lines sharing a grouped station, a Shinkansen member of the same group, a major private
    /// railway, a public operator without codes, and curves both before and after their features.
    private func sampleDoc() -> N02Doc {
        var doc = N02Doc()
        doc.items = [
            N02Doc.curve("c1", [(35.7111, 139.7966), (35.7113, 139.7968)]),
            N02Doc.curve("c2", [(35.7100, 139.8100), (35.7102, 139.8110)]),
            N02Doc.curve("r1", [(35.7111, 139.7966), (35.7100, 139.8100)]),
            N02Doc.station("eb03_1", curve: "c1", company: "東武鉄道", line: "伊勢崎線", name: "浅草",
                           code: "1200101", group: "1200101"),
            N02Doc.station("eb03_2", curve: "c2", company: "東武鉄道", line: "伊勢崎線", name: "とうきょうスカイツリー",
                           code: "1200102", group: "1200102"),
            N02Doc.section("eb02_1", curve: "r1", company: "東武鉄道", line: "伊勢崎線"),
            // Curves of these come after the features.
            N02Doc.station("eb03_3", curve: "c3", company: "東日本旅客鉄道", line: "山手線", name: "上野",
                           code: "1130220", group: "1130220", spt: 2, rt: 11),
            N02Doc.station("eb03_4", curve: "c4", company: "東日本旅客鉄道", line: "京浜東北線", name: "上野",
                           code: "1130104", group: "1130220", spt: 2, rt: 11),
            N02Doc.station("eb03_5", curve: "c5", company: "東日本旅客鉄道", line: "東北新幹線", name: "上野",
                           code: "1100102", group: "1130220", spt: 1, rt: 11),
            N02Doc.section("eb02_2", curve: "r2", company: "東日本旅客鉄道", line: "東北新幹線", spt: 1, rt: 11),
            N02Doc.station("eb03_6", curve: "c6", company: "札幌市交通局", line: "南北線", name: "大通",
                           spt: 3, rt: 12),
            N02Doc.curve("c3", [(35.7138, 139.7772), (35.7142, 139.7776)]),
            N02Doc.curve("c4", [(35.7136, 139.7770), (35.7140, 139.7774)]),
            N02Doc.curve("c5", [(35.7130, 139.7760), (35.7134, 139.7770)]),
            N02Doc.curve("c6", [(43.0600, 141.3500), (43.0610, 141.3500)]),
            N02Doc.curve("r2", [(35.7130, 139.7760), (35.6812, 139.7671)]),
        ]
        return doc
    }

    /// A folder named where the N02 file belongs is bad input (exit 2), not an I/O failure; so is a long value, cut.
    func testFolderInsteadOfTheFileAndLongValuesInMessages() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("n02-folder-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/N02.xml", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        XCTAssertEqual(inputErrorMessages { try N02Reader.read(path: folder + "/N02.xml", label: "raw/N02.xml") },
                       ["raw/N02.xml: a folder, not a file; expected the N02 XML file"])
        let kind = String(repeating: "k", count: 1_000)
        try #"{ "sources": [ { "kind": "\#(kind)", "path": "x" } ] }"#.write(toFile: folder + "/sources.json", atomically: true, encoding: .utf8)
        let message = inputErrorMessages { try SourcesConfig.load(rawFolder: folder) }.first ?? ""
        XCTAssertTrue(message.hasSuffix("... (1000 bytes)\"; expected one of native, ekidata, n02, station_database"), message)
        XCTAssertLessThan(message.count, 300)
    }

    func testReadsASmallNetwork() throws {
        let doc = sampleDoc()
        let network = try read(doc.text)
        XCTAssertEqual(network.kind, .n02)
        XCTAssertEqual(network.label, "raw/n02.xml")

        XCTAssertEqual(network.operators.map(\.key), [
            "n02:operator:札幌市交通局", "n02:operator:東日本旅客鉄道", "n02:operator:東武鉄道",
        ])
        XCTAssertEqual(network.operators.map(\.type), [4, 1, 2])
        XCTAssertEqual(network.operators.map(\.name), ["札幌市交通局", "東日本旅客鉄道", "東武鉄道"])
        XCTAssertTrue(network.operators.allSatisfy { $0.enabled == nil && $0.fixedID == nil })
        XCTAssertEqual(network.operators[2].origin, SourceLocation(file: "raw/n02.xml", line: line(of: "eb03_1", in: doc.text)))

        XCTAssertEqual(network.lines.map(\.key), [
            "n02:line:札幌市交通局:南北線", "n02:line:東日本旅客鉄道:京浜東北線", "n02:line:東日本旅客鉄道:山手線",
            "n02:line:東日本旅客鉄道:東北新幹線", "n02:line:東武鉄道:伊勢崎線",
        ])
        XCTAssertEqual(network.lines.map(\.type), [nil, nil, nil, 1, nil])
        XCTAssertEqual(network.lines[4].operatorKey, "n02:operator:東武鉄道")
        XCTAssertEqual(network.lines[4].name, "伊勢崎線")

        XCTAssertEqual(network.stations.map(\.key), [
            "n02:station:札幌市交通局:大通",
            "n02:station:東日本旅客鉄道:1130220",
            "n02:station:東日本旅客鉄道:1130220:shinkansen",
            "n02:station:東武鉄道:1200101",
            "n02:station:東武鉄道:1200102",
        ])
        let ueno = network.stations[1]
        XCTAssertEqual(ueno.name, "上野")
        XCTAssertEqual(ueno.matchKeys, ["code:1130104", "code:1130220"])
        // The representative is the member with the smallest code (京浜東北線's), whatever the document order.
        XCTAssertEqual(ueno.lat, 35_713_800)
        XCTAssertEqual(ueno.lng, 139_777_200)
        XCTAssertEqual(ueno.origin, SourceLocation(file: "raw/n02.xml", line: line(of: "eb03_4", in: doc.text)))
        XCTAssertEqual(network.stations[2].matchKeys, ["code:1100102"])
        XCTAssertEqual(network.stations[2].lat, 35_713_200)
        XCTAssertEqual(network.stations[2].lng, 139_776_500)
        let odori = network.stations[0]
        XCTAssertEqual(odori.matchKeys, [])
        XCTAssertEqual(odori.lat, 43_060_500)
        XCTAssertEqual(odori.lng, 141_350_000)
        XCTAssertEqual(odori.operatorKey, "n02:operator:札幌市交通局")
        for s in network.stations {
            XCTAssertNil(s.yomi); XCTAssertNil(s.wiki); XCTAssertNil(s.address); XCTAssertNil(s.pref)
            XCTAssertNil(s.enabled); XCTAssertNil(s.fixedID)
        }

        XCTAssertEqual(network.stationLines.map { "\($0.lineKey) \($0.stationKey) \($0.sort)" }, [
            "n02:line:札幌市交通局:南北線 n02:station:札幌市交通局:大通 1",
            "n02:line:東日本旅客鉄道:京浜東北線 n02:station:東日本旅客鉄道:1130220 1",
            "n02:line:東日本旅客鉄道:山手線 n02:station:東日本旅客鉄道:1130220 1",
            "n02:line:東日本旅客鉄道:東北新幹線 n02:station:東日本旅客鉄道:1130220:shinkansen 1",
            "n02:line:東武鉄道:伊勢崎線 n02:station:東武鉄道:1200101 1",
            "n02:line:東武鉄道:伊勢崎線 n02:station:東武鉄道:1200102 2",
        ])
    }

    func testShiftJISDocumentReadsLikeUTF8() throws {
        var doc = sampleDoc()
        let utf8 = try read(doc.text)
        doc.encoding = "Shift_JIS"
        let bytes = try XCTUnwrap(doc.text.data(using: .shiftJIS))
        XCTAssertNotEqual(bytes, doc.text.data(using: .utf8), "the fixture must really be Shift_JIS")
        let sjis = try readBytes(bytes)
        XCTAssertEqual(Shape(sjis), Shape(utf8))
        XCTAssertEqual(sjis.stations.map(\.origin), utf8.stations.map(\.origin))
        XCTAssertEqual(sjis.stations.first?.name, "大通")
    }

    func testDocumentOrderDoesNotMatter() throws {
        let doc = sampleDoc()
        var reversed = doc
        reversed.items.reverse()
        var rotated = doc
        rotated.items = Array(doc.items[7...] + doc.items[..<7])
        let a = try read(doc.text), b = try read(reversed.text), c = try read(rotated.text)
        XCTAssertEqual(Shape(a), Shape(b))
        XCTAssertEqual(Shape(a), Shape(c))
        XCTAssertNotEqual(a.stations.map(\.origin), b.stations.map(\.origin), "the layouts really differ")
    }

    // MARK: Geometry and ordering

    func testStationPointIsHalfWayAlongItsCurve() throws {
        // Segments of 1 and 2 units along the parallel: half of 3 lies a quarter into the second.
        var doc = N02Doc()
        doc.items = [
            N02Doc.curve("c1", [(35.0, 135.000), (35.0, 135.001), (35.0, 135.003)]),
            N02Doc.station("s1", curve: "c1", company: "A", line: "L", name: "X"),
            // A curve of zero length gives its first point; a single point is that point.
            N02Doc.curve("c2", [(36.0, 136.0), (36.0, 136.0)]),
            N02Doc.station("s2", curve: "c2", company: "A", line: "L", name: "Y"),
            N02Doc.curve("c3", [(37.1234565, 137.0)]),
            N02Doc.station("s3", curve: "c3", company: "A", line: "L", name: "Z"),
        ]
        let n = try read(doc.text)
        XCTAssertEqual(n.stations.map { [$0.lat, $0.lng] }, [[35_000_000, 135_001_500], [36_000_000, 136_000_000],
                                                              [37_123_457, 137_000_000]])
        XCTAssertEqual(N02Geometry.middle(of: [(35_000_000, 135_000_000), (35_002_000, 135_000_000)]).lat, 35_001_000)
    }

    func testStationsWithoutGroupCodeAreGroupedByNameWithin1km() throws {
        var doc = N02Doc()
        doc.items = [
            // 中央 on two lines 300 m apart: one station. 港 on two lines 5 km apart: two.
            N02Doc.curve("a1", [(35.0000, 135.0000), (35.0000, 135.0001)]),
            N02Doc.curve("a2", [(35.0027, 135.0000), (35.0027, 135.0001)]),
            N02Doc.curve("b1", [(35.1000, 135.0000), (35.1000, 135.0001)]),
            N02Doc.curve("b2", [(35.1450, 135.0000), (35.1450, 135.0001)]),
            N02Doc.station("eb03_10", curve: "a2", company: "市営", line: "2号線", name: "中央"),
            N02Doc.station("eb03_9", curve: "a1", company: "市営", line: "1号線", name: "中央"),
            N02Doc.station("eb03_11", curve: "b1", company: "市営", line: "1号線", name: "港"),
            N02Doc.station("eb03_12", curve: "b2", company: "市営", line: "2号線", name: "港"),
        ]
        let n = try read(doc.text)
        XCTAssertEqual(n.stations.map(\.key), ["n02:station:市営:中央", "n02:station:市営:港", "n02:station:市営:港:2"])
        // Without codes, the smallest gml:id (numerically: eb03_9 < eb03_10) gives the point.
        XCTAssertEqual(n.stations[0].lat, 35_000_000)
        XCTAssertEqual(n.stations[1].lat, 35_100_000)
        XCTAssertEqual(n.stations[2].lat, 35_145_000)
        XCTAssertEqual(n.stationLines.map { "\($0.lineKey) \($0.stationKey) \($0.sort)" }, [
            "n02:line:市営:1号線 n02:station:市営:中央 1",
            "n02:line:市営:1号線 n02:station:市営:港 2",
            "n02:line:市営:2号線 n02:station:市営:中央 1",
            "n02:line:市営:2号線 n02:station:市営:港:2 2",
        ])
    }

    func testLineOrderFollowsStationCodesThenGmlIDs() throws {
        var doc = N02Doc()
        var items: [String] = []
        // Document order: C, A, B (codes 3, 1, 2), then two without codes: eb03_10 before eb03_9.
        for (id, code, name) in [("eb03_1", "1003", "C"), ("eb03_2", "1001", "A"), ("eb03_3", "1002", "B")] {
            items.append(N02Doc.curve("c_\(id)", [(34.0, 135.0), (34.0, 135.001)]))
            items.append(N02Doc.station(id, curve: "c_\(id)", company: "K", line: "本線", name: name, code: code))
        }
        items.append(N02Doc.curve("cx", [(34.5, 135.0), (34.5, 135.001)]))
        items.append(N02Doc.curve("cy", [(34.6, 135.0), (34.6, 135.001)]))
        items.append(N02Doc.station("eb03_10", curve: "cx", company: "K", line: "本線", name: "E"))
        items.append(N02Doc.station("eb03_9", curve: "cy", company: "K", line: "本線", name: "D"))
        doc.items = items
        let n = try read(doc.text)
        let order = n.stationLines.sorted { $0.sort < $1.sort }.map { $0.stationKey }
        XCTAssertEqual(order, ["n02:station:K:A", "n02:station:K:B", "n02:station:K:C",
                               "n02:station:K:D", "n02:station:K:E"])
        XCTAssertEqual(n.stationLines.map(\.sort), [1, 2, 3, 4, 5])
        XCTAssertEqual(n.stations.first { $0.name == "A" }?.matchKeys, ["code:1001"])
    }

    func testTwoMembersOfOneStationOnOneLineGiveOneLink() throws {
        var doc = N02Doc()
        doc.items = [
            N02Doc.curve("c1", [(34.0, 135.0), (34.0, 135.001)]),
            N02Doc.curve("c2", [(34.0, 135.002), (34.0, 135.003)]),
            N02Doc.station("s2", curve: "c2", company: "K", line: "本線", name: "駅", code: "12", group: "10"),
            N02Doc.station("s1", curve: "c1", company: "K", line: "本線", name: "駅", code: "11", group: "10"),
        ]
        let n = try read(doc.text)
        XCTAssertEqual(n.stations.count, 1)
        XCTAssertEqual(n.stations[0].matchKeys, ["code:11", "code:12"])
        XCTAssertEqual(n.stations[0].lng, 135_000_500)
        XCTAssertEqual(n.stationLines.count, 1)
        XCTAssertEqual(n.stationLines[0].origin.line, line(of: "\"s1\"", in: doc.text))
    }

    func testOperatorTypeRules() {
        func type(_ company: String = "どこか鉄道", spt: Int?, rt: Int?) -> Int {
            N02Classification.operatorType(company: company, serviceProviderType: spt, railwayType: rt)
        }
        XCTAssertEqual(type(spt: 1, rt: 11), 1)
        XCTAssertEqual(type(spt: 2, rt: 11), 1)
        XCTAssertEqual(type(spt: 2, rt: 13), 1)      // provider rules come first
        XCTAssertEqual(type(spt: 3, rt: 12), 4)
        XCTAssertEqual(type(spt: 3, rt: 23), 4)
        XCTAssertEqual(type(spt: 4, rt: 13), 8)
        for rt in [14, 15, 22, 23] { XCTAssertEqual(type(spt: 5, rt: rt), 6) }
        for rt in [16, 24] { XCTAssertEqual(type(spt: 4, rt: rt), 7) }
        XCTAssertEqual(type(spt: 4, rt: 25), 10)
        XCTAssertEqual(type(spt: 5, rt: 12), 5)
        XCTAssertEqual(type(spt: 4, rt: 12), 5)
        XCTAssertEqual(type(spt: nil, rt: nil), 5)
        for major in ["東武鉄道", "西武鉄道", "京成電鉄", "京王電鉄", "小田急電鉄", "東京急行電鉄", "東急電鉄", "京浜急行電鉄",
                      "東京地下鉄", "相模鉄道", "名古屋鉄道", "近畿日本鉄道", "南海電気鉄道", "京阪電気鉄道", "阪急電鉄",
                      "阪神電気鉄道", "西日本鉄道"] {
            XCTAssertEqual(type(major, spt: 4, rt: 12), 2, major)
            XCTAssertEqual(type(major, spt: 4, rt: 13), 8, major)
        }
        XCTAssertEqual(type("東京メトロ", spt: 4, rt: 21), 2)
        XCTAssertEqual(type("新京成電鉄", spt: 4, rt: 12), 5)
        XCTAssertEqual(N02Classification.lineType(serviceProviderType: 1), 1)
        XCTAssertNil(N02Classification.lineType(serviceProviderType: 2))
    }

    func testOperatorTypeFollowsMostOfItsFeatures() throws {
        var doc = N02Doc()
        doc.items = [
            N02Doc.curve("c1", [(34.0, 135.0), (34.0, 135.001)]),
            N02Doc.section("r1", curve: "c1", company: "近畿日本鉄道", line: "生駒鋼索線", rt: 13),
            N02Doc.section("r2", curve: "c1", company: "近畿日本鉄道", line: "奈良線"),
            N02Doc.section("r3", curve: "c1", company: "近畿日本鉄道", line: "奈良線"),
        ]
        let n = try read(doc.text)
        XCTAssertEqual(n.operators.map(\.type), [2])
        XCTAssertEqual(n.lines.map(\.key), ["n02:line:近畿日本鉄道:奈良線", "n02:line:近畿日本鉄道:生駒鋼索線"])
        XCTAssertEqual(n.stations.count, 0)
    }

    func testNaturalOrder() {
        XCTAssertTrue(N02Order.naturalLess("eb03_9", "eb03_10"))
        XCTAssertFalse(N02Order.naturalLess("eb03_10", "eb03_9"))
        XCTAssertTrue(N02Order.naturalLess("a", "b"))
        XCTAssertTrue(N02Order.naturalLess("01", "1"))
        XCTAssertFalse(N02Order.naturalLess("1", "01"))
        XCTAssertTrue(N02Order.naturalLess("x2", "x2a"))
    }

    // MARK: Bad input

    private func good(_ extra: [String] = []) -> N02Doc {
        var doc = N02Doc()
        doc.items = [
            N02Doc.curve("c1", [(35.0, 135.0), (35.0, 135.001)]),
            N02Doc.station("s1", curve: "c1", company: "A", line: "L", name: "X"),
        ] + extra
        return doc
    }

    func testMismatchedTag() {
        let text = good().text.replacingOccurrences(of: "</ksj:stationName>", with: "</ksj:stationNam>")
        let at = line(of: "stationNam>", in: text)
        XCTAssertEqual(problems(text), [
            "raw/n02.xml:\(at): column 36: malformed XML: Opening and ending tag mismatch: stationName line \(at) and stationNam",
        ])
        XCTAssertEqual(at, 19)
    }

    func testTruncatedFile() {
        let text = good().text
        let cut = String(text.prefix(upTo: text.range(of: "<ksj:stationName>")!.upperBound))
        XCTAssertEqual(problems(cut), [
            "raw/n02.xml:19: column 18: malformed XML: the file ends inside the element stationName (truncated?)",
        ])
    }

    func testEmptyFile() {
        XCTAssertEqual(problems(Data()), ["raw/n02.xml:1: the file is empty"])
    }

    func testWrongRootElement() {
        XCTAssertEqual(problems("<?xml version=\"1.0\"?>\n<foo/>\n"),
                       ["raw/n02.xml:2: the root element is foo, expected ksj:Dataset"])
    }

    func testInvalidUTF8() {
        var data = good().text.data(using: .utf8)!
        let at = data.range(of: "<ksj:stationName>X".data(using: .utf8)!)!.upperBound - 1
        data[at] = 0xFF
        XCTAssertEqual(problems(data), [
            "raw/n02.xml:19: column 18: malformed XML: Input is not proper UTF-8, indicate encoding ! Bytes: 0xFF 0x3C 0x2F 0x6B",
        ])
    }

    func testInvalidShiftJIS() {
        var doc = good()
        doc.encoding = "Shift_JIS"
        var data = doc.text.data(using: .shiftJIS)!
        let at = data.range(of: "<ksj:stationName>X".data(using: .utf8)!)!.upperBound - 1
        data.replaceSubrange(at..<(at + 1), with: [0x81, 0x20])  // a lead byte without a valid trail byte
        XCTAssertEqual(problems(data), [
            "raw/n02.xml:19: malformed XML: input conversion failed due to input error, bytes 0x81 0x20 0x3C 0x2F",
        ])
    }

    func testInvalidShiftJISFarIntoALargeFile() {
        // Well past the reader's first 64 KB chunk, so the line is counted across chunks.
        // Ids apart from good()'s s1: a gml:id is one feature's.
        let stations = (1...1_500).map {
            N02Doc.station("t\($0)", curve: "c1", company: "東武鉄道", line: "伊勢崎線", name: "駅\($0)")
        }
        var doc = good(stations)
        doc.encoding = "Shift_JIS"
        var data = doc.text.data(using: .shiftJIS)!
        XCTAssertGreaterThan(data.count, 300_000)
        let marker = "<ksj:stationName>".data(using: .utf8)!
        let lastName = data.range(of: marker, options: .backwards)!.upperBound
        data.replaceSubrange(lastName..<(lastName + 2), with: [0x81, 0x20])
        let at = line(of: "駅1500", in: doc.text)
        XCTAssertEqual(at, 12_019)
        XCTAssertEqual(problems(data), [
            "raw/n02.xml:\(at): malformed XML: input conversion failed due to input error, bytes 0x81 0x20 0x31 0x35",
        ])
    }

    func testMissingRequiredElements() {
        let doc = good([
            N02Doc.station("s2", curve: nil, company: "A", line: "L", name: "Y"),
            N02Doc.station("s3", curve: "c1", company: "A", line: "L", name: nil),
            N02Doc.station("s4", curve: "c1", company: nil, line: "L", name: "Z"),
            N02Doc.section("r1", curve: "c1", company: "A", line: nil),
            N02Doc.station("s5", curve: "c1", company: "A", line: "L", name: "W")
                .replacingOccurrences(of: "<ksj:stationName>W</ksj:stationName>", with: "<ksj:stationName> </ksj:stationName>"),
        ])
        let t = doc.text
        XCTAssertEqual(problems(t), [
            "raw/n02.xml:\(line(of: "\"s2\"", in: t)): ksj:Station s2: missing ksj:location",
            "raw/n02.xml:\(line(of: "\"s3\"", in: t)): ksj:Station s3: missing ksj:stationName",
            "raw/n02.xml:\(line(of: "\"s4\"", in: t)): ksj:Station s4: missing ksj:operationCompany",
            "raw/n02.xml:\(line(of: "\"r1\"", in: t)): ksj:RailroadSection r1: missing ksj:railwayLineName",
            "raw/n02.xml:\(line(of: "\"s5\"", in: t)): ksj:Station s5: empty ksj:stationName",
        ])
        XCTAssertEqual(line(of: "\"s2\"", in: t), 21)
    }

    func testBadCodesAndHrefs() {
        let doc = good([
            N02Doc.station("s2", curve: "c1", company: "A", line: "L", name: "Y")
                .replacingOccurrences(of: "<ksj:railwayType>12<", with: "<ksj:railwayType>普通<"),
            N02Doc.station("s3", curve: "c1", company: "A", line: "L", name: "Y")
                .replacingOccurrences(of: "xlink:href=\"#c1\"", with: "xlink:href=\"other.xml#c1\""),
            N02Doc.station("s4", curve: "c1", company: "A", line: "L", name: "Y")
                .replacingOccurrences(of: "xlink:href=\"#c1\"", with: "href=\"#c1\""),
        ])
        let t = doc.text
        let s3 = line(of: "\"s3\"", in: t) + 1, s4 = line(of: "\"s4\"", in: t) + 1
        XCTAssertEqual(problems(t), [
            "raw/n02.xml:\(line(of: "\"s2\"", in: t)): ksj:Station s2: ksj:railwayType '普通' is not an integer",
            "raw/n02.xml:\(s3): ksj:Station s3: ksj:location xlink:href 'other.xml#c1' is not a reference to a gml:id in this file (#id)",
            "raw/n02.xml:\(s4): ksj:Station s4: ksj:location has no xlink:href",
        ])
    }

    func testBadPosLists() {
        let doc = good([
            N02Doc.curve("c2", [(35.0, 135.0), (35.0, 135.001)])
                .replacingOccurrences(of: "35.000000 135.001000", with: "35.000000 135.00x"),
            N02Doc.curve("c3", [(35.0, 135.0), (35.0, 135.001)])
                .replacingOccurrences(of: "35.000000 135.001000", with: "35.000000"),
            N02Doc.curve("c4", [(35.0, 135.0), (10.0, 135.001)]),
            N02Doc.curve("c5", [(135.0, 35.0)]),
            N02Doc.curve("c6", []),
            N02Doc.curve("c1", [(35.0, 135.0)]),
        ])
        let t = doc.text
        func at(_ curve: String, _ offset: Int) -> Int { line(of: "\"\(curve)\"", in: t) + offset }
        // Lines: Curve +0, segments +1, LineStringSegment +2, posList +3, first pair +4.
        XCTAssertEqual(problems(t), [
            "raw/n02.xml:\(at("c2", 5)): gml:Curve c2: '135.00x' in gml:posList is not a number",
            "raw/n02.xml:\(at("c3", 3)): gml:Curve c3: gml:posList has an odd count of numbers (3); expected lat lng pairs",
            "raw/n02.xml:\(at("c4", 5)): gml:Curve c4: point 10.000000 135.001000 lies outside Japan (20..46 N, 122..154 E)",
            "raw/n02.xml:\(at("c5", 4)): gml:Curve c5: point 135.000000 35.000000 lies outside Japan (20..46 N, 122..154 E)",
            "raw/n02.xml:\(at("c6", 0)): gml:Curve c6: the curve has no coordinates",
            "raw/n02.xml:69: gml:Curve c1: duplicate gml:id (first at line 3)",
        ])
        XCTAssertTrue(t.components(separatedBy: "\n")[68].contains("gml:id=\"c1\""))
    }

    /// Codes the known lists lack are kept; one warning per code names its first feature and counts them.
    func testUnknownCodesAreKeptWithAWarning() throws {
        let doc = good([
            N02Doc.station("s2", curve: "c1", company: "A", line: "L", name: "Y", rt: 18),
            N02Doc.station("s3", curve: "c1", company: "A", line: "L", name: "Z", rt: 18),
            N02Doc.section("r1", curve: "c1", company: "A", line: "L", spt: 7),
        ])
        let t = doc.text
        let n = try read(t)
        XCTAssertEqual(n.stations.map(\.name).sorted(), ["X", "Y", "Z"])
        XCTAssertEqual(n.warnings.map(\.description), [
            "raw/n02.xml:\(line(of: "\"s2\"", in: t)): ksj:railwayType: unknown code 18 (known: 11, 12, 13, 14, 15, 16, 17, 21, 22, 23, 24, 25); kept, on 2 features",
            "raw/n02.xml:\(line(of: "\"r1\"", in: t)): ksj:serviceProviderType: unknown code 7 (known: 1, 2, 3, 4, 5); kept, on 1 feature",
        ])
        XCTAssertEqual(try read(good().text).warnings, [])
    }

    func testDanglingHrefs() {
        let doc = good([
            N02Doc.station("s2", curve: "nowhere", company: "A", line: "L", name: "Y"),
            N02Doc.section("r1", curve: "gone", company: "A", line: "L"),
        ])
        let t = doc.text
        XCTAssertEqual(problems(t), [
            "raw/n02.xml:\(line(of: "#nowhere", in: t)): ksj:Station s2: xlink:href \"#nowhere\" names no gml:Curve in the file",
            "raw/n02.xml:\(line(of: "#gone", in: t)): ksj:RailroadSection r1: xlink:href \"#gone\" names no gml:Curve in the file",
        ])
    }

    func testProblemsStopAtTheCollectorLimit() throws {
        let many = (1...150).map { N02Doc.station("s\($0)", curve: "c1", company: "A", line: "L", name: nil) }
        do {
            _ = try read(good(many).text)
            XCTFail("expected bad input")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.count, 100)
            XCTAssertTrue(error.truncated)
        }
    }

    /// A missing N02 file is bad input (exit 2), as a missing CSV source file is: it
    /// was an environment error (exit 3), which README does not promise.
    func testMissingFileIsBadInput() {
        XCTAssertEqual(inputErrorMessages { try N02Reader.read(path: self.folder.appendingPathComponent("absent.xml").path, label: "raw/absent.xml") },
                       ["raw/absent.xml: file not found; expected the N02 XML file sources.json names"])
        // A link whose target is gone is missing too.
        let link = folder.appendingPathComponent("link.xml").path
        XCTAssertEqual(symlink(folder.appendingPathComponent("gone.xml").path, link), 0)
        XCTAssertEqual(inputErrorMessages { try N02Reader.read(path: link, label: "raw/link.xml") },
                       ["raw/link.xml: file not found; expected the N02 XML file sources.json names"])
    }

    /// gml:id is an XML ID: one per document. A ksj:Station reusing another feature's id,
    /// or a curve's, was accepted (only two curves sharing one were refused); features
    /// are then told apart by nothing, and a reference to the id names two things.
    func testDuplicateFeatureIDsAreErrorsAtTheirLine() {
        var doc = good([
            N02Doc.station("s1", curve: "c1", company: "A", line: "L", name: "Y"),
            N02Doc.station("c1", curve: "c1", company: "A", line: "L", name: "Z"),
            N02Doc.section("s1", curve: "c1", company: "A", line: "L"),
        ])
        var t = doc.text
        func at(_ id: String, _ nth: Int) -> Int {
            let lines = t.components(separatedBy: "\n")
            return lines.indices.filter { lines[$0].contains("gml:id=\"\(id)\"") }[nth] + 1
        }
        XCTAssertEqual(problems(t), [
            "raw/n02.xml:\(at("s1", 1)): ksj:Station s1: duplicate gml:id (first at line \(at("s1", 0)), a ksj:Station)",
            "raw/n02.xml:\(at("c1", 1)): ksj:Station c1: duplicate gml:id (first at line \(at("c1", 0)), a gml:Curve)",
            "raw/n02.xml:\(at("s1", 2)): ksj:RailroadSection s1: duplicate gml:id (first at line \(at("s1", 0)), a ksj:Station)",
        ])
        // A curve after the feature that took its id first.
        doc = good([N02Doc.curve("s1", [(35.0, 135.0), (35.0, 135.001)])])
        t = doc.text
        XCTAssertEqual(problems(t), ["raw/n02.xml:\(at("s1", 1)): gml:Curve s1: duplicate gml:id (first at line \(at("s1", 0)), a ksj:Station)"])
    }

    func testLibxml2PrintsNothingItself() throws {
        var doc = good()
        doc.encoding = "Shift_JIS"
        var bad = doc.text.data(using: .shiftJIS)!
        bad.append(contentsOf: [0x81, 0x20, 0x3C, 0x3C])
        let path = try write(bad, "bad.xml")
        let capture = folder.appendingPathComponent("stderr.txt").path
        fflush(nil)   // every output stream, stderr included
        let saved = dup(2)
        let fd = open(capture, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        dup2(fd, 2)
        XCTAssertThrowsError(try N02Reader.read(path: path, label: "raw/bad.xml")) { XCTAssertNotNil($0.station(.badInput), "\($0)") }
        XCTAssertThrowsError(try read(good().text.replacingOccurrences(of: "</ksj:Station>", with: ""))) { XCTAssertNotNil($0.station(.badInput), "\($0)") }
        fflush(nil)   // every output stream, stderr included
        dup2(saved, 2)
        close(fd)
        close(saved)
        XCTAssertEqual(try String(contentsOfFile: capture, encoding: .utf8), "")
    }

    // MARK: The national file

    /// All of Japan as an N02 document (Synth's, from the ekidata fixture): read as a stream, it gives
    /// back ekidata's stations, lines and operators, whatever their counts.
    func testNationalFile() async throws {
        let document = try await NationalData.n02()
        let n = try N02Reader.read(path: document.path, label: "raw/N02-stations.xml")
        // Each ksj:Station is one link of a station to its line, with a station code of its own.
        XCTAssertEqual(n.stationLines.count, document.features)
        XCTAssertEqual(document.features, document.network.stationLines.count)
        XCTAssertEqual(Set(n.stations.flatMap(\.matchKeys)).count, document.features)
        XCTAssertEqual(Set(n.stations.map(\.key)).count, n.stations.count)
        XCTAssertEqual(Set(n.lines.map(\.key)).count, n.lines.count)
        XCTAssertTrue(n.stations.allSatisfy { MicroDegrees.inJapan(lat: $0.lat, lng: $0.lng) })
        // Ranks on every line run 1...n.
        for (line, links) in Dictionary(grouping: n.stationLines, by: \.lineKey) {
            XCTAssertEqual(links.map(\.sort).sorted(), Array(1...links.count), line)
        }

        // The ekidata reading of the same stations: every station on a line, by operator, name
        // and point (the platform curve's middle is ekidata's point exactly); every line with
        // stations, Shinkansen or not as ekidata says, its stations in the same order; every
        // operator of those lines, of the same type.
        let ekidata = try EkidataReader.read(folder: NationalData.ekidata, label: "ekidata")
        func operatorNames(_ source: SourceNetwork) -> [String: String] {
            Dictionary(uniqueKeysWithValues: source.operators.map { ($0.key, $0.name) })
        }
        func stations(_ source: SourceNetwork) -> [String] {
            let operators = operatorNames(source), linked = Set(source.stationLines.map(\.stationKey))
            return source.stations.filter { linked.contains($0.key) }
                .map { "\(operators[$0.operatorKey] ?? "?") \($0.name) \(MicroDegrees.format($0.lat)),\(MicroDegrees.format($0.lng))" }
        }
        func lines(_ source: SourceNetwork) -> [String: [String]] {
            let operators = operatorNames(source)
            let lineName = Dictionary(uniqueKeysWithValues: source.lines.map {
                ($0.key, "\(operators[$0.operatorKey] ?? "?") \($0.name)" + ($0.type == LineType.shinkansen ? " (Shinkansen)" : ""))
            })
            let stationName = Dictionary(uniqueKeysWithValues: source.stations.map { ($0.key, $0.name) })
            return Dictionary(grouping: source.stationLines, by: \.lineKey).reduce(into: [:]) { out, line in
                out[lineName[line.key] ?? line.key] = line.value.sorted { $0.sort < $1.sort }.map { stationName[$0.stationKey] ?? $0.stationKey }
            }
        }
        func operatorTypes(_ source: SourceNetwork) -> [String: Int] {
            let running = Set(source.stationLines.map(\.lineKey))
            let operators = Set(source.lines.filter { running.contains($0.key) }.map(\.operatorKey))
            return Dictionary(source.operators.filter { operators.contains($0.key) }.map { ($0.name, $0.type ?? 0) }, uniquingKeysWith: { a, _ in a })
        }
        assertSameElements(stations(n), stations(ekidata), "stations")
        XCTAssertEqual(n.stations.count, Set(document.network.stationLines.map(\.stationID)).count, "one N02 station per station on a line")
        let ours = lines(n), theirs = lines(ekidata)
        XCTAssertEqual(Set(ours.keys), Set(theirs.keys))
        for (line, names) in ours where theirs[line] != nil { XCTAssertEqual(names, theirs[line], line) }
        XCTAssertEqual(operatorTypes(n), operatorTypes(ekidata))
    }

    /// Equal as multisets; on failure names a few of the elements only one side has.
    func assertSameElements(_ a: [String], _ b: [String], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        var count: [String: Int] = [:]
        for x in a { count[x, default: 0] += 1 }
        for x in b { count[x, default: 0] -= 1 }
        let onlyA = count.filter { $0.value > 0 }.keys.sorted(), onlyB = count.filter { $0.value < 0 }.keys.sorted()
        XCTAssertEqual(a.count, b.count, "\(what): count", file: file, line: line)
        XCTAssertTrue(onlyA.isEmpty && onlyB.isEmpty, "\(what): only read from N02: \(onlyA.prefix(5)); only from ekidata: \(onlyB.prefix(5))",
                      file: file, line: line)
    }
}
