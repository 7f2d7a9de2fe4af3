import Foundation
import StationCore
import TestSupport
import XCTest

/// The upstream as a maintainer meets it through make: switching raw/ to it from ekidata,
/// and `make fetch UPSTREAM=` from a mirror on 127.0.0.1 followed by `make plan`.
final class UpstreamMakeTests: MakeTestCase {
    /// The stations of a published version: s_id -> (name, enabled).
    func stations(_ bundle: String) throws -> [Int: (name: String, enabled: Bool)] {
        var out: [Int: (name: String, enabled: Bool)] = [:]
        for row in try SQLiteDatabase(path: bundle).query("SELECT s_id, station, enabled FROM stations") {
            guard case .integer(let id) = row[0], case .text(let name) = row[1], case .integer(let enabled) = row[2] else { continue }
            out[Int(id)] = (name, enabled == 1)
        }
        return out
    }

    /// README's recipe for switching a source: publish from the old one, replace raw/'s
    /// source, look (the guards refuse: the old source's own stations go dark), publish with
    /// FORCE_PUBLISH=1. No published station is deleted or given another's s_id.
    func testSwitchingFromEkidataToTheUpstreamRenumbersNothing() throws {
        let f = try fixture()
        try FileManager.default.removeItem(atPath: f.raw)
        try Files.createFolder(f.raw)
        try FileManager.default.copyItem(atPath: RepositoryData.ekidata, toPath: f.raw + "/ekidata")
        try f.write(#"{ "sources": [ { "kind": "ekidata", "path": "ekidata" } ] }"#, to: "raw/sources.json")
        // As raw/ was: ekidata has no Shinkansen station, so its Shinkansen lines were disabled.
        let shinkansen = ["東海道新幹線", "山陽新幹線", "東北新幹線", "上越新幹線", "上越新幹線(ガーラ湯沢支線)", "山形新幹線", "秋田新幹線", "北陸新幹線",
                          "九州新幹線", "北海道新幹線"]
        try f.write("action,table,match,field,value,expect,note\n" + shinkansen.map { "disable,lines,line=\($0),,,,\n" }.joined(), to: "raw/fixes.csv")
        let first = try f.make()
        XCTAssertEqual(first.status, 0, first.err)

        try FileManager.default.removeItem(atPath: f.raw + "/ekidata")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabase, toPath: f.raw + "/station_database")
        try f.write(#"{ "sources": [ { "kind": "station_database", "path": "station_database" } ] }"#, to: "raw/sources.json")
        try f.write("action,table,match,field,value,expect,note\n", to: "raw/fixes.csv")
        let refused = try f.make()
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.err.contains("exit 4 from stationdb"), refused.err)
        XCTAssertEqual(try f.latestVersion(), 1, "nothing published without consent")
        // ekidata's 大聖寺 is JR西日本's; the upstream's is IRいしかわ鉄道's and ハピラインふくい's,
        // both new rows at its place: two candidates compete, so the plan asks. Every row the
        // plan suggests (that one, and those that keep the orphans' records), applied as
        // written, publishes.
        let plan = try f.make("plan")
        let rows = plan.out.split(separator: "\n").compactMap { line -> String? in
            line.range(of: "decide in raw/identity.csv: ").map { String(line[$0.upperBound...]) }
        }
        XCTAssertTrue(plan.out.contains("contested"), plan.out)
        XCTAssertEqual(Set(rows.map { $0.prefix { $0 != "," } }).count, rows.count, "one row per s_id")
        try f.write("s_id,decision,expect,note\n" + rows.map { $0 + "\n" }.joined(), to: "raw/identity.csv")

        let forced = try f.make("FORCE_PUBLISH=1")
        XCTAssertEqual(forced.status, 0, forced.err)
        XCTAssertEqual(try f.latestVersion(), 2)
        let before = try stations(f.dist + "/1/stations.sqlite"), after = try stations(f.dist + "/2/stations.sqlite")
        // Every s_id is still there, or merged (renumbered_stations) into a live station of its name.
        let merged = try SQLiteDatabase(path: f.dist + "/2/stations.sqlite").query("SELECT old_s_id, new_s_id FROM renumbered_stations")
            .map { ($0[0].intValue ?? 0, $0[1].intValue ?? 0) }
        for (id, old) in before where after[id] == nil {
            let into = merged.filter { $0.0 == id }.compactMap { after[$0.1] }
            XCTAssertTrue(!into.isEmpty && into.allSatisfy { $0.enabled && StationName.base($0.name) == StationName.base(old.name) }, "s_id \(id) \(old.name) deleted")
        }
        func id(_ name: String, in version: [Int: (name: String, enabled: Bool)]) -> [Int] {
            version.filter { $0.value.name == name && $0.value.enabled }.map(\.key).sorted()
        }
        XCTAssertEqual(id("英賀保", in: after), id("英賀保", in: before))
        XCTAssertEqual(id("はりま勝原", in: after), id("はりま勝原", in: before))
        XCTAssertTrue(Set(id("手柄山平和公園", in: after)).isDisjoint(with: before.keys), "a new station, a new s_id")
        // Stations only ekidata had are kept, disabled.
        XCTAssertGreaterThan(before.count { $0.value.enabled && after[$0.key]?.enabled == false }, 0)
    }

