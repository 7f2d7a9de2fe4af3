import Foundation
import StationModel

/// Runs an SQL patch the way the Android client does: read lines, join them
/// (without the newline) until the count of ' is even, run each joined text as
/// one statement, all in one transaction; any error rolls everything back.
///
/// A stand-in until BundleDiff's AndroidPatchRunner lands on main; the lead can
/// swap the call in BundleClient for it.
enum LinePatchRunner {
    static func statements(in sql: String) -> [String] {
        var out: [String] = []
        var pending = ""
        var quotes = 0
        // Line ends as Java's readLine sees them: LF, CRLF (one Character in Swift) or CR.
        for line in sql.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            if pending.isEmpty && line.trimmingCharacters(in: .whitespaces).isEmpty { continue }
            pending += line
            quotes += line.reduce(0) { $0 + ($1 == "'" ? 1 : 0) }
            if quotes % 2 == 0 {
                out.append(pending)
                pending = ""
                quotes = 0
            }
        }
        if !pending.isEmpty { out.append(pending) } // an unbalanced quote: SQLite will reject it
        return out
    }

    /// Applies `sql` to `db` in one transaction. Transaction statements inside
    /// the patch are skipped: the runner owns the transaction.
    static func apply(sql: String, to db: SQLiteDatabase) throws {
        try db.transaction {
            for statement in statements(in: sql) {
                let bare = statement.trimmingCharacters(in: .whitespaces).uppercased()
                    .trimmingCharacters(in: CharacterSet(charactersIn: ";"))
                if bare.hasPrefix("--") || ["BEGIN", "BEGIN TRANSACTION", "COMMIT", "COMMIT TRANSACTION", "END", "END TRANSACTION"].contains(bare) {
                    continue
                }
                try db.execute(statement)
            }
        }
    }
}
