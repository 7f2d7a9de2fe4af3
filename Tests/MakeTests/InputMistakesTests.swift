import Foundation
import Glibc
import TestSupport
import XCTest

/// What the campaign of bad inputs found, through `stationdb publish` and make as a
/// maintainer runs them: every mistake is an error at its file, never a hang, a cut
/// value or an error that points at the wrong file.
final class InputMistakesTests: XCTestCase {
    /// A publish that hangs is killed after this long, and the test fails: a small
    /// network's publish takes a second or two with the debug binary.
    static let timeout = 30.0

    static let ekidata = [
        "company.csv": "company_cd,rr_cd,company_name,company_name_k,company_name_h,company_name_r,company_url,company_type,e_status,e_sort\n1,11,JR東日本,,,,,1,0,1\n",
        "line.csv": "line_cd,company_cd,line_name,line_name_k,line_name_h,line_color_c,line_color_t,line_type,lon,lat,zoom,e_status,e_sort\n11302,1,山手線,,,,,2,,,,0,11302\n",
        "station.csv": "station_cd,station_g_cd,station_name,station_name_k,station_name_r,line_cd,pref_cd,post,address,lon,lat,open_ymd,close_ymd,e_status,e_sort\n"
            + "1130101,1130101,東京,,,11302,13,,,139.766103,35.681391,,,0,1\n1130102,1130102,神田,,,11302,13,,,139.770641,35.691173,,,0,2\n",
        "join.csv": "line_cd,station_cd1,station_cd2\n11302,1130101,1130102\n",
    ]


    /// `stationdb publish` in the fixture's folder (raw, build and dist by relative path, so
    /// messages name raw/...), killed if it outlives the timeout.
    func publish(_ f: MakeFixture, _ extra: [String] = [], environment: [String: String] = [:]) throws -> TimedRun {
        try runWithTimeout(try MakeFixture.stationdb(), ["publish", "--raw", "raw", "--build", "build", "--dist", "dist"] + extra,
                           in: f.folder, environment: environment, timeout: Self.timeout)
    }

    /// raw/ as one source of `kind`: the small native master, a two-station ekidata folder or an N02 document.
    func fixture(_ kind: String) throws -> MakeFixture {
        let f = try MakeFixture()
        switch kind {
        case "ekidata":
            try FileManager.default.createDirectory(atPath: f.raw + "/ekidata", withIntermediateDirectories: true)
            for (name, text) in Self.ekidata { try f.write(text, to: "raw/ekidata/" + name) }
            try f.write(#"{ "sources": [ { "kind": "ekidata", "path": "ekidata" } ] }"#, to: "raw/sources.json")
        case "n02":
            try f.write(SmallN02.document, to: "raw/N02.xml")
            try f.write(#"{ "sources": [ { "kind": "n02", "path": "N02.xml" } ] }"#, to: "raw/sources.json")
        default:
            break
        }
        return f
    }

    /// A FIFO as a source file or sources.json, or a source linked to /dev/zero, hung
    /// `make` forever while it held dist/.lock. Each is now bad input naming the file
    /// (a link that leaves raw/ before anything is read).
    func testNoSpecialFileHangsAPublish() throws {
        let fifo = "a FIFO (named pipe), not a file; expected a file here"
        let zero = "a link to /dev/zero, outside the raw folder"
        let cases: [(kind: String, file: String, link: Bool)] = [
            ("native", "stations.csv", false), ("ekidata", "ekidata/station.csv", false), ("n02", "N02.xml", false),
            ("native", "sources.json", false), ("native", "weights.csv", false),
            ("native", "stations.csv", true), ("ekidata", "ekidata/station.csv", true), ("n02", "N02.xml", true),
        ]
        for c in cases {
            let f = try fixture(c.kind)
            defer { f.remove() }
            let path = f.raw + "/" + c.file
            unlink(path)
            if c.link {
                XCTAssertEqual(symlink("/dev/zero", path), 0)
            } else {
                XCTAssertEqual(mkfifo(path, 0o644), 0)
            }
            let run = try publish(f)
            let what = "\(c.kind) with raw/\(c.file) \(c.link ? "linked to /dev/zero" : "a FIFO")"
            XCTAssertFalse(run.timedOut, "\(what): still running after \(Self.timeout) s")
            XCTAssertEqual(run.status, 2, "\(what): \(run.err)")
            XCTAssertTrue(run.err.contains("error: raw/\(c.file): \(c.link ? zero : fifo)"), "\(what): \(run.err)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist + "/latest.json"), what)
        }
    }

    /// The limit on a file's size is far above any real source, and a setting raises it.
    func testTheSizeLimitIsASettingAMaintainerCanRaise() throws {
        let f = try MakeFixture()
        defer { f.remove() }
        var run = try publish(f, environment: ["STATIONDB_MAX_SOURCE_BYTES": "1000"])
        XCTAssertEqual(run.status, 2, run.err)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: f.raw + "/stations.csv")[.size] as? Int)
        XCTAssertTrue(run.err.contains("error: raw/stations.csv: \(size) bytes, more than the limit of 1000 bytes on a file stationdb reads; "
                                       + "if the file is right, raise the limit with the environment setting STATIONDB_MAX_SOURCE_BYTES=<bytes>"), run.err)
        run = try publish(f, environment: ["STATIONDB_MAX_SOURCE_BYTES": "a lot"])
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("error: STATIONDB_MAX_SOURCE_BYTES: expected a whole number of bytes above 0, found 'a lot'"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist + "/latest.json"))
        // make passes it on as a variable on its command line.
        let made = try f.make("STATIONDB_MAX_SOURCE_BYTES=1000")
        XCTAssertEqual(made.status, 2, made.err)
        XCTAssertTrue(made.err.contains("more than the limit of 1000 bytes"), made.err)
        XCTAssertEqual(try f.make("STATIONDB_MAX_SOURCE_BYTES=100000").status, 0)
    }