    func integers(_ bundle: String, _ sql: String) throws -> [Int] {
        try SQLiteDatabase(path: bundle).query(sql).map { row in
            guard case .integer(let v) = row[0] else { return -1 }
            return Int(v)
        }
    }

    /// The default raw/ through `make`, as a new user runs it: a bundle the apps can ship.
    func testTheDefaultRawGivesABundleTheAppsCanShip() throws {
        let f = try fixture(copyingRaw: RepositoryData.raw)
        let run = try f.make()
        XCTAssertEqual(run.status, 0, run.err)
        let bundle = f.dist + "/1/stations.sqlite"
        XCTAssertEqual(try integers(bundle, "SELECT count(*) FROM stations WHERE enabled = 1 AND yomi = ''"), [0], "every live station has a reading")
        // The apps' 五十音 index: the first character of each live station's reading.
        XCTAssertGreaterThanOrEqual(try integers(bundle, "SELECT count(DISTINCT substr(yomi, 1, 1)) FROM stations WHERE enabled = 1")[0], 40)
        XCTAssertEqual(try integers(bundle, """
            SELECT count(*) FROM stations_lines JOIN lines USING (l_id) JOIN stations USING (s_id)
            WHERE line = '東海道新幹線' AND lines.enabled = 1 AND stations.enabled = 1 AND l_type = 1
            """), [17])
        XCTAssertEqual(try integers(bundle, "SELECT enabled FROM stations WHERE station IN ('仁山', '二股')"), [0, 0], "closed on 2026-03-14")
        // The credits travel with the data, and latest.json names the licence.
        XCTAssertEqual(try Files.read(f.dist + "/1/CREDITS.md"), try Files.read(RepositoryData.raw + "/CREDITS.md"))
        let latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: f.dist + "/latest.json"))) as! [String: Any]
        XCTAssertEqual(latest["license"] as? String, "CC BY-SA 4.0")
        XCTAssertEqual(latest["credits"] as? String, "1/CREDITS.md")
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: f.dist + "/1/manifest.json"))) as! [String: Any]
        XCTAssertEqual((manifest["files"] as? [String: String])?["CREDITS.md"], try SHA256.hex(fileAt: f.dist + "/1/CREDITS.md"))
    }

    /// The mirror of a release laid out as the upstream's repository.
    func mirror(of release: String, at folder: String) throws {
        try Files.createFolder(folder + "/out/main")
        try Files.createFolder(folder + "/src")
        for name in ["station.csv", "line.csv", "register.csv"] {
            try FileManager.default.copyItem(atPath: release + "/" + name, toPath: folder + "/out/main/" + name)
        }
        try FileManager.default.copyItem(atPath: release + "/company.csv", toPath: folder + "/src/company.csv")
        try FileManager.default.copyItem(atPath: release + "/latest_info.json", toPath: folder + "/latest_info.json")
    }

    /// raw/ at the upstream's v20260227, published; the mirror moves to v20260529 (raw/'s
    /// own); `make fetch UPSTREAM=` takes it, and `make plan` names what the upstream changed.
    func testFetchFromAMirrorAndPlanNameTheUpstreamsChanges() throws {
        let f = try fixture(copyingRaw: RepositoryData.raw)
        try FileManager.default.removeItem(atPath: f.raw + "/station_database")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabaseEarlier, toPath: f.raw + "/station_database")
        let first = try f.make()
        XCTAssertEqual(first.status, 0, first.err)

        let site = f.folder + "/site"
        try mirror(of: RepositoryData.stationDatabase, at: site + "/station_database")
        let server = try StaticServer(root: site)
        let fetched = try f.make("fetch", "UPSTREAM=\(server.baseURL)/station_database/")
        XCTAssertEqual(fetched.status, 0, fetched.err)
        for name in ["station.csv", "line.csv", "register.csv", "company.csv", "latest_info.json"] {
            XCTAssertEqual(try Files.read(f.raw + "/station_database/" + name), try Files.read(RepositoryData.stationDatabase + "/" + name), name)
        }

        let plan = try f.make("plan", "FORMAT=json")
        XCTAssertEqual(plan.status, 0, plan.err)
        let report = try JSONSerialization.jsonObject(with: Data(plan.out.utf8)) as! [String: Any]
        let entries = report["entries"] as! [[String: Any]]
        let disabled = Set(entries.filter { $0["kind"] as? String == "disabled" && $0["table"] as? String == "stations" }.compactMap { $0["name"] as? String })
        XCTAssertTrue(disabled.isSuperset(of: ["仁山 (JR北海道)", "二股 (JR北海道)"]), "\(disabled)")
        let lines = Set(entries.filter { $0["kind"] as? String == "disabled" && $0["table"] as? String == "lines" }.compactMap { $0["name"] as? String })
        XCTAssertEqual(lines, ["JR留萌本線 (JR北海道)"])
        // The upstream's own next release needs no decision: no s_id contested or orphaned.
        let identity = try XCTUnwrap(report["identity"] as? [String: Any])
        let kinds = Set((identity["entries"] as! [[String: Any]]).compactMap { $0["kind"] as? String })
        XCTAssertTrue(kinds.isDisjoint(with: ["contested", "orphaned"]), "\(kinds)")

        let published = try f.make()
        XCTAssertEqual(published.status, 0, published.err)
        let before = try stations(f.dist + "/1/stations.sqlite"), after = try stations(f.dist + "/2/stations.sqlite")
        func id(_ name: String, in version: [Int: (name: String, enabled: Bool)]) -> [Int] {
            version.filter { $0.value.name == name && $0.value.enabled }.map(\.key).sorted()
        }
        // 手柄山平和公園 took 英賀保's code, and 英賀保 網干's: three stations, each under its own s_id.
        for name in ["英賀保", "網干", "手柄山平和公園"] {
            XCTAssertEqual(id(name, in: after), id(name, in: before), name)
            XCTAssertEqual(id(name, in: after).count, 1, name)
        }
        XCTAssertEqual(Set(["英賀保", "網干", "手柄山平和公園"].flatMap { id($0, in: after) }).count, 3)
    }

    /// A release whose files do not agree (station.csv lists a station register.csv puts on no
    /// line) is refused whole: exit 2 from stationdb, and raw/ as it was, file for file. (A
    /// register.csv row naming a line or station the other files lack is the upstream's own
    /// `extra` dataset in its older releases: read with a warning, StationDatabaseReaderTests.)
    func testAReleaseWhoseFilesDisagreeReplacesNothing() throws {
        let f = try fixture(copyingRaw: RepositoryData.raw)
        try FileManager.default.removeItem(atPath: f.raw + "/station_database")
        try FileManager.default.copyItem(atPath: RepositoryData.stationDatabaseEarlier, toPath: f.raw + "/station_database")
        let site = f.folder + "/site"
        try mirror(of: RepositoryData.stationDatabase, at: site)
        let stations = try String(contentsOfFile: site + "/out/main/station.csv", encoding: .utf8)
        let last = stations.split(separator: "\n").last!.split(separator: ",", omittingEmptySubsequences: false)
        try (stations + (["9999901", "999999"] + last.dropFirst(2)).joined(separator: ",") + "\n")
            .write(toFile: site + "/out/main/station.csv", atomically: true, encoding: .utf8)
        let server = try StaticServer(root: site)
        let before = try MakeFixture.snapshot(f.raw)
        let fetched = try f.make("fetch", "UPSTREAM=\(server.baseURL)/")
        XCTAssertNotEqual(fetched.status, 0)
        XCTAssertTrue(fetched.err.contains("exit 2 from stationdb"), fetched.err)
        XCTAssertTrue(fetched.err.contains("code: expected station 9999901"), "names the field: \(fetched.err)")
        // The file at fault, by its URL: station.csv's, not the first file of the source (company.csv).
        XCTAssertTrue(fetched.err.contains("\(server.baseURL)/out/main/station.csv: not usable as"), fetched.err)
        XCTAssertFalse(fetched.err.contains("company.csv"), fetched.err)
        XCTAssertEqual(try MakeFixture.snapshot(f.raw), before)
    }

    /// Over raw/ at v20260529, `make fetch UPSTREAM=` of a v20260227 mirror exited 0, and the
    /// next make rolled every app back; so did a latest_info.json claiming a newer version over
    /// the older files. An older release, or one whose files contradict the version it claims
    /// against what raw/ holds, is refused, raw/ as it was; ALLOW_OLDER_RELEASE=1 takes it.
    func testAReleaseOlderThanRawsIsRefusedUnlessAllowed() throws {
        let f = try fixture(copyingRaw: RepositoryData.raw)
        let before = try MakeFixture.snapshot(f.raw)
        let older = f.folder + "/older", claiming = f.folder + "/claiming", same = f.folder + "/same"
        try mirror(of: RepositoryData.stationDatabaseEarlier, at: older)
        try mirror(of: RepositoryData.stationDatabaseEarlier, at: claiming)
        try "{\n  \"version\": 20260601,\n  \"size\": 5562238\n}\n".write(toFile: claiming + "/latest_info.json", atomically: true, encoding: .utf8)
        try mirror(of: RepositoryData.stationDatabase, at: same)
        try (try String(contentsOfFile: same + "/out/main/station.csv", encoding: .utf8)).replacingOccurrences(of: ",函館,函館,", with: ",函舘,函館,")
            .write(toFile: same + "/out/main/station.csv", atomically: true, encoding: .utf8)
        let server = try StaticServer(root: f.folder)
        for (site, words) in [("older", ["release 20260227, older than 20260529, the release \(f.raw)/station_database/latest_info.json records"]),
                              ("claiming", ["claims release 20260601, but its files are older than raw/'s (20260529)",
                                            "reopens 6 stations raw/'s release closed (仁山, 二股, 北一已, 秩父別, 北秩父別, 石狩沼田)", "1 line"]),
                              ("same", ["claims release 20260529, the one raw/ holds, but its station.csv differs from raw/'s"])] {
            let refused = try f.make("fetch", "UPSTREAM=\(server.baseURL)/\(site)/")
            XCTAssertNotEqual(refused.status, 0, "\(site): \(refused.err)")
            XCTAssertTrue(refused.err.contains("exit 2 from stationdb"), "\(site): \(refused.err)")
            for w in words + ["ALLOW_OLDER_RELEASE=1", "station_database (station_database) left as it was"] {
                XCTAssertTrue(refused.err.contains(w), "\(site): \(w): \(refused.err)")
            }
            XCTAssertEqual(try MakeFixture.snapshot(f.raw), before, "\(site): raw/ as it was")
        }

        let allowed = try f.make("fetch", "UPSTREAM=\(server.baseURL)/older/", "ALLOW_OLDER_RELEASE=1")
        XCTAssertEqual(allowed.status, 0, allowed.err)
        for name in ["station.csv", "line.csv", "register.csv", "company.csv", "latest_info.json"] {
            XCTAssertEqual(try Files.read(f.raw + "/station_database/" + name), try Files.read(RepositoryData.stationDatabaseEarlier + "/" + name), name)
        }
    }
}
