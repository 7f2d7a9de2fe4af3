import ArgumentParser
import Publishing
import StationCore
import Glibc

struct DeployCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deploy",
        abstract: "Copy a dist to where the apps download it: new version folders first, latest.json last.",
        discussion: Help.text(PackageResources.deploy_txt))

    @Argument(help: "The dist folder make publishes into.")
    var dist: String

    @Argument(help: "The folder the web server serves: /path, or host:path (rsync over ssh).")
    var target: String

    @Option(help: ArgumentHelp("After copying, read URL/latest.json as the apps do and check it is what was deployed.", valueName: "URL"), transform: webURL)
    var check: WebURL?

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
        if check != nil, dryRun {
            throw ValidationError("--check reads what a deploy copied; a --dry-run copies nothing (run `stationdb pull URL --db /tmp/x.sqlite` to read a URL as the apps do)")
        }
    }

    func run() throws {
        let address = try TargetAddress(target)
        let request = DeployRequest(dist: dist, target: address, dryRun: dryRun, viaRsync: rsync, rsh: rsh, wait: !noWait)
        let deployment = Deployment(request)
        let kill = try Deployment.killSwitch(environment: getenv("STATIONDB_DEPLOY_KILL_AT").map { String(cString: $0) })
        let plan = try Events.sending(to: { event in
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
            let report = try DeployCheck.run(url: check.description, expected: plan.latest, manifestSHA256: plan.latestManifestSHA256, http: network.makeClient())
            note("deploy: checked \(check) as the apps read it: version \(report.version), checksums, \(report.rows) rows, the manifest\(report.checkedPatch ? " and the patch" : "") as deployed")
        }
    }
}
