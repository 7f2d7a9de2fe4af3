import ArgumentParser
import StationIO
import StationModel
import AppClient
import Transfer

struct PullCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pull",
        abstract: "Bring a local station database up to the version published at BASE_URL, as the apps do.",
        discussion: """
        The reference client, and a smoke test of a published dist/ served over
        HTTP. It reads BASE_URL/latest.json; when its version is higher than the
        local database's PRAGMA user_version it either
          - downloads the patch, when the local database is at previous_version,
            and runs it as the Android client does (lines joined until the count
            of ' is even, one statement each, one transaction), or
          - downloads the gzip of the full database, checks its size and sha256
            before and after gunzip, and replaces the local file, as the iOS
            client does.
        A patch may change only the bundle's tables and user_version; one that
        fails, leaves row counts other than latest.json's, grows the database
        past --max-bytes, or removes or changes an s_id other than as
        renumbered_stations says falls back to the full download. The gzip may
        inflate no further than latest.json's bytes (and a little slack). The
        full database must be the bundle and nothing more (its tables, their
        columns and indexes, renumbered_stations; no trigger, no view, no
        completions of its own) and must keep every station the user has a
        record of, or renumber it. Then the user's completions table is carried
        over, and each renumbered station gets its predecessor's record if it
        has none.

        All work happens on a temporary copy beside --db that replaces it only
        when complete, verified and flushed: a corrupt, truncated, mismatching
        or refused download never touches the local database.

        Everything of the user's in --db (completions as it is, and any table,
        view, index or trigger that is not the bundle's) is carried into the
        new version, or the pull refuses and leaves --db as it was. A --db
        that is a link updates the file it leads to.

        Exit status: 0 updated or already up to date; 2 BASE_URL serves no dist
        (a 4xx or a redirect to another protocol for latest.json, a latest.json
        that is not a dist's); 3 network, checksum or disk failure, a dist that
        lacks a file its latest.json names, or a download refused as not what a
        bundle may be: try again later, or tell the publisher.

        Examples:
          stationdb pull https://stations.example.org --db app/stations.sqlite
          python3 -m http.server --bind 127.0.0.1 -d dist 8000 &
          stationdb pull http://127.0.0.1:8000 --db /tmp/client.sqlite --timeout 30
        """)

    @Argument(help: "The URL of a published dist/ folder (holding latest.json).")
    var baseURL: String

    @Option(help: "The local station database (created if missing).")
    var db: String

    @OptionGroup var network: TransferOptionGroup

    func validate() throws {
        let lower = baseURL.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            throw ValidationError("BASE_URL must be an http:// or https:// URL, got \"\(baseURL)\"")
        }
    }

    func run() throws {
        let client = BundleClient(baseURL: baseURL, databasePath: db, http: network.makeClient())
        do {
            let report = try client.pull()
            switch report.kind {
            case .upToDate:
                note("pull: \(db) is up to date (version \(report.localVersion), published \(report.publishedVersion))")
            case .patched:
                note("pull: patched \(db) from version \(report.localVersion) to \(report.publishedVersion)\(copied(report))")
            case .replaced:
                let from = report.localVersion == 0 ? "no database" : "version \(report.localVersion)"
                note("pull: replaced \(db) (\(from)) with the full version \(report.publishedVersion)\(copied(report))")
            }
        } catch let error as TransferError {
            note("error: \(error)")
            note("pull: \(db) left as it was")
            throw ReportedFailure(status: error.exitStatus)
        }
    }

    private func copied(_ report: PullReport) -> String {
        report.recordsCopied > 0 ? "; \(report.recordsCopied) records copied to renumbered stations" : ""
    }
}
