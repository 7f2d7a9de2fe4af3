import FoundationEssentials
import Glibc
import StationIO
import StationModel

/// One side of `stationdb diff`: what the user named and the bundle file it stands for.
///
/// A side may be
/// - a bundle file (any SQLite file with the tables of bundle.md, old ones included);
/// - a dist folder: it has latest.json, whose "database" path (relative to the folder)
///   names the published version's bundle;
/// - a version folder (dist/<v>): it has manifest.json and stations.sqlite.
///
/// Anything else is an InputError (exit 2): the diff cannot say anything about it.
public struct DiffSide: Sendable, Equatable {
    /// As given on the command line.
    public var argument: String
    /// The bundle file compared.
    public var databasePath: String
    public var kind: Kind

    public enum Kind: String, Sendable { case file, dist, version }

    public init(argument: String, databasePath: String, kind: Kind) {
        self.argument = argument; self.databasePath = databasePath; self.kind = kind
    }

    /// What reports print: the argument, plus the bundle a folder stands for.
    public var label: String {
        kind == .file ? argument : "\(argument) (\(databasePath))"
    }

    static let latestName = "latest.json"
    static let manifestName = "manifest.json"
    static let databaseName = "stations.sqlite"

    public static func resolve(_ argument: String) throws -> DiffSide {
        let fm = FileManager.default
        var isFolder = false
        guard fm.fileExists(atPath: argument, isDirectory: &isFolder) else {
            throw InputError(SourceLocation(file: argument), "no such file or folder")
        }
        guard isFolder else {
            try checkSQLite(argument)
            return DiffSide(argument: argument, databasePath: argument, kind: .file)
        }
        func inside(_ name: String) -> String { joinPath(argument, name) }

        let latest = inside(latestName)
        if fm.fileExists(atPath: latest) {
            let database = try databaseNamed(byLatest: latest)
            let path = database.hasPrefix("/") ? database : inside(database)
            guard fm.fileExists(atPath: path) else {
                throw InputError(SourceLocation(file: latest, field: "database"), "names \(database), which does not exist")
            }
            try checkSQLite(path)
            return DiffSide(argument: argument, databasePath: path, kind: .dist)
        }
        let database = inside(databaseName)
        if fm.fileExists(atPath: inside(manifestName)) || fm.fileExists(atPath: database) {
            guard fm.fileExists(atPath: database) else {
                throw InputError(SourceLocation(file: argument), "a version folder without \(databaseName)")
            }
            try checkSQLite(database)
            return DiffSide(argument: argument, databasePath: database, kind: .version)
        }
        throw InputError(SourceLocation(file: argument),
                         "not a bundle: a folder without \(latestName) (a dist folder) or \(databaseName) (a version folder)")
    }

    static func databaseNamed(byLatest path: String) throws -> String {
        struct Latest: Decodable { var database: String }
        guard let latest = try? JSONDecoder().decode(Latest.self, from: Data(Files.read(path))), !latest.database.isEmpty else {
            throw InputError(SourceLocation(file: path, field: "database"), "missing or unreadable: latest.json must name the published database")
        }
        return latest.database
    }

    /// SQLite would report "file is not a database" only at the first query, as an
    /// I/O-style error; a file that is not SQLite at all is bad input instead.
    static func checkSQLite(_ path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw InputError(SourceLocation(file: path), "cannot read it") }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 16)
        guard read(fd, &head, 16) == 16, head == Array("SQLite format 3\0".utf8) else {
            throw InputError(SourceLocation(file: path), "not an SQLite database")
        }
    }
}
