import StationCore

/// raw/renumbered.csv: `new_s_id,old_s_id,version`, one row per (new, old) pair,
/// cumulative: every renumbering ever published stays in the file, because a client
/// several versions behind needs them all.
package enum RenumberingFile {
    package static let fileName = "renumbered.csv"
    package static let columns = CSVColumns(required: ["new_s_id", "old_s_id", "version"])

    /// The renumberings, each with the line it came from (for error messages).
    package static func read(from path: String) throws -> [Renumbering: SourceLocation] {
        try parse(CSVReader.read(path: path))
    }

    package static func parse(_ table: CSVTable) throws -> [Renumbering: SourceLocation] {
        if table.header.isEmpty { return [:] }
        try table.require(columns)
        let cNew = table.column("new_s_id"), cOld = table.column("old_s_id"), cVersion = table.column("version")
        var problems = DiagnosticCollector()
        var result: [Renumbering: SourceLocation] = [:]
        var firstLine: [[Int]: Int] = [:]
        // old_s_id -> the s_ids that replaced it, with their lines: a row whose new s_id already
        // leads, through these, to its old one closes a cycle (10 <- 11, then 11 <- 10), and an
        // app following the renumberings would move users' records round it.
        var replacedBy: [Int: [(new: Int, line: Int)]] = [:]
        for r in table.records {
            guard let newID = table.int(r, cNew, &problems), let oldID = table.int(r, cOld, &problems),
                  let version = table.int(r, cVersion, range: 1...Int(Int32.max), &problems) else { continue }
            if newID == oldID {
                problems.add(table.location(r, cOld), "a station cannot replace itself (new_s_id = old_s_id = \(newID))")
                continue
            }
            if let earlier = firstLine[[newID, oldID]] {
                problems.add(table.location(r, cNew), "the pair \(newID) <- \(oldID) is already listed on line \(earlier)")
                continue
            }
            if let cycle = path(from: newID, to: oldID, in: replacedBy) {
                let lines = cycle.map { "\($0.line)" }.joined(separator: ", ")
                let pairs = cycle.map { "\($0.new) <- \($0.old)" }.joined(separator: ", ")
                problems.add(table.location(r, cOld), "\(newID) <- \(oldID) closes a cycle with line\(cycle.count > 1 ? "s" : "") \(lines) (\(pairs)): "
                             + "a station cannot replace one that replaces it")
                continue
            }
            firstLine[[newID, oldID]] = table.line(r)
            replacedBy[oldID, default: []].append((newID, table.line(r)))
            result[Renumbering(newID: newID, oldID: oldID, version: version)] = table.location(r)
        }
        try problems.check()
        return result
    }

    /// The renumberings a published bundle lists, (new, old) -> the version that introduced it.
    package static func published(in database: String) throws -> [[Int]: Int] {
        let db = try SQLiteDatabase(path: database, mode: .readOnly)
        defer { db.close() }
        var out: [[Int]: Int] = [:]
        for row in try db.query("SELECT new_s_id, old_s_id, version FROM \(BundleSchema.renumberedStations.name)") {
            out[[row[0].intValue ?? 0, row[1].intValue ?? 0]] = row[2].intValue ?? 0
        }
        return out
    }

    /// Every old_s_id must be a station that existed: one the published version holds or
    /// the registry (the memory of every s_id ever given) has. An old s_id neither has is
    /// a typo, and an app would look for records of a station no version ever had.
    package static func checkOldIDs(_ renumberings: [Renumbering: SourceLocation], registry: Registry, registryLabel: String, baseline: Baseline?) throws {
        let unknown = renumberings.filter { !registry.contains(.station, $0.key.oldID) }
        guard !unknown.isEmpty else { return }
        let published: Set<Int> = try baseline.map { baseline in
            Set(try SQLiteDatabase(path: baseline.databasePath).query("SELECT s_id FROM stations").compactMap { $0[0].intValue })
        } ?? []
        let neither = baseline.map { "neither the published version \($0.bundle.version) nor \(registryLabel) has it" }
            ?? "\(registryLabel) does not have it, and no version is published yet"
        var problems = DiagnosticCollector()
        for (r, location) in unknown.sorted(by: { ($0.value.line ?? 0, $0.key.oldID) < ($1.value.line ?? 0, $1.key.oldID) })
        where !published.contains(r.oldID) {
            problems.add(SourceLocation(file: location.file, line: location.line, field: "old_s_id"), "s_id \(r.oldID) was never a station: \(neither)")
        }
        try problems.check()
    }

    /// The rows leading from `start` to `goal` through `replacedBy`, in line order; nil when none does.
    static func path(from start: Int, to goal: Int, in replacedBy: [Int: [(new: Int, line: Int)]]) -> [(new: Int, old: Int, line: Int)]? {
        var reachedBy: [Int: (new: Int, old: Int, line: Int)] = [:]
        var queue = [start], seen: Set<Int> = [start]
        while !queue.isEmpty {
            let id = queue.removeFirst()
            if id == goal {
                var rows: [(new: Int, old: Int, line: Int)] = []
                var at = goal
                while at != start, let row = reachedBy[at] { rows.append(row); at = row.old }
                return rows.sorted { $0.line < $1.line }
            }
            for next in replacedBy[id] ?? [] where seen.insert(next.new).inserted {
                reachedBy[next.new] = (next.new, id, next.line)
                queue.append(next.new)
            }
        }
        return nil
    }
}
