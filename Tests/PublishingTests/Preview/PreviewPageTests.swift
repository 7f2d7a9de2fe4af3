import BuildDB
import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// The preview page in a real browser: the pins it shows must be the rows of the
/// apps' SQL on the same bundle, view by view, in order.
final class PreviewPageTests: XCTestCase {
    override class func tearDown() { NationalPreview.removeShared() }

    /// Across the country and the zooms (spans 0.05 to 12.8), every pins setting,
    /// and one view with no station at all.
    static let views: [AppView] = [
        AppView(name: "Tokyo station", lat: 35.681, lng: 139.767, span: 0.05, pins: 100),
        AppView(name: "Tokyo", lat: 35.6812, lng: 139.7671, span: 0.1, pins: 50),
        AppView(name: "Shinjuku", lat: 35.6896, lng: 139.7006, span: 0.2, pins: 100),
        AppView(name: "central Tokyo", lat: 35.68, lng: 139.76, span: 0.4, pins: 150),
        AppView(name: "Tokyo and Yokohama", lat: 35.6, lng: 139.65, span: 0.8, pins: 200),
        AppView(name: "Kanto", lat: 35.9, lng: 139.8, span: 1.6, pins: 300),
        AppView(name: "greater Kanto", lat: 36.0, lng: 139.5, span: 3.2, pins: 500),
        AppView(name: "central Honshu", lat: 36.5, lng: 138.0, span: 6.4, pins: 100),
        AppView(name: "Japan", lat: 36.2, lng: 137.6, span: 12.8, pins: 500),
        AppView(name: "Umeda", lat: 34.7025, lng: 135.4959, span: 0.05, pins: 100),
        AppView(name: "Osaka", lat: 34.69, lng: 135.52, span: 0.2, pins: 200),
        AppView(name: "Kansai", lat: 34.8, lng: 135.6, span: 1.6, pins: 150),
        AppView(name: "Nagoya", lat: 35.17, lng: 136.88, span: 0.4, pins: 100),
        AppView(name: "rural Nagano", lat: 36.2, lng: 137.9, span: 0.8, pins: 100),
        AppView(name: "rural Akita", lat: 39.5, lng: 140.5, span: 0.4, pins: 50),
        AppView(name: "Kochi, Shikoku", lat: 33.5, lng: 133.3, span: 1.6, pins: 100),
        AppView(name: "Sapporo", lat: 43.0686, lng: 141.3508, span: 0.1, pins: 100),
        AppView(name: "eastern Hokkaido", lat: 43.5, lng: 144.0, span: 3.2, pins: 50),
        AppView(name: "Hokkaido", lat: 43.4, lng: 142.8, span: 6.4, pins: 300),
        AppView(name: "Fukuoka", lat: 33.59, lng: 130.42, span: 0.2, pins: 100),
        AppView(name: "Kagoshima", lat: 31.58, lng: 130.54, span: 0.8, pins: 150),
        AppView(name: "Kyushu", lat: 32.6, lng: 130.8, span: 3.2, pins: 500),
        AppView(name: "Naha", lat: 26.21, lng: 127.68, span: 0.1, pins: 100),
        AppView(name: "awkward decimals near Nagoya", lat: 35.123456789, lng: 136.987654321, span: 0.33333, pins: 300),
        AppView(name: "the Pacific, no station", lat: 31.0, lng: 142.0, span: 0.4, pins: 100),
    ]

    /// Crowded views (more stations in the box than pins, so the weights decide) in
    /// a city, the country, the countryside and Hokkaido.
    static let crowded = [1, 3, 8, 13, 17]

    func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "preview-browser-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// What the page shows for each view (data-pins), opened with `suffix` after the view's hash.
    func shownPins(_ page: String, _ views: [AppView], suffix: String = "") throws -> [[String: String]] {
        let bodies = try Chromium.bodies(of: views.map { "file://\(page)#\($0.hash)\(suffix)" }, scratch: try scratch())
        for (view, body) in zip(views, bodies) {
            XCTAssertNil(body["data-error"], "\(view): the page failed")
            XCTAssertEqual(body["data-ready"], "1", "\(view): the page never drew")
        }
        return bodies
    }

