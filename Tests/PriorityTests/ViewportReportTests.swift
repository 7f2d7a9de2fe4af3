import Foundation
import Priority
import StationCore
import XCTest

final class ViewportReportTests: XCTestCase {
    private func grid(weight: (Int, Int) -> Int) -> [WeightedStation] {
        // 20 x 20 stations 0.01 degree apart around 35.5 N 139.5 E.
        var out: [WeightedStation] = []
        for i in 0..<20 { for j in 0..<20 {
            out.append(WeightedStation(id: i * 100 + j + 1, lat: 35_400_000 + i * 10_000, lng: 139_400_000 + j * 10_000, weight: weight(i, j), enabled: true))
        } }
        return out
    }

    /// The clients' query: smaller weights first, then nearest the centre, at most N.
    func testShownFollowsTheClientsOrder() {
        var stations = grid { i, j in (i == 0 && j == 0) ? 11 : 13 }
        stations.append(WeightedStation(id: 99_999, lat: 35_500_000, lng: 139_500_000, weight: 1, enabled: false))
        let view = Viewport(lat: 35_500_000, lng: 139_500_000, halfLat: 200_000, halfLng: 200_000)
        let shown = ViewportReport.shown(stations: stations, viewport: view, pins: 5)
        XCTAssertEqual(shown.count, 5)
        XCTAssertEqual(shown[0], 1, "the one weight-11 station first, though it is far from the centre")
        XCTAssertEqual(Array(shown.dropFirst()), [1011, 911, 1010, 1012], "then the nearest 13s, ties by s_id")
        XCTAssertFalse(shown.contains(99_999), "disabled stations are never shown")
    }

    func testSpreadWeightsCoverMoreThanACentralBlob() {
        // Every 4th station in each direction at 11: spread over the grid.
        let spread = grid { i, j in (i % 4 == 0 && j % 4 == 0) ? 11 : 13 }
        let flat = grid { _, _ in 13 }
        var config = ViewportReportConfig(viewports: 200, pins: 30, seed: 3)
        config.minLatSpan = 0.15; config.maxLatSpan = 0.25
        let a = ViewportReport.run(stations: spread, config: config), b = ViewportReport.run(stations: flat, config: config)
        XCTAssertGreaterThan(a.overall.viewports, 50)
        XCTAssertGreaterThan(a.overall.coverage, b.overall.coverage + 0.05, "\(a.overall) vs \(b.overall)")
        XCTAssertTrue((0...1).contains(a.overall.panStability) && (0...1).contains(a.overall.zoomStability))
    }

    func testViewportsDependOnlyOnSeedAndStations() {
        let s = grid { _, _ in 13 }
        let config = ViewportReportConfig(viewports: 50, pins: 10, seed: 11)
        XCTAssertEqual(ViewportReport.viewports(stations: s, config: config), ViewportReport.viewports(stations: s.reversed(), config: config))
        let spans = ViewportReport.viewports(stations: s, config: config).map(\.latSpanDegrees)
        XCTAssertTrue(spans.allSatisfy { $0 >= 0.049 && $0 <= 13.01 })
        XCTAssertEqual(ViewportReport.run(stations: s, config: config), ViewportReport.run(stations: s.shuffled(), config: config))
    }

    func testRandomBaselineKeepsHandWeightsAndCounts() {
        let s = grid { i, j in i == 0 ? 3 : [11, 12, 13][(i + j) % 3] }
        let r = WeightedStations.randomMachineWeights(s, seed: 1)
        XCTAssertEqual(r.map(\.weight).sorted(), s.map(\.weight).sorted())
        XCTAssertEqual(r.filter { $0.weight == 3 }.map(\.id), s.filter { $0.weight == 3 }.map(\.id))
        XCTAssertNotEqual(r.map(\.weight), s.sorted { $0.id < $1.id }.map(\.weight))
        XCTAssertEqual(r, WeightedStations.randomMachineWeights(s, seed: 1))
    }