    /// `ab\0cd` was published as `ab`: now an error at its line and field, and nothing published.
    func testANULIsRefusedNotCut() throws {
        let f = try MakeFixture()
        defer { f.remove() }
        let stations = try String(contentsOfFile: f.raw + "/stations.csv", encoding: .utf8)
        try f.write(stations.replacingOccurrences(of: "\n5,駅5,", with: "\n5,駅\u{0}5,"), to: "raw/stations.csv")
        let run = try publish(f)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("error: raw/stations.csv:6: station: a NUL byte (0x00) in the field"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.dist + "/latest.json"))
    }

    /// A duplicated weights row was an error in make and a warning in make lint. Both refuse it, in the same words.
    func testADuplicatedHandWeightIsTheSameErrorInMakeAndLint() throws {
        let f = try MakeFixture()
        defer { f.remove() }
        try f.write("s_id,weight,note\n3,2,first\n4,5,\n3,6,again\n", to: "raw/weights.csv")
        let made = try f.make(), linted = try f.make("lint")
        XCTAssertEqual(made.status, 2, made.err)
        XCTAssertEqual(linted.status, 2, linted.err)
        // raw/ as the repository names it, not the machine's path (make gives an absolute RAW).
        let error = "error: raw/weights.csv:4: s_id: station 3 is listed twice (first on line 2)"
        XCTAssertTrue(made.err.contains(error), made.err)
        XCTAssertTrue(linted.err.contains(error), linted.err)
        XCTAssertTrue(linted.lastMessage.contains("bad input (exit 2 from stationdb)"), linted.lastMessage)
    }

    /// With one registry line deleted and a valid fix of that station, the first error was
    /// "stale fix ... remove it": the wrong file. The registry is checked against the
    /// published version before fixes are applied, so the cause is named, with its copy.
    func testALostRegistryLineIsNamedBeforeTheFixesItBreaks() throws {
        let f = try MakeFixture(copyingRaw: MakeFixture.root + "/raw")
        defer { f.remove() }
        var run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        let published = try MakeFixture.snapshot(f.dist)
        let fixes = try String(contentsOfFile: f.raw + "/fixes.csv", encoding: .utf8)
        // A value of the test's own, so the fix changes the station whatever raw/fixes.csv already holds.
        try f.write(fixes + "set,stations,s_id=1273,wiki,test-\(UUID().uuidString),station=東京,a fix the registry's lost line breaks\n", to: "raw/fixes.csv")
        let registry = try String(contentsOfFile: f.raw + "/registry.csv", encoding: .utf8)
        let tokyo = try XCTUnwrap(registry.split(separator: "\n").first { $0.hasPrefix("station,1273,") })
        try f.write(registry.replacingOccurrences(of: tokyo + "\n", with: ""), to: "raw/registry.csv")

        for target in ["all", "plan"] {
            run = try f.make(target)
            XCTAssertEqual(run.status, 2, run.err)
            let errors = run.err.split(separator: "\n").filter { $0.hasPrefix("error: ") }
            XCTAssertEqual(errors.first.map(String.init),
                           "error: raw/registry.csv: s_id 1273: station 1273 (東京), published in version 1, is missing from this build: the registry lost its line; "
                           + "take the line back from \(f.dist)/1/registry.csv, the registry version 1 was published with (if that version is the last change, "
                           + "copy it over raw/registry.csv), or declare a truly changed s_id in renumbered.csv", target)
            XCTAssertFalse(run.err.contains("stale fix"), "\(target): \(run.err)")
            XCTAssertEqual(try MakeFixture.snapshot(f.dist), published)
        }
        // Once the line is back, the fix publishes.
        try f.write(registry, to: "raw/registry.csv")
        run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(try f.latestVersion(), 2)
    }
}
