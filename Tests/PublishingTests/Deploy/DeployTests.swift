import Publishing
import StationCore
import Foundation
import TestSupport
import XCTest

/// `stationdb deploy` into a local folder served by a static web server on
/// 127.0.0.1, and read there by `stationdb pull` as the apps read it.
final class DeployTests: XCTestCase {
    var f: DeployFixture!

    override func setUpWithError() throws { f = try DeployFixture() }
    override func tearDown() { f?.remove() }

    func testDeployThenPullBringsAClientToTheNewestVersion() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        // The target folder does not exist yet: deploy creates it. The server serves it from the start.
        try FileManager.default.createDirectory(atPath: f.target, withIntermediateDirectories: true)
        let server = try StaticServer(root: f.target)
        var run = try f.stationdb("deploy", v1, f.target, "--check", server.baseURL)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("deploy: checked \(server.baseURL) as the apps read it: version 1, checksums, 204 rows, the manifest as deployed"), run.err)
        try f.assertDeployed(v1, to: f.target, "version 1")
        let app = f.folder + "/app/stations.sqlite"
        var pull = try f.stationdb("pull", server.baseURL, "--db", app)
        XCTAssertEqual(pull.status, 0, pull.err)
        XCTAssertEqual(try DeployFixture.userVersion(app), 1)

        run = try f.stationdb("deploy", v3, f.target, "--check", server.baseURL + "/")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("deploy: copying version 2 (1 of 2;"), run.err)
        XCTAssertTrue(run.err.contains("deploy: copying version 3 (2 of 2;"), run.err)
        XCTAssertTrue(run.err.contains("latest.json now names version 3 (was 1)"), run.err)
        XCTAssertTrue(run.err.contains("version 3, checksums, 208 rows, the manifest and the patch as deployed"), run.err)
        XCTAssertLessThan(run.err.range(of: "/3 in place")!.lowerBound, run.err.range(of: "latest.json now names")!.lowerBound)
        try f.assertDeployed(v3, to: f.target, "version 3")
        pull = try f.stationdb("pull", server.baseURL, "--db", app)
        XCTAssertEqual(pull.status, 0, pull.err)
        XCTAssertEqual(try DeployFixture.userVersion(app), 3)
        XCTAssertEqual(try SQLiteDatabase(path: app).scalarInt("SELECT count(*) FROM stations"), 102)
    }

    func testASecondDeployOfTheSameDistCopiesNothing() throws {
        let v3 = try PublishedDists.shared().atVersion3
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target).status, 0)
        let before = try DeployFixture.inodes(f.target)
        let run = try f.stationdb("deploy", v3, f.target)
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertTrue(run.err.contains("deploy: nothing to copy; \(f.target) is up to date (version 3)"), run.err)
        XCTAssertFalse(run.err.contains("copying"), run.err)
        XCTAssertEqual(try DeployFixture.inodes(f.target), before, "not a file rewritten, not even latest.json")
    }

    func testADryRunListsAndCopiesNothing() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try f.dist(\.atVersion3, as: "dist")
        var run = try f.stationdb("deploy", v3, f.target, "--dry-run")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.target), "a dry run creates not even the target folder")
        XCTAssertFalse(FileManager.default.fileExists(atPath: v3 + "/" + Deployment.lockName), "nor its lock in the dist")

        XCTAssertEqual(try f.stationdb("deploy", v1, f.target).status, 0)
        let before = try DeployFixture.inodes(f.target)
        run = try f.stationdb("deploy", v3, f.target, "--dry-run")
        XCTAssertEqual(run.status, 0, run.err)
        XCTAssertEqual(run.out.split(separator: "\n").map { String($0.prefix(while: { $0 != "(" })).trimmingCharacters(in: .whitespaces) },
                       ["copy  2/", "copy  3/", "there 1/", "copy  latest.json"], run.out)
        XCTAssertTrue(run.out.contains("copy  latest.json  (last; version 1 -> 3)"), run.out)
        XCTAssertTrue(run.err.hasSuffix("dry run: nothing copied; 2 version folders and latest.json would be copied\n"), run.err)
        XCTAssertEqual(try DeployFixture.inodes(f.target), before)
    }

    func testATargetVersionFolderThatDiffersIsRefused() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        XCTAssertEqual(try f.stationdb("deploy", v1, f.target).status, 0)
        // Another publication's version 1 (a dist made again from scratch), here its summary.
        try "another summary\n".write(toFile: f.target + "/1/summary.txt", atomically: true, encoding: .utf8)
        var before = try DeployFixture.inodes(f.target)
        for arguments in [[v3, f.target], [v3, f.target, "--dry-run"], [v1, f.target]] {
            let run = try DeployFixture.runStationDB(["deploy"] + arguments)
            XCTAssertEqual(run.status, 2, run.err)
            XCTAssertTrue(run.err.contains("error: \(f.target)/1: differs from \(arguments[0])/1 (summary.txt differs)"), run.err)
            XCTAssertTrue(run.err.contains("nothing was copied"), run.err)
            XCTAssertEqual(try DeployFixture.inodes(f.target), before)
        }

        // A file gone, and the manifest itself differing, are differences too.
        try f.resetTarget(to: v1)
        try FileManager.default.removeItem(atPath: f.target + "/1/registry.csv")
        try (String(contentsOfFile: f.target + "/1/manifest.json", encoding: .utf8) + " ").write(toFile: f.target + "/1/manifest.json", atomically: true, encoding: .utf8)
        before = try DeployFixture.inodes(f.target)
        let run = try f.stationdb("deploy", v3, f.target)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("(registry.csv missing, manifest.json differs)"), run.err)
        XCTAssertEqual(try DeployFixture.inodes(f.target), before)
    }

    func testATargetLatestAboveTheDistsIsRefused() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target).status, 0)
        let before = try DeployFixture.inodes(f.target)
        for arguments in [[v1, f.target], [v1, f.target, "--dry-run"]] {
            let run = try DeployFixture.runStationDB(["deploy"] + arguments)
            XCTAssertEqual(run.status, 2, run.err)
            XCTAssertTrue(run.err.contains("\(f.target)/latest.json: version: names version 3, above the dist's 1"), run.err)
            XCTAssertTrue(run.err.contains("take the apps back to an older version"), run.err)
            XCTAssertFalse(run.err.contains("publish a version above it"), "a version above it would undo what 2 and 3 published: \(run.err)")
            XCTAssertTrue(run.err.contains("copy the served dist into \(v1)"), run.err)
            XCTAssertEqual(try DeployFixture.inodes(f.target), before)
        }
    }

    /// Clone A deployed versions 1 to 3; clone B, from a fresh dist whose version 1 is
    /// byte-identical to A's, published VERSION=10 after 1 and deployed it over A's 3: every
    /// app then lost what 2 and 3 published. Deploy only fast-forwards: the target's version
    /// (its sha256 as the dist's manifest gives it) must be the new one or one it descends
    /// from in the dist, else nothing is copied and the message says how to carry on.
    func testDeployOnlyFastForwards() throws {
        let v3 = try PublishedDists.shared().atVersion3
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target).status, 0)
        let other = try f.dist(\.atVersion1, as: "clone-b")
        let raw = f.folder + "/raw-b"
        try SmallNetwork.write(to: raw)
        let stations = raw + "/stations.csv"
        try String(contentsOfFile: stations, encoding: .utf8).replacingOccurrences(of: "5,駅5,", with: "5,駅五,")
            .write(toFile: stations, atomically: true, encoding: .utf8)
        let publish = try f.stationdb("publish", "--raw", raw, "--build", f.folder + "/build-b", "--dist", other, "--as-version", "10")
        XCTAssertEqual(publish.status, 0, publish.err)
        XCTAssertEqual(try PublishedBundle.latest(in: other)?.previousVersion, 1)

        let before = try DeployFixture.inodes(f.target)
        for arguments in [[other, f.target], [other, f.target, "--dry-run"]] {
            let run = try DeployFixture.runStationDB(["deploy"] + arguments)
            XCTAssertEqual(run.status, 2, run.err)
            for words in ["\(f.target)/latest.json: version: names version 3", "which is not version 10 nor one it follows in \(other) (10 <- 1)",
                          "copy the served dist into \(other)", "make plan AGAINST=", "nothing was copied"] {
                XCTAssertTrue(run.err.contains(words), "\(words): \(run.err)")
            }
            XCTAssertFalse(run.err.contains("publish a version above it"), run.err)
            XCTAssertEqual(try DeployFixture.inodes(f.target), before)
        }

        // The target's version, by number, in the dist's line, but another publication of it
        // (its sha256 differs): refused as well, though its folder is not the dist's to compare.
        try f.resetTarget(to: try PublishedDists.shared().atVersion1)
        var latest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: f.target + "/latest.json"))) as! [String: Any]
        latest["sha256"] = String(repeating: "0", count: 64)
        try JSONSerialization.data(withJSONObject: latest).write(to: URL(fileURLWithPath: f.target + "/latest.json"))
        try FileManager.default.removeItem(atPath: f.target + "/1")
        let run = try f.stationdb("deploy", v3, f.target)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("names version 1 (sha256 000000000000...), which is not version 3 nor one it follows"), run.err)

        // A dist that descends from the target's version deploys as ever.
        try f.resetTarget(to: try PublishedDists.shared().atVersion1)
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target).status, 0)
        try f.assertDeployed(v3, to: f.target, "fast-forward from 1 to 3")
    }

    /// A lagging clone's deploy of version 1, paused after it read the target (no latest.json
    /// yet), continued after another deploy put version 3 there, wrote version 1's latest.json:
    /// the apps went back. Whatever deploys meanwhile, the target only fast-forwards: a deploy
    /// looks at the target again once it holds the target's lock, and just before it replaces
    /// latest.json; and it holds that lock while it copies (another waits, or exits 3).
    func testTwoDeploysAtOnceNeverTakeTheTargetBack() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        let target = f.target, lagging = Deployment(DeployRequest(dist: v1, target: .folder(target)))
        // Paused after its look at the target, before it takes the lock: the other deploys 3.
        XCTAssertThrowsError(try Events.sending(to: { event in
            guard case DeployNote.checking? = event as? DeployNote, !Files.exists(target + "/latest.json") else { return }
            XCTAssertEqual(try? DeployFixture.runStationDB(["deploy", v3, target]).status, 0)
        }) { try lagging.run() }) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.first?.location, SourceLocation(file: target + "/latest.json", field: "version"), "\(error)")
        }
        XCTAssertEqual(try DeployFixture.latestVersion(target), 3)

        // Paused while it copies, holding the lock: another deploy exits 3 with --no-wait; a copy
        // made by hand, which takes no lock, is found before latest.json is replaced.
        let other = f.folder + "/www-2", waited = RunBox()
        XCTAssertThrowsError(try Events.sending(to: { event in
            guard case DeployEvent.placed? = event as? DeployEvent, waited.run == nil else { return }
            waited.run = try? DeployFixture.runStationDB(["deploy", v3, other, "--no-wait"])
            for name in ["2", "3"] { try? FileManager.default.copyItem(atPath: v3 + "/" + name, toPath: other + "/" + name) }
            try? FileManager.default.copyItem(atPath: v3 + "/latest.json", toPath: other + "/latest.json")
        }) { try Deployment(DeployRequest(dist: v1, target: .folder(other))).run() }) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.first?.location, SourceLocation(file: other + "/latest.json", field: "version"), "\(error)")
        }
        XCTAssertEqual(waited.run?.status, 3, waited.run?.err ?? "")
        XCTAssertTrue(waited.run?.err.contains("another deploy into \(other) is running") ?? false, waited.run?.err ?? "")
        XCTAssertEqual(try DeployFixture.latestVersion(other), 3)
    }

    /// A target whose latest.json is a folder: deploy copied the versions, then exited 3 (try
    /// again), which could never succeed. It is bad input (exit 2), naming what to remove.
    func testATargetLatestThatIsAFolderIsBadInput() throws {
        try Files.createFolder(f.target + "/latest.json")
        let run = try f.stationdb("deploy", try PublishedDists.shared().atVersion3, f.target)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("rm -r \(f.target)/latest.json"), run.err)
        XCTAssertEqual(Files.names(in: f.target), ["latest.json"], "nothing copied")
    }

    /// A dist that lost latest.json but holds its versions is damaged (exit 3), not "nothing
    /// published yet", and says how to restore it.
    func testADistThatLostLatestIsDamaged() throws {
        let dist = try f.dist(\.atVersion3, as: "dist")
        try FileManager.default.removeItem(atPath: dist + "/latest.json")
        let run = try f.stationdb("deploy", dist, f.target)
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("\(dist)/latest.json: missing, but version folders 1, 2, 3 are published"), run.err)
        XCTAssertTrue(run.err.contains("copy the latest.json the web server serves"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.target))
    }

    func testADamagedDistIsNeverDeployed() throws {
        let v1 = try PublishedDists.shared().atVersion1
        for damaged in ["3/stations.sqlite.gz", "2/patch-from-1.sql"] {
            let dist = try f.dist(\.atVersion3, as: "damaged")
            defer { try? FileManager.default.removeItem(atPath: dist) }
            try f.resetTarget(to: v1)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: dist + "/" + damaged))
            try handle.seek(toOffset: 10)
            try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
            try handle.close()
            let before = try DeployFixture.inodes(f.target)
            let run = try f.stationdb("deploy", dist, f.target)
            XCTAssertEqual(run.status, 3, "a damaged dist is exit 3, as for every command: \(run.err)")
            XCTAssertTrue(run.err.contains("\(dist)/\(damaged) has sha256"), run.err)
            XCTAssertTrue(run.err.contains("damaged; nothing was deployed"), run.err)
            XCTAssertEqual(try DeployFixture.inodes(f.target), before, "not even the undamaged version 2 is copied")
        }
    }

    /// dist/.lock, the stage records, a dead publish's temporary folder and a version
    /// folder latest.json never named stay behind, and so does a file no manifest lists.
    func testOnlyWhatTheDistPublishesIsDeployed() throws {
        let dist = try f.dist(\.atVersion3, as: "dist")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dist + "/latest.json.inputs"))
        XCTAssertTrue(FileManager.default.fileExists(atPath: dist + "/.lock"))
        try FileManager.default.copyItem(atPath: dist + "/3", toPath: dist + "/.tmp-4-999")
        try FileManager.default.copyItem(atPath: dist + "/3", toPath: dist + "/4")
        try "x".write(toFile: dist + "/3/notes.txt", atomically: true, encoding: .utf8)
        let dry = try f.stationdb("deploy", dist, f.target, "--dry-run")
        XCTAssertTrue(dry.out.contains("skip  4/  (in the dist but above its latest.json: never announced)"), dry.out)
        let run = try f.stationdb("deploy", dist, f.target)
        XCTAssertEqual(run.status, 0, run.err)
        // And the lock a deploy into it holds, which is never written.
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: f.target)), ["1", "2", "3", "latest.json", Deployment.targetLockName])
        XCTAssertEqual(Files.size(of: f.target + "/" + Deployment.targetLockName), 0)
        XCTAssertEqual(try folderDigests(f.target + "/3"), try folderDigests(try PublishedDists.shared().atVersion3 + "/3"))
    }

    /// --check reads what the server really serves: another folder, a damaged file or a
    /// rewritten latest.json each fail it with exit 3 and say what differs.
    func testCheckFailsWhenTheServerServesSomethingElse() throws {
        let v1 = try PublishedDists.shared().atVersion1, v3 = try PublishedDists.shared().atVersion3
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target).status, 0)
        let other = f.folder + "/other"
        try FileManager.default.copyItem(atPath: v1, toPath: other)
        let otherServer = try StaticServer(root: other)
        var run = try f.stationdb("deploy", v3, f.target, "--check", otherServer.baseURL, "--attempts", "1")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("error: --check \(otherServer.baseURL): latest.json names version 1, version 3 was deployed"), run.err)

        run = try f.stationdb("deploy", v3, f.target, "--check", otherServer.baseURL + "/no/such/folder", "--attempts", "1")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("HTTP 404"), run.err)

        // The same version with a damaged gzip: pull's checks catch it.
        try FileManager.default.removeItem(atPath: other)
        try FileManager.default.copyItem(atPath: f.target, toPath: other)
        let gz = other + "/3/stations.sqlite.gz"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: gz))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: gz))
        run = try f.stationdb("deploy", v3, f.target, "--check", otherServer.baseURL, "--attempts", "1")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("3/stations.sqlite.gz: expected sha256"), run.err)

        // A latest.json whose row counts were edited on the server.
        try FileManager.default.removeItem(atPath: other)
        try FileManager.default.copyItem(atPath: f.target, toPath: other)
        let latest = other + "/latest.json"
        try String(contentsOfFile: latest, encoding: .utf8).replacingOccurrences(of: "\"stations\" : 102", with: "\"stations\" : 103")
            .write(toFile: latest, atomically: true, encoding: .utf8)
        run = try f.stationdb("deploy", v3, f.target, "--check", otherServer.baseURL, "--attempts", "1")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("latest.json differs from the one deployed (rows)"), run.err)

        // A manifest.json the server holds in another form.
        try FileManager.default.removeItem(atPath: other)
        try FileManager.default.copyItem(atPath: f.target, toPath: other)
        try (String(contentsOfFile: other + "/3/manifest.json", encoding: .utf8) + "\n").write(toFile: other + "/3/manifest.json", atomically: true, encoding: .utf8)
        run = try f.stationdb("deploy", v3, f.target, "--check", otherServer.baseURL, "--attempts", "1")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("3/manifest.json has sha256"), run.err)
        XCTAssertTrue(run.err.contains("the version's manifest is not what was deployed"), run.err)

        // The real target passes.
        let server = try StaticServer(root: f.target)
        XCTAssertEqual(try f.stationdb("deploy", v3, f.target, "--check", server.baseURL).status, 0)
    }

    /// One deploy from a dist at a time: a second waits, or with --no-wait exits 3.
    func testASecondDeployFromTheSameDistWaitsOrExits() throws {
        let dist = try f.dist(\.atVersion3, as: "dist")
        var held: FileLock? = try FileLock.acquire(dist + "/" + Deployment.lockName, wait: false)
        XCTAssertNotNil(held)
        let run = try f.stationdb("deploy", dist, f.target, "--no-wait")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("another deploy from \(dist) is running (pid \(getpid()) holds \(dist)/.deploy.lock)"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.target))
        held = nil
        _ = held
        XCTAssertEqual(try f.stationdb("deploy", dist, f.target, "--no-wait").status, 0)
    }

    func testTargetAddresses() throws {
        XCTAssertEqual(try TargetAddress("/srv/www/stations"), .folder("/srv/www/stations"))
        XCTAssertEqual(try TargetAddress("./a:b"), .folder("./a:b"))
        XCTAssertEqual(try TargetAddress("/srv/a:b"), .folder("/srv/a:b"))
        XCTAssertEqual(try TargetAddress("web1:/srv/www/stations/"), .remote(host: "web1", path: "/srv/www/stations"))
        XCTAssertEqual(try TargetAddress("deploy@web1:stations"), .remote(host: "deploy@web1", path: "stations"))
        XCTAssertEqual(try TargetAddress("web1:~/stations"), .remote(host: "web1", path: "stations"))
        for bad in ["", "web1:", "web1:~", "https://stations.example.org", "s3://bucket/dist", "rsync://web1/x", "web1::module", ":x",
                    "-", "--help", "--version", "-oProxyCommand=touch /tmp/x:/srv", "deploy@-oProxyCommand=x:/srv"] {
            XCTAssertThrowsError(try TargetAddress(bad), bad) { XCTAssertTrue($0.station(.badInput) != nil, "\(bad): \($0)") }
        }
        let run = try f.stationdb("deploy", try PublishedDists.shared().atVersion3, "https://stations.example.org")
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("give the folder the web server serves"), run.err)
    }

    /// Only regular files and real folders are deployed: a link in the dist (to /etc/passwd,
    /// with its sha256 in the manifest; or a version folder that is a link) is exit 2, named.
    func testALinkInTheDistIsNeverDeployed() throws {
        let dist = try f.dist(\.atVersion3, as: "linked")
        let registry = dist + "/3/registry.csv"
        try FileManager.default.removeItem(atPath: registry)
        try FileManager.default.createSymbolicLink(atPath: registry, withDestinationPath: "/etc/passwd")
        let manifest = dist + "/3/manifest.json"
        let digest = try SHA256.hex(fileAt: registry)
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [String: Any]
        var files = json["files"] as! [String: String]
        files["registry.csv"] = digest
        json["files"] = files
        try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]).write(to: URL(fileURLWithPath: manifest))
        var run = try f.stationdb("deploy", dist, f.target)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("\(registry): a symbolic link to /etc/passwd"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.target), "nothing copied")

        // A version folder that is a link to a copy of itself.
        let other = try f.dist(\.atVersion3, as: "folder-linked")
        try FileManager.default.moveItem(atPath: other + "/2", toPath: f.folder + "/elsewhere-2")
        try FileManager.default.createSymbolicLink(atPath: other + "/2", withDestinationPath: f.folder + "/elsewhere-2")
        run = try f.stationdb("deploy", other, f.target)
        XCTAssertEqual(run.status, 2, run.err)
        XCTAssertTrue(run.err.contains("\(other)/2: a symbolic link to"), run.err)
        XCTAssertFalse(FileManager.default.fileExists(atPath: f.target), "nothing copied")
    }

    /// A target whose folder cannot be made says why in words, not as a Foundation error value.
    func testATargetThatCannotBeMadeIsSaidInWords() throws {
        let run = try f.stationdb("deploy", try PublishedDists.shared().atVersion3, "/proc/stationdb-no-such/www")
        XCTAssertEqual(run.status, 3, run.err)
        XCTAssertTrue(run.err.contains("cannot create folder /proc/stationdb-no-such"), run.err)
        XCTAssertFalse(run.err.contains("CocoaError") || run.err.contains("rawValue"), run.err)
    }
}

/// What a run a test makes in an event's handler came to.
final class RunBox: @unchecked Sendable {
    var run: DeployFixture.Run?
}
