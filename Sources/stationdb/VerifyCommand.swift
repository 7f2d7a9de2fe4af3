import ArgumentParser
import BuildDB
import StationIO
import StationModel

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a published bundle: integrity, schema, checksums, version, references, weights, coordinates.",
        discussion: """
        DIST_OR_DB is a dist folder (checked through latest.json), a version
        folder (through its manifest.json) or a bare .sqlite bundle. It runs
        SQLite's integrity check, compares the tables and indexes with bundle.md,
        the files' sha256 and sizes with the manifest (and that the gzip inflates
        to the database), user_version with the manifest's version, that
        stations_lines names existing stations and lines and that stations and
        lines name existing operators, weights 1..13, prefectures 1..47 and
        coordinates inside Japan; for a dist, every earlier version's files
        against its manifest too. It warns (exit 0) of live stations on no line
        and live lines with no stations (the apps would list neither; a
        disabled line is never listed), the first 10 of each and how many more.

        Examples:
          stationdb verify dist
          stationdb verify dist/12
          stationdb verify dist/12/stations.sqlite

        Prints "ok: ..." (and any warnings on stderr) and exits 0, or lists
        every problem, one per line, and exits 3 (damaged); a path that does
        not exist or holds no bundle exits 2.
        """)

    @Argument(help: "A dist folder, a version folder or a .sqlite file.")
    var distOrDB = "dist"

    func run() throws {
        let report = try BundleVerifier.verify(path: distOrDB)
        let count = report.warnings.count, listed = 10
        print(report.line + (count == 0 ? "" : " (\(count) warning\(count == 1 ? "" : "s"))"))
        // The first few of each kind, and how many more: together, the count above.
        for field in ["stations", "lines"] {
            let some = report.warnings.filter { $0.location.field == field }
            for w in some.prefix(listed) { note("warning: \(w)") }
            if some.count > listed { note("warning: ... and \(some.count - listed) more \(field)") }
        }
    }
}