    func testPinsAreTheAppsQueryInEveryView() async throws {
        let national = try await NationalPreview.shared()
        let started = Date()
        let bodies = try shownPins(national.page, Self.views)
        let seconds = Date().timeIntervalSince(started)
        print("preview: \(Self.views.count) views in chromium took \(String(format: "%.1f", seconds)) s")
        var drawn = 0
        for (view, body) in zip(Self.views, bodies) {
            let expected = try view.expectedPins(in: national.candidate)
            XCTAssertEqual(body["data-pins"], expected, "\(view): the page's pins are not the apps' query")
            XCTAssertEqual(body["data-side"], "candidate")
            if !expected.isEmpty { drawn += 1 }
        }
        // The comparison means something only where there are pins, and where weights choose among them.
        XCTAssertEqual(drawn, Self.views.count - 1, "every view but the Pacific shows pins")
        XCTAssertEqual(try Self.views.last!.expectedPins(in: national.candidate), "")
        let crowded = try Self.views.filter { try $0.stationsInBox(of: national.candidate) > $0.pins }
        XCTAssertGreaterThanOrEqual(crowded.count, 15, "most views hold more stations than pins")
        for i in Self.crowded { XCTAssertTrue(crowded.contains { $0.name == Self.views[i].name }, "\(Self.views[i]) is crowded") }
    }

    /// The comparator the tests plant a fault in: the page's ORDER BY weight, distance, s_id.
    static let appOrder = "W[a] - W[b] || D[a] - D[b] || ID[a] - ID[b]"

    func testAPageOrderingByDistanceAloneFailsTheComparison() async throws {
        let national = try await NationalPreview.shared()
        let page = try String(contentsOfFile: national.page, encoding: .utf8)
        XCTAssertEqual(page.components(separatedBy: Self.appOrder).count, 2, "the page's comparator is where the fault is planted")
        let faulty = national.folder + "/faulty.html"
        try page.replacingOccurrences(of: Self.appOrder, with: "D[a] - D[b] || ID[a] - ID[b]").write(toFile: faulty, atomically: true, encoding: .utf8)
        let views = Self.crowded.map { Self.views[$0] }
        let bodies = try shownPins(faulty, views)
        let wrong = try zip(views, bodies).filter { view, body in body["data-pins"] != (try view.expectedPins(in: national.candidate)) }
        XCTAssertEqual(wrong.count, views.count, "ordering by distance alone shows other pins in every crowded view")
    }

    func testBaselineSideShowsTheBaselinesQuery() async throws {
        let national = try await NationalPreview.shared()
        let views = [Self.views[2], Self.views[3], Self.views[8]]
        let bodies = try shownPins(national.page, views, suffix: "&side=baseline")
        for (view, body) in zip(views, bodies) {
            XCTAssertEqual(body["data-side"], "baseline")
            XCTAssertEqual(body["data-pins"], try view.expectedPins(in: national.baseline), "\(view): the baseline's pins")
        }
        // Tokyo's weights differ between the two: the switch is seen only if the pins differ.
        XCTAssertNotEqual(try views[0].expectedPins(in: national.baseline), try views[0].expectedPins(in: national.candidate))
        XCTAssertNotEqual(try views[1].expectedPins(in: national.baseline), try views[1].expectedPins(in: national.candidate))
    }

    /// A pan rewrites the hash to the view it shows; opening that hash shows the same pins.
    func testAPanRewritesTheHashAndItsReloadShowsTheSamePins() async throws {
        let national = try await NationalPreview.shared()
        let start = Self.views[3]
        let panned = try shownPins(national.page, [start], suffix: "&bench=1")[0]
        let hash = try XCTUnwrap(panned["data-hash"])
        XCTAssertNotEqual(hash, "#" + start.hash, "a pan of 60 px moves the view")
        XCTAssertTrue(hash.hasSuffix("&pins=\(start.pins)"), hash)
        let reloaded = try Chromium.bodies(of: ["file://\(national.page)\(hash)"], scratch: try scratch())[0]
        XCTAssertEqual(reloaded["data-pins"], panned["data-pins"])
        // And those are the apps' pins for the hash's numbers.
        var fields: [String: Double] = [:]
        for part in hash.dropFirst().split(separator: "&") {
            let kv = part.split(separator: "=")
            fields[String(kv[0])] = Double(String(kv[1]))
        }
        let view = AppView(name: "after a pan", lat: fields["lat"]!, lng: fields["lng"]!, span: fields["span"]!, pins: start.pins)
        XCTAssertEqual(view.span, start.span, accuracy: start.span * 0.01, "a pan keeps the zoom")
        XCTAssertEqual(reloaded["data-pins"], try view.expectedPins(in: national.candidate))
    }

