import FoundationEssentials
import Glibc

/// Which bundle a path given on the command line means (diff, verify, preview, a
/// report): what the user named and the bundle file it stands for.
///
/// A path may be
/// - a bundle file (any SQLite file with the tables of bundle.md, old ones included);
/// - a dist folder: it has latest.json, whose "database" path (relative to the folder)
///   names the published version's bundle;
/// - a version folder (dist/<v>): it has manifest.json and stations.sqlite.
///
/// Anything else is a StationError of bad input (exit 2): the diff cannot say anything about it; a
/// dist or version folder whose database is missing is damaged (StationError damaged, exit 3).
package struct BundleLocation: Sendable, Equatable {
    /// As given on the command line.
    package var argument: String
    /// The bundle file compared.
    package var databasePath: String
    package var kind: Kind

    package enum Kind: String, Sendable { case file, dist, version }

    package init(argument: String, databasePath: String, kind: Kind) {
        self.argument = argument; self.databasePath = databasePath; self.kind = kind
    }

    /// What reports print: the argument, plus the bundle a folder stands for.
    package var label: String {
        kind == .file ? argument : "\(argument) (\(databasePath))"
    }

    /// What a path is, by what it holds: a dist (latest.json), a version folder
    /// (manifest.json or stations.sqlite), a file; nil for a folder that is none of these
    /// or a path that does not exist. `stationdb verify` checks each kind its own way.
    package static func kind(of path: String) -> Kind? {
        guard Files.exists(path) else { return nil }
        guard Files.isFolder(path) else { return .file }
        if Files.exists(joinPath(path, DistLayout.latest)) { return .dist }
        if Files.exists(joinPath(path, DistLayout.manifest)) || Files.exists(joinPath(path, DistLayout.database)) { return .version }
        return nil
    }

    package static func resolve(_ argument: String) throws -> BundleLocation {
        func inside(_ name: String) -> String { joinPath(argument, name) }
        switch kind(of: argument) {
        case .file:
            try checkSQLite(argument)
            return BundleLocation(argument: argument, databasePath: argument, kind: .file)
        case .dist:
            let latest = inside(DistLayout.latest)
            let database = try databaseNamed(byLatest: latest)
            let path = inside(database)
            guard Files.exists(path) else {
                throw StationError.damaged(SourceLocation(file: latest, field: "database"), "names \(database), which does not exist: the dist is damaged")
            }
            try checkSQLite(path)
            return BundleLocation(argument: argument, databasePath: path, kind: .dist)
        case .version:
            let database = inside(DistLayout.database)
            guard Files.exists(database) else {
                throw StationError.damaged(SourceLocation(file: argument), "a version folder without \(DistLayout.database): it is damaged")
            }
            try checkSQLite(database)
            return BundleLocation(argument: argument, databasePath: database, kind: .version)
        case nil:
            guard Files.exists(argument) else {
                // The candidate (build/staging.bin.candidate) is there only from a plan to the publish that moves it into dist/.
                let candidate = argument.hasSuffix(".candidate") || argument.hasSuffix(".candidate/")
                throw StationError.badInput(SourceLocation(file: argument), "no such file or folder" + (candidate
                    ? "; a candidate version is there only once `make plan` (stationdb plan) has prepared it, until a publish moves it into dist/: run make plan first, or name dist for the published version" : ""))
            }
            throw StationError.badInput(SourceLocation(file: argument),
                             "not a bundle: a folder without \(DistLayout.latest) (a dist folder) or \(DistLayout.database) (a version folder)")
        }
    }

    /// The "database" latest.json names, which must be a path inside the dist (any other
    /// key it lacks is no concern of a diff's).
    static func databaseNamed(byLatest path: String) throws -> String {
        struct Latest: Decodable { var database: String }
        guard let latest = try? JSONDecoder().decode(Latest.self, from: Data(Files.read(path))), !latest.database.isEmpty else {
            throw StationError.badInput(SourceLocation(file: path, field: "database"), "missing or unreadable: latest.json must name the published database")
        }
        if let problem = DistLayout.problem(withPath: latest.database) {
            throw StationError.badInput(SourceLocation(file: path, field: "database"), problem)
        }
        return latest.database
    }

    /// SQLite would report "file is not a database" only at the first query, as an
    /// I/O-style error; a file that is not SQLite at all is bad input instead.
    /// Only a regular file is opened (a FIFO would block, a device never end).
    package static func checkSQLite(_ path: String) throws {
        let fd = try Files.openRegularFile(path, limit: Int.max).fd
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        guard read(fd, &head, 16) == 16, head == Array("SQLite format 3\0".utf8) else {
            throw StationError.badInput(SourceLocation(file: path), "not an SQLite database")
        }
    }
}
