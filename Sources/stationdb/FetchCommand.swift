import ArgumentParser
import Ingest
import StationIO
import StationModel
import SourceFetch
import Transfer

struct FetchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Download the sources of RAW/sources.json that have a url, if they changed.",
        discussion: """
        Every source in RAW/sources.json with a "url" is downloaded over HTTP(S)
        with a conditional GET: the ETag and Last-Modified of the last download
        are kept beside each file in <file>.etag (JSON, with the file's sha256
        and size), so an unchanged source costs one 304 per file.

        What the url names depends on the kind:
          station_database  the root of the upstream's repository, e.g.
                   https://raw.githubusercontent.com/Seo-4d696b75/station_database/main/
                   (raw/'s default): out/main/station.csv, out/main/line.csv,
                   out/main/register.csv, src/company.csv and the release's
                   latest_info.json are read under it. --upstream (make fetch
                   UPSTREAM=) reads them from a mirror laid out the same way.
          n02      the file itself (e.g. .../N02-stations.xml or ...xml.gz)
          ekidata  a base URL; company.csv, line.csv, station.csv and
                   join.csv are appended to it
          native   a base URL; operators.csv, lines.csv, stations.csv and
                   stations_lines.csv are appended to it

        A gzip body is stored inflated (zlib checks it), no larger than the size
        its trailer declares (and a little slack; so a file of several gzip
        members, whose trailer gives the last one's size, is refused), and
        Content-Encoding gzip is undone. Each file must arrive whole within --max-bytes and be
        of its source's format: a CSV must be UTF-8 with a header naming the
        columns its reader needs and at least one row; an N02 document is read
        whole by the N02 reader (libxml2). Then the source's reader reads the
        new files with the unchanged ones, as ingest will: a release whose files
        do not agree (a station on a line line.csv lacks) replaces nothing. A
        maintenance page sent with 200 is refused, naming the url, the file and why.

        A source's files are replaced together: they are staged in a folder
        beside them (.fetch-<pid>), then a journal lists them and they are
        renamed into place. A fetch killed before the journal leaves the old
        files; one killed after it is completed by the next fetch, which also
        removes what killed runs left (until then ingest refuses that source). Timeouts, connection errors and 5xx are
        retried with backoff (--attempts, --backoff); 4xx is not. On any
        failure the old files stay as they were; the other sources are still
        fetched.

        Exit status: 0 all fetched or unchanged; 2 bad sources.json, a 4xx or a
        file not of its source's format (fix the url, or wait for the server's
        maintenance to end); 3 network or disk failure (timeout, 5xx after
        retries, connection refused, a body cut short, a damaged gzip): try
        again later.

        Example raw/sources.json:
          { "sources": [
              { "kind": "ekidata", "path": "ekidata", "url": "https://example.org/ekidata/" },
              { "kind": "n02", "path": "N02-stations.xml", "url": "https://example.org/N02-stations.xml.gz" } ] }

        Examples:
          stationdb fetch --raw raw
          stationdb fetch --raw raw --upstream http://127.0.0.1:8000/station_database/
          stationdb fetch --raw raw --timeout 120 --attempts 5
        """)

    @Option(help: "The raw folder holding sources.json and the sources.")
    var raw: String = "raw"

    @Option(help: ArgumentHelp("Read every station_database source from this base URL instead of its url: a mirror laid out as the upstream's repository (the Makefile's UPSTREAM).", valueName: "URL"))
    var upstream: String?

    @OptionGroup var network: TransferOptionGroup

    func run() throws {
        let config = try SourcesConfig.load(rawFolder: raw)
        let remote = try RemoteSource.plan(config, rawFolder: raw, upstream: upstream)
        if remote.isEmpty {
            note("fetch: no source in \(raw)/sources.json has a url; nothing to fetch")
            return
        }
        let fetcher = SourceFetcher(http: network.makeClient())
        var worst: ExitStatus = .success
        for source in remote {
            do {
                let reports = try fetcher.fetch(source.files, checkSource: source.check)
                for report in reports {
                    switch report.outcome {
                    case .unchanged:
                        note("fetch: \(report.file.path): unchanged")
                    case .downloaded(let bytes, let sha256):
                        note("fetch: \(report.file.path): \(bytes) bytes, sha256 \(sha256)")
                    }
                }
            } catch let error as TransferError {
                note("error: \(error)")
                if case .partlyReplaced = error {} else {
                    note("fetch: \(source.declaration.path) (\(source.declaration.kind.rawValue)) left as it was")
                }
                if error.exitStatus.rawValue > worst.rawValue { worst = error.exitStatus }
            }
        }
        if worst != .success { throw ReportedFailure(status: worst) }
    }
}