    /// Nothing is fetched: the page's own parts name no network address but the
    /// opt-in tiles', and in the browser (with every name lookup failing) it loads
    /// no resource and still draws. A planted image shows the check can fail.
    func testThePageLoadsNothingFromTheNetwork() async throws {
        let national = try await NationalPreview.shared()
        let page = try String(contentsOfFile: national.page, encoding: .utf8)
        XCTAssertEqual(Self.addresses(inOwnPartsOf: page), ["https://tile.openstreetmap.org/{z}/{x}/{y}.png", "https://www.openstreetmap.org/copyright"])
        for tag in ["<script src", "<link", "<img", "<iframe", "@import", "url("] {
            XCTAssertFalse(Self.ownParts(of: page).contains(tag), "the page's own markup loads something: \(tag)")
        }

        let planted = national.folder + "/planted.html"
        try page.replacingOccurrences(of: "<div id=\"app\">", with: "<img src=\"https://tile.openstreetmap.org/0/0/0.png\"><div id=\"app\">")
            .write(toFile: planted, atomically: true, encoding: .utf8)
        XCTAssertTrue(Self.ownParts(of: try String(contentsOfFile: planted, encoding: .utf8)).contains("<img"))

        let view = Self.views[2]
        // Each page a browser's own (not a frame of the test's page): what it loads is its own.
        let bodies = try Chromium.doms(of: [national.page, planted].map { "file://\($0)#\(view.hash)" }, scratch: try scratch()).map(Chromium.bodyAttributes)
        XCTAssertEqual(bodies[0]["data-resources"], "", "the page loaded something")
        XCTAssertEqual(bodies[0]["data-pins"], try view.expectedPins(in: national.candidate), "without a network it still draws")
        XCTAssertEqual(bodies[1]["data-resources"], "https://tile.openstreetmap.org/0/0/0.png", "the planted image is seen")
    }

    /// The page without Leaflet's inlined files (checked to be Debian's, verbatim).
    static func ownParts(of page: String) -> String {
        var rest = page
        for file in ["leaflet.js", "leaflet.css"] {
            let text = (try? String(contentsOfFile: PreviewPage.debianLeaflet + "/" + file, encoding: .utf8)) ?? "absent"
            XCTAssertEqual(rest.components(separatedBy: text).count, 2, "\(file) is inlined once, as Debian ships it")
            rest = rest.replacingOccurrences(of: text, with: "")
        }
        return rest
    }

    static func addresses(inOwnPartsOf page: String) -> Set<String> {
        let own = ownParts(of: page)
        var found = Set<String>()
        var rest = own[...]
        while let r = rest.range(of: "http") {
            let tail = rest[r.lowerBound...]
            let end = tail.firstIndex { "'\" <>)".contains($0) } ?? tail.endIndex
            if tail.hasPrefix("http://") || tail.hasPrefix("https://") { found.insert(String(tail[..<end])) }
            rest = rest[r.upperBound...]
        }
        return found
    }

    func testSameBundlesGiveTheSameBytes() async throws {
        let national = try await NationalPreview.shared()
        let again = national.folder + "/again.html"
        try PreviewPage.write(candidate: national.candidate, baseline: national.baseline, to: again)
        XCTAssertEqual(try Files.read(again), try Files.read(national.page))
        let alone = try PreviewPage.html(candidate: national.candidate, baseline: nil)
        XCTAssertEqual(try PreviewPage.html(candidate: national.candidate, baseline: nil), alone)
        XCTAssertNotEqual(alone, try String(contentsOfFile: national.page, encoding: .utf8))
        // A national preview with its baseline stays small enough to mail or attach to CI.
        XCTAssertLessThan(try Files.read(national.page).count, 5_000_000)
    }

