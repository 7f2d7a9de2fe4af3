import ArgumentParser
import Deploy
import Glibc
import StationIO
import StationModel

struct DeployCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Copy a dist to where the apps download it: new version folders first, latest.json last.",
        discussion: """
        TARGET is the folder a static web server serves: a local path, or
        host:path on another machine (rsync over ssh; a colon before any slash
        makes a remote path, as for rsync, so write a local name with a colon as
        ./a:b). Only what the dist publishes is copied: its version folders up to
        the version latest.json names, and latest.json (not .lock, *.inputs or
        .tmp-* leftovers).

        The order never announces a file that is not there yet: each version
        folder the target lacks is copied into a staging folder of the target
        (.tmp-deploy-<version>-<pid>), checked against its manifest.json there,
        and renamed into place whole; latest.json is copied last, to a temporary
        name, then renamed. Apps starting at any moment get the old version or
        the new one, whole. A deploy killed at any point is completed by the
        next one, which removes what it left.

        Nothing at the target is ever deleted or rewritten (no rsync --delete):
        the apps patch from older versions. A target holding one of the dist's
        versions with other bytes, or a latest.json above the dist's, is refused
        (exit 2). The dist is checked first: every file to copy must have the
        sha256 its manifest gives.

        With --check URL, once copied, URL/latest.json is read as the apps read
        it (stationdb pull's code, into a temporary database): the version,
        every checksum and the row counts must be what was deployed.

        Examples:
          stationdb deploy dist /srv/www/stations --dry-run
          stationdb deploy dist /srv/www/stations --check https://stations.example.org
          stationdb deploy dist deploy@web1:/srv/www/stations \\
            --check https://stations.example.org
          stationdb deploy dist web1:/srv/www/stations --rsh "ssh -p 2222"

        A host:path target needs ssh without a password prompt (a key), and
        sh, coreutils (sha256sum) and rsync on the host. For a bucket (S3 and
        compatible), see README's "Hosting" section.

        Exit status: 0 deployed, or nothing to copy; 2 bad input (a link in the
        dist, to a file or as a version folder: only regular files and real
        folders are deployed; a target version folder that differs, a target
        latest.json above the dist's, a bad TARGET, one that starts with '-'
        included); 3 I/O or a damaged dist (a file missing or not its
        manifest's sha256; a copy failed, the host unreachable, --check failed,
        another deploy from the dist runs with --no-wait).
        """)

    @Argument(help: "The dist folder make publishes into.")
    var dist: String

    @Argument(help: "The folder the web server serves: /path, or host:path (rsync over ssh).")
    var target: String

    @Option(help: ArgumentHelp("After copying, read URL/latest.json as the apps do and check it is what was deployed.", valueName: "URL"))
    var check: String?

    @Flag(help: "List what would be copied and what is already there (stdout); copy nothing.")
    var dryRun = false

    @Flag(help: "Copy into a local folder with rsync too, as a host:path target always is.")
    var rsync = false

    @Option(help: ArgumentHelp("The remote shell for a host:path TARGET (rsync's -e).", valueName: "command"))
    var rsh = "ssh"

    @Flag(help: "Exit (status 3) instead of waiting when another deploy from DIST is running.")
    var noWait = false

    @OptionGroup(title: "Downloads of --check")
    var network: TransferOptionGroup

    func validate() throws {
        if let check {
            let lower = check.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw ValidationError("--check must be an http:// or https:// URL (where the apps download latest.json), got \"\(check)\"")
            }
            if dryRun { throw ValidationError("--check reads what a deploy copied; a --dry-run copies nothing (run `stationdb pull URL --db /tmp/x.sqlite` to read a URL as the apps do)") }
        }
    }

    func run() throws {
        let address = try TargetAddress(target)
        let request = DeployRequest(dist: dist, target: address, dryRun: dryRun, viaRsync: rsync, rsh: rsh, wait: !noWait)
        let deployment = Deployment(request)
        let kill = try Deployment.killSwitch(environment: getenv("STATIONDB_DEPLOY_KILL_AT").map { String(cString: $0) })
        let plan = try Events.$sink.withValue({ event in
            if let moment = event as? DeployEvent { kill?(moment) } else { EventLog.say(event) }
        }) { try deployment.run() }
        if dryRun {
            for line in plan.lines(target: address.description) { StandardStream.output.write(line + "\n") }
            note(plan.copiesNothing
                 ? "deploy: dry run: nothing to copy; \(address) is up to date (version \(plan.version))"
                 : "deploy: dry run: nothing copied; \(plan.toCopy.count) version folder\(plan.toCopy.count == 1 ? "" : "s")\(plan.copiesLatest ? " and latest.json" : "") would be copied")
            return
        }
        if plan.copiesNothing {
            note("deploy: nothing to copy; \(address) is up to date (version \(plan.version))")
        } else {
            let folders = "\(plan.toCopy.count) version folder\(plan.toCopy.count == 1 ? "" : "s")"
            note("deploy: \(address) serves version \(plan.version) (copied \(plan.copiesLatest ? "\(folders), then latest.json" : folders))")
        }
        if let check {
            let report = try DeployCheck.run(url: check, expected: plan.latest, manifestSHA256: plan.latestManifestSHA256, http: network.makeClient())
            note("deploy: checked \(check) as the apps read it: version \(report.version), checksums, \(report.rows) rows, the manifest\(report.checkedPatch ? " and the patch" : "") as deployed")
        }
    }
}