    func testReadsAnyBundleStationsTable() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("priority-bundle-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("bundle.sqlite").path
        let db = try SQLiteDatabase(path: path, mode: .create)
        try db.execute(BundleSchema.stations.createSQL)
        try db.execute("INSERT INTO stations VALUES (2,'B','','',13,'',35000002,139000002,1,0,12), (1,'A','','',13,'',35000001,139000001,1,1,4)")
        db.close()
        XCTAssertEqual(try WeightedStations.read(bundle: path), [
            WeightedStation(id: 1, lat: 35_000_001, lng: 139_000_001, weight: 4, enabled: true, pref: 13),
            WeightedStation(id: 2, lat: 35_000_002, lng: 139_000_002, weight: 12, enabled: false, pref: 13),
        ])
        XCTAssertThrowsError(try WeightedStations.read(bundle: dir.appendingPathComponent("none.sqlite").path)) { XCTAssertNotNil($0.station(.environment), "\($0)") }
    }

    func testMapDrawsEveryLiveStationAndTheViewportPins() {
        var stations = grid { i, j in i == 0 && j < 3 ? 2 : [11, 12, 13][(i + j) % 3] }
        stations.append(WeightedStation(id: 77_777, lat: 35_450_000, lng: 139_450_000, weight: 11, enabled: false))
        let svg = WeightMap.svg([(nil, stations)])
        XCTAssertTrue(svg.hasPrefix("<svg"))
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, 400 + 4, "400 live stations and 4 legend dots")
        XCTAssertTrue(svg.contains("hand 1-10: 3"))
        let view = Viewport(text: "35.5,139.5,0.1")!
        let zoomed = WeightMap.svg([(nil, stations)], viewport: view, pins: 10)
        XCTAssertTrue(zoomed.contains("shown (10 pins)"))
        XCTAssertEqual(zoomed.components(separatedBy: "stroke=\"#000\" stroke-width=\"1.5\"/>").count - 1, 10 + 1 + 1, "10 rings, the frame and the legend's ring")
    }

    /// `stationdb priority map` drew dots with no title, a legend of bare counts and no scale.
    /// The map names what it draws, says what each colour is, and its scale bar measures the
    /// map as the stations lie on it: 1° of latitude between two stations is as many pixels
    /// as the bar draws for that many metres.
    func testTheMapHasATitleALegendAndAScaleThatMeasuresIt() throws {
        let stations = [WeightedStation(id: 1, lat: 35_000_000, lng: 139_000_000, weight: 3, enabled: true),
                        WeightedStation(id: 2, lat: 36_000_000, lng: 139_000_000, weight: 12, enabled: true),
                        WeightedStation(id: 3, lat: 35_500_000, lng: 139_400_000, weight: 13, enabled: true),
                        WeightedStation(id: 4, lat: 35_500_000, lng: 139_200_000, weight: 11, enabled: false)]
        let svg = WeightMap.svg([("dist/5", stations)])
        func texts(_ pattern: Regex<(Substring, Substring)>) -> [String] { svg.matches(of: pattern).map { String($0.1) } }
        XCTAssertEqual(texts(/<title>([^<]*)<\/title>/), ["Station weights: 3 live stations of dist/5"])
        XCTAssertEqual(texts(/<text id="title"[^>]*>([^<]*)<\/text>/), ["Station weights: 3 live stations of dist/5"])
        let legend = try XCTUnwrap(svg.firstMatch(of: /<g id="legend">(?s)(.*?)<\/g>/)?.1)
        XCTAssertEqual(legend.matches(of: /<text[^>]*>([^<]*)<\/text>/).map { String($0.1) }.prefix(5),
                       ["weight:", "hand 1-10: 1", "11: 0", "12: 1", "13: 1"])

        // The two stations one degree of latitude apart, and the bar.
        let circles = svg.matches(of: /<circle cx="([\d.]+)" cy="([\d.]+)" r="[\d.]+" fill="#[0-9a-f]+"\/>/).map { (Double($0.1)!, Double($0.2)!) }
        let xs = Set(circles.prefix(3).map(\.0))
        XCTAssertEqual(circles.count, 3, "the three live stations (the legend's dots have a stroke)")
        let northSouth = circles.prefix(3).filter { $0.0 == circles.prefix(3).map(\.0).min()! }.map(\.1).sorted()
        XCTAssertEqual(xs.count, 2)
        let pxPerMetre = (northSouth[1] - northSouth[0]) / MicroDegrees.distanceMetres(lat1: 35_000_000, lng1: 139_000_000, lat2: 36_000_000, lng2: 139_000_000)
        let scale = try XCTUnwrap(svg.firstMatch(of: /<g id="scale"[^>]*><line x1="([\d.]+)" y1="[\d.]+" x2="([\d.]+)"(?s).*?>(\d+) (km|m)<\/text><\/g>/))
        let barPixels = Double(scale.2)! - Double(scale.1)!, barMetres = Double(scale.3)! * (scale.4 == "km" ? 1000 : 1)
        XCTAssertEqual(barPixels / barMetres, pxPerMetre, accuracy: pxPerMetre * 0.01, "the bar is as long as the map draws \(barMetres) m")
        XCTAssertGreaterThan(barPixels, 50, "long enough to read")
    }

    /// `priority map --proposal`: two weightings of the same stations side by side, each with its
    /// title and legend, the pins of the whole country's view ringed in each.
    func testTwoWeightingsSideBySideRingTheCountrysPins() {
        let svg = WeightMap.svg([("A", grid { i, j in i == 0 && j < 3 ? 2 : 13 }), ("B", grid { i, j in i == j ? 2 : 13 })], country: true, pins: 5)
        XCTAssertEqual(svg.matches(of: /<text id="title"[^>]*>([^<]*)<\/text>/).map { String($0.1) },
                       ["A", "B"].map { "Station weights: 400 live stations of \($0), the 5 pins of the whole country's view" })
        XCTAssertEqual(svg.matches(of: /<g id="legend">/).count, 2)
        XCTAssertEqual(svg.matches(of: /r="6" fill="none"/).count, 10, "5 rings in each")
        XCTAssertEqual(svg.firstMatch(of: /^<svg [^>]* width="(\d+)"/)?.1, "2000")
    }

    /// priority report's numbers had no reference unless --compare-random was given. The
    /// comparison scores the weights beside the same weights drawn at random and the previous
    /// version's, all over the viewports drawn for these weights.
    func testAWeightingIsScoredBesideRandomAndThePreviousWeightsOverTheSameViewports() {
        let ours = grid { i, j in i == 0 && j < 3 ? 2 : [11, 12, 13][(i + j) % 3] }
        var before = ours.map { var s = $0; if (12...13).contains(s.weight) { s.weight = 25 - s.weight }; return s }
        before.removeLast()
        let config = ViewportReportConfig(viewports: 200, pins: 20, seed: 7)
        let c = WeightingComparison.make(ours: ours, previous: ("version 4, published before", before), config: config)
        XCTAssertEqual(c.ours.result, ViewportReport.run(stations: ours, config: config))
        XCTAssertEqual(c.references.map(\.label), [WeightingComparison.randomLabel, "version 4, published before"])
        let views = ViewportReport.viewports(stations: ours, config: config)
        XCTAssertEqual(c.references[0].result, ViewportReport.run(stations: WeightedStations.randomMachineWeights(ours, seed: 7), config: config, over: views))
        XCTAssertEqual(c.references[1].result, ViewportReport.run(stations: before, config: config, over: views))
        XCTAssertNotEqual(views, ViewportReport.viewports(stations: before, config: config), "the previous stations alone would meet other viewports")
        XCTAssertEqual(WeightingComparison.make(ours: ours, previous: nil, config: config).references.map(\.label), [WeightingComparison.randomLabel])
    }
}
