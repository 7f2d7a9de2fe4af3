/// A failure SQLite reported: on which file, with which code, for which statement.
package struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    package var path: String
    package var code: ResultCode
    package var message: String
    /// The statement that failed (one SQLite could not prepare, with the text after it), cut short when long.
    package var sql: String?
    /// The authorizer's reason, when a refusal is what made the statement fail.
    package var refusal: String?

    package var description: String {
        "\(path): SQLite error \(code): \(message)" + (refusal.map { " (refused: \($0))" } ?? "") + (sql.map { " in: \($0)" } ?? "")
    }

    /// The file is damaged or not SQLite at all.
    package var isDamage: Bool { switch code { case .SQLITE_CORRUPT, .SQLITE_NOTADB: true; default: false } }

    /// A statement stopped past `limitingWork(to:)`'s bound.
    package var isInterrupted: Bool { switch code { case .SQLITE_INTERRUPT: true; default: false } }

    /// A write went past `limitSize(toBytes:)`, or the disk is full.
    package var isFull: Bool { switch code { case .SQLITE_FULL, .SQLITE_TOOBIG: true; default: false } }
}

/// An SQLite result code, primary or extended (sqlite.org/rescode.html, whose
/// numbers are part of SQLite's stable interface). As a pattern, a primary code
/// matches its extended codes too: with extended codes on, as every connection
/// has them, `case .SQLITE_BUSY` still matches SQLITE_BUSY_SNAPSHOT.
package struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code of an extended one (its low byte); a primary code itself.
    package var primaryResultCode: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

    /// The number, as messages have always shown it.
    package var description: String { String(rawValue) }

    package static func ~= (pattern: ResultCode, code: ResultCode) -> Bool {
        pattern == pattern.primaryResultCode ? pattern == code.primaryResultCode : pattern == code
    }

    package static let SQLITE_OK = Self(rawValue: 0), SQLITE_ERROR = Self(rawValue: 1), SQLITE_INTERNAL = Self(rawValue: 2), SQLITE_PERM = Self(rawValue: 3)
    package static let SQLITE_ABORT = Self(rawValue: 4), SQLITE_BUSY = Self(rawValue: 5), SQLITE_LOCKED = Self(rawValue: 6), SQLITE_NOMEM = Self(rawValue: 7)
    package static let SQLITE_READONLY = Self(rawValue: 8), SQLITE_INTERRUPT = Self(rawValue: 9), SQLITE_IOERR = Self(rawValue: 10)
    package static let SQLITE_CORRUPT = Self(rawValue: 11), SQLITE_NOTFOUND = Self(rawValue: 12), SQLITE_FULL = Self(rawValue: 13)
    package static let SQLITE_CANTOPEN = Self(rawValue: 14), SQLITE_PROTOCOL = Self(rawValue: 15), SQLITE_EMPTY = Self(rawValue: 16)
    package static let SQLITE_SCHEMA = Self(rawValue: 17), SQLITE_TOOBIG = Self(rawValue: 18), SQLITE_CONSTRAINT = Self(rawValue: 19)
    package static let SQLITE_MISMATCH = Self(rawValue: 20), SQLITE_MISUSE = Self(rawValue: 21), SQLITE_NOLFS = Self(rawValue: 22)
    package static let SQLITE_AUTH = Self(rawValue: 23), SQLITE_FORMAT = Self(rawValue: 24), SQLITE_RANGE = Self(rawValue: 25)
    package static let SQLITE_NOTADB = Self(rawValue: 26), SQLITE_NOTICE = Self(rawValue: 27), SQLITE_WARNING = Self(rawValue: 28)
    package static let SQLITE_ROW = Self(rawValue: 100), SQLITE_DONE = Self(rawValue: 101)
}

/// A statement of an SQL script (a patch) that failed: where, which, and why; the cause
/// of the StationError the script's run throws.
package struct StatementFailure: Sendable, Equatable {
    package var location: SourceLocation
    package var statement: String
    /// SQLite's message, or why the statement is not one statement.
    package var problem: String
    /// SQLite's error, when SQLite failed the statement.
    package var error: SQLiteError?

    package init(location: SourceLocation, statement: String, problem: String, error: SQLiteError?) {
        self.location = location; self.statement = statement; self.problem = problem; self.error = error
    }

    /// The authorizer's reason, when a refusal is what made the statement fail.
    package var refusal: String? { error?.refusal }

    /// The statement wrote past `limitSize(toBytes:)`.
    package var isFull: Bool { error?.isFull ?? false }

    /// The statement stopped past `limitingWork(to:)`'s bound.
    package var isInterrupted: Bool { error?.isInterrupted ?? false }

    package var message: String { "\(refusal.map { "refused: \($0)" } ?? problem) in: \(shown(statement))" }
}
