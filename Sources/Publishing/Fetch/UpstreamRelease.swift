import Glibc
import Ingest
import StationCore

/// The upstream's releases only move forward, and raw/ holds the latest one it took
/// (raw/station_database/latest_info.json; without it, the published version records the
/// release it was made from). A fetch that would replace it with an older release, whether
/// the mirror says so or claims a newer version over older files, would have the next make
/// take every app back; so it is refused, unless asked for.
///
/// What a release's files show of its age: the upstream keeps every station and line it
/// ever listed, a closed one marked `closed`, and never reopens one. Files that lack one
/// of raw/'s, or list as open one that raw/'s release closed, are older than raw/'s,
/// whatever version they claim; and a release that claims raw/'s own version must be
/// raw/'s own files.
struct UpstreamRelease {
    /// The source folder in raw/, and the staging folder holding the release as it would be.
    var current: String
    var candidate: String
    /// How messages name the source folder (raw/station_database).
    var label: String
    /// The release the published version was made from (its latest.json's "releases"), if any.
    var published: Int?

    var releaseFile: String { StationDatabaseReader.releaseFile }

    /// The release the candidate claims (the format check refuses a file without one).
    var claimed: Int? { get throws { try release(in: candidate) } }

    /// The last day a release may claim: tomorrow (UTC), whatever a clock's zone or a mirror's.
    static func lastDay(now: time_t = time(nil)) -> Int {
        var seconds = now + 86_400, day = tm()
        gmtime_r(&seconds, &day)
        return Int(day.tm_year + 1900) * 10_000 + Int(day.tm_mon + 1) * 100 + Int(day.tm_mday)
    }

    /// Why the release in `candidate` would take raw/ back, or nil when it would not.
    func problem() throws -> String? {
        guard let claimed = try claimed else { return nil }
        let own = try release(in: current)
        guard let held = own ?? published else {
            // Nothing to go back from, unless raw/ holds the source's files, of a release no one recorded.
            guard Files.exists(joinPath(current, StationDatabaseReader.stationFile)) else { return nil }
            return "\(joinPath(label, releaseFile)) is missing or names no release, and no published version records one: whether release "
                + "\(claimed) is older than raw/'s cannot be told. Restore it (git checkout -- \(joinPath(label, releaseFile)))"
        }
        let recorded = own != nil ? "the release \(joinPath(label, releaseFile)) records"
            : "the release the published version was made from (latest.json's releases; \(joinPath(label, releaseFile)) is missing or names none)"
        if claimed < held { return "release \(claimed), older than \(held), \(recorded)" }
        if claimed == held, own != nil {
            let differing = try StationDatabaseReader.files.filter { name in
                let here = joinPath(current, name), there = joinPath(candidate, name)
                guard Files.exists(here) else { return false }
                return try Files.read(here) != Files.read(there)
            }
            return differing.isEmpty ? nil : "claims release \(claimed), the one raw/ holds, but its \(differing.joined(separator: ", ")) "
                + "differ\(differing.count == 1 ? "s" : "") from raw/'s: a release, once out, does not change"
        }
        if claimed == held { return nil }
        let stations = try regressions(StationDatabaseReader.stationFile, nameColumn: "name")
        let lines = try regressions(StationDatabaseReader.lineFile, nameColumn: "name")
        var undone: [String] = []
        for (what, found) in [("station", stations), ("line", lines)] {
            if !found.dropped.isEmpty { undone.append("drops \(counted(found.dropped, what)) raw/'s release has (\(listed(found.dropped)))") }
            if !found.reopened.isEmpty { undone.append("reopens \(counted(found.reopened, what)) raw/'s release closed (\(listed(found.reopened)))") }
        }
        return undone.isEmpty ? nil : "claims release \(claimed), but its files are older than raw/'s (\(held)): it "
            + undone.joined(separator: "; it ")
    }

    private func counted(_ names: [String], _ what: String) -> String { "\(names.count) \(what)\(names.count == 1 ? "" : "s")" }

    private func listed(_ names: [String]) -> String {
        names.prefix(8).joined(separator: ", ") + (names.count > 8 ? " and \(names.count - 8) more" : "")
    }

    /// raw/'s rows of `file` (by the upstream's id) that the candidate lacks, and those it
    /// lists as open though raw/'s are closed, each by its name, in raw/'s order.
    private func regressions(_ file: String, nameColumn: String) throws -> (dropped: [String], reopened: [String]) {
        let here = joinPath(current, file)
        guard Files.exists(here) else { return ([], []) }
        let before = try CSVReader.read(path: here), after = try CSVReader.read(path: joinPath(candidate, file))
        guard before.has("id"), before.has("closed"), after.has("id"), after.has("closed") else { return ([], []) }
        var open: [String: Bool] = [:]
        let (id, closed) = (after.column("id"), after.column("closed"))
        for r in after.records { open[after.string(r, id)] = after.string(r, closed) == "0" }
        var dropped: [String] = [], reopened: [String] = []
        let (oldID, oldClosed, name) = (before.column("id"), before.column("closed"), before.column(before.has(nameColumn) ? nameColumn : "id"))
        for r in before.records {
            switch open[before.string(r, oldID)] {
            case nil: dropped.append(before.string(r, name))
            case true? where before.string(r, oldClosed) != "0": reopened.append(before.string(r, name))
            default: break
            }
        }
        return (dropped, reopened)
    }

    private func release(in folder: String) throws -> Int? {
        let path = joinPath(folder, releaseFile)
        return Files.exists(path) ? StationDatabaseReader.release(of: try Files.read(path)) : nil
    }
}