    /// The change list is the diff's: the same stations, moves in metres, names.
    func testTheChangeListIsTheDiffs() async throws {
        let national = try await NationalPreview.shared()
        let page = try String(contentsOfFile: national.page, encoding: .utf8)
        let open = try XCTUnwrap(page.range(of: "<script type=\"application/json\" id=\"preview-data\">"))
        let close = try XCTUnwrap(page[open.upperBound...].range(of: "</script>"))
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(page[open.upperBound..<close.lowerBound].utf8)) as? [String: Any])
        let entries = try XCTUnwrap((data["changes"] as? [String: Any])?["entries"] as? [[String: Any]])
        func ids(_ kind: String) -> [Int] { entries.filter { $0["kind"] as? String == kind }.compactMap { $0["id"] as? Int } }

        let report = try DiffReport.make(oldPath: national.baseline, newPath: national.candidate)
        let s = report.summary
        XCTAssertEqual(ids("moved"), s.moves.map(\.stationID), "moves, furthest first")
        XCTAssertEqual(ids("disabled").count, s.stationsDisabled)
        XCTAssertEqual(ids("reenabled").count, s.stationsReenabled)
        XCTAssertEqual(ids("weight").count, s.weightChanges)
        XCTAssertEqual(ids("added").count, report.difference["stations"]!.added.count)
        XCTAssertEqual(ids("removed").count, 1)
        XCTAssertGreaterThan(ids("renamed").count, 90)
        XCTAssertGreaterThan(ids("weight").count, 100)
        let move = try XCTUnwrap(entries.first { $0["kind"] as? String == "moved" })
        XCTAssertEqual(move["metres"] as? Double ?? 0, s.moves[0].metres, accuracy: 0.05)
        XCTAssertEqual(move["name"] as? String, report.name(of: report.difference["stations"]!.changed.first { $0.key[0].intValue == s.moves[0].stationID }!.new,
                                                            in: report.difference["stations"]!.shape, side: .new))
        let renamed = try XCTUnwrap(entries.first { $0["kind"] as? String == "renamed" })
        XCTAssertTrue((renamed["old"] as? String ?? "").hasSuffix("（旧）"), "old -> new name")
    }

    /// The s_ids a plan contests or orphans are listed under "Identities to decide", each with
    /// the row of raw/identity.csv that decides it (and ringed on the map).
    func testTheIdentitiesToDecideAreListed() async throws {
        let national = try await NationalPreview.shared()
        let review = IdentityReview(kept: 1, entries: [
            IdentityReview.Entry(stationID: 1274, kind: .contested, name: "田町 (JR東日本)", reason: "another name 2483 m away",
                                 decision: "1274,same,station=田町,the same station"),
            IdentityReview.Entry(stationID: 7, kind: .orphaned, name: "仁山 (JR北海道)", reason: "lives on as s_id 99", successor: 99,
                                 decision: "7,same,station=仁山,keep the s_id"),
            IdentityReview.Entry(stationID: 5, kind: .renamed, name: "五稜郭 (JR北海道)"),
        ])
        let page = try scratch() + "/page.html"
        try PreviewPage.write(candidate: national.candidate, baseline: national.baseline, to: page, identity: review)
        let body = try XCTUnwrap(try shownPins(page, [Self.views[0]]).first)
        XCTAssertEqual(body["data-identities"], "contested:1274,orphaned:7", "the renamed s_id is no decision's")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let open = try XCTUnwrap(html.range(of: "<script type=\"application/json\" id=\"preview-data\">"))
        let close = try XCTUnwrap(html[open.upperBound...].range(of: "</script>"))
        let data = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(html[open.upperBound..<close.lowerBound].utf8)) as? [String: Any])
        let marks = try XCTUnwrap(data["identity"] as? [[String: Any]])
        XCTAssertEqual(marks.compactMap { $0["decision"] as? String }, ["1274,same,station=田町,the same station", "7,same,station=仁山,keep the s_id"])
    }

    func testWithoutLeafletItIsAnEnvironmentErrorNamingThePackage() async throws {
        let national = try await NationalPreview.shared()
        let out = national.folder + "/no-leaflet.html"
        XCTAssertThrowsError(try PreviewPage.write(candidate: national.candidate, baseline: nil, to: out, leafletFolder: national.folder + "/nowhere")) {
            XCTAssertTrue($0.station(.environment) != nil, "\($0)")
            XCTAssertTrue("\($0)".contains("apt-get install libjs-leaflet"), "\($0)")
        }
        XCTAssertFalse(Files.exists(out))
    }

    /// `stationdb preview` writes the library's page; a path that is no bundle is bad input.
    func testTheCommand() async throws {
        let national = try await NationalPreview.shared()
        let stationdb = try BuiltTools.stationdb()
        let out = national.folder + "/command.html"
        XCTAssertEqual(try run(stationdb, ["preview", national.candidate, "--baseline", national.baseline, "--out", out]), 0)
        XCTAssertEqual(try Files.read(out), try Files.read(national.page))
        XCTAssertEqual(try run(stationdb, ["preview", national.folder, "--out", out]), 2, "a folder that is no dist")
        XCTAssertEqual(try Files.read(out), try Files.read(national.page), "a refused run leaves the page as it was")
    }

    func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = arguments
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return p.terminationStatus
    }
}
