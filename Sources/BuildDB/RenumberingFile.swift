import StationIO
import StationModel

/// raw/renumbered.csv: `new_s_id,old_s_id,version`, one row per (new, old) pair,
/// cumulative: every renumbering ever published stays in the file, because a client
/// several versions behind needs them all.
public enum RenumberingFile {
    public static let fileName = "renumbered.csv"
    public static let columns = ["new_s_id", "old_s_id", "version"]

    /// The renumberings, each with the line it came from (for error messages).
    public static func read(from path: String) throws -> [Renumbering: SourceLocation] {
        try parse(CSVReader.read(path: path))
    }

    public static func parse(_ table: CSVTable) throws -> [Renumbering: SourceLocation] {
        if table.header.isEmpty { return [:] }
        try table.require(columns)
        let cNew = table.column("new_s_id"), cOld = table.column("old_s_id"), cVersion = table.column("version")
        var problems = DiagnosticCollector()
        var result: [Renumbering: SourceLocation] = [:]
        var firstLine: [[Int]: Int] = [:]
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
            firstLine[[newID, oldID]] = table.line(r)
            result[Renumbering(newID: newID, oldID: oldID, version: version)] = table.location(r)
        }
        try problems.check()
        return result
    }
}
