import ArgumentParser
import Publishing
import StationCore

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download the sources of RAW/sources.json that have a url, if they changed.",
        discussion: Help.text(PackageResources.fetch_txt))

    @Option(help: "The raw folder holding sources.json and the sources.")
    var raw: String = "raw"

    @Option(help: ArgumentHelp("Read every station_database source from this base URL instead of its url: a mirror laid out as the upstream's repository (the Makefile's UPSTREAM).", valueName: "URL"))
    var upstream: String?

    @Option(help: ArgumentHelp("The dist whose latest.json names the release the published version was made from: what an upstream release is compared with when RAW records none.", valueName: "DIST"))
    var dist: String = "dist"

    @Flag(help: ArgumentHelp("Take an upstream release older than raw/'s, or whose files are (the Makefile's ALLOW_OLDER_RELEASE=1)."))
    var allowOlderRelease = false

    @Flag(help: ArgumentHelp("Take an upstream release dated after tomorrow (the Makefile's ALLOW_FUTURE_RELEASE=1)."))
    var allowFutureRelease = false

    @OptionGroup var network: TransferOptionGroup

    func run() throws {
        let published = try? PublishedBundle.latest(in: dist)?.releases
        try RemoteSource.fetchAll(raw: raw, upstream: upstream, published: published ?? nil, allowOlder: allowOlderRelease,
                                  allowFuture: allowFutureRelease, http: network.makeClient())
    }
}
