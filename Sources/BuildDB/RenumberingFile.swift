import FoundationEssentials
import Glibc
import StationModel

/// raw/renumbered.csv: `new_s_id,old_s_id,version`, one row per (new, old) pair,
/// cumulative: every renumbering ever published stays in the file, because a client
/// several versions behind needs them all.
public enum RenumberingFile {
    public static let defaultPath = "raw/renumbered.csv"
    public static let columns = ["new_s_id", "old_s_id", "version"]

    /// The renumberings, each with the line it came from (for error messages).
    public static func read(from path: String) throws -> [Renumbering: SourceLocation] {
        try parse(CSVReader.read(path: path))
    }

    public static func parse(_ table: CSVTable) throws -> [Renumbering: SourceLocation] {
        if table.header.isEmpty { return [:] }
        try table.require(columns)
        var problems = DiagnosticCollector()
        var result: [Renumbering: SourceLocation] = [:]
        var firstLine: [[Int]: Int] = [:]
        for row in table.rows() {
            guard let newID = row.int("new_s_id", &problems),
                  let oldID = row.int("old_s_id", &problems),
                  let version = row.int("version", &problems, range: 1...Int(Int32.max)) else { continue }
            if newID == oldID {
                problems.add(row.location("old_s_id"), "a station cannot replace itself (new_s_id = old_s_id = \(newID))")
                continue
            }
            if let earlier = firstLine[[newID, oldID]] {
                problems.add(row.location("new_s_id"), "the pair \(newID) <- \(oldID) is already listed on line \(earlier)")
                continue
            }
            firstLine[[newID, oldID]] = row.line
            result[Renumbering(newID: newID, oldID: oldID, version: version)] = SourceLocation(file: table.file, line: row.line)
        }
        try problems.check()
        return result
    }
}
