import CSQLite
import StationIO
import StationModel

/// Runs a patch exactly as the Android client does, so tests see what users' phones see:
/// it reads lines (ending at LF, CR or CRLF, like Java's BufferedReader), joins them
/// without the line break until the text holds an even number of `'`, runs that as
/// one statement, all inside one transaction (BEGIN EXCLUSIVE, as Android's
/// beginTransaction), and rolls everything back on any error.
///
/// It is stricter than the phone where the phone would silently do the wrong thing:
/// a blank line, a comment-only line, or a second statement after the first `;` on a
/// line (Android's execSQL ignores it) are errors here.
public enum AndroidPatchRunner {
    public struct Statement: Hashable, Sendable {
        /// The line the statement starts on (1-based).
        public var line: Int
        public var text: String
    }

    /// The statements the client would run, in order.
    public static func statements(in sql: String, file: String = "patch") throws -> [Statement] {
        var result: [Statement] = []
        var buffer = ""
        var bufferLine = 0
        var quotes = 0
        var lineNumber = 0
        for line in javaLines(sql) {
            lineNumber += 1
            if buffer.isEmpty && quotes == 0 { bufferLine = lineNumber }
            buffer += line
            quotes += line.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "'") ? 1 : 0) }
            if quotes % 2 == 0 {
                result.append(Statement(line: bufferLine, text: buffer))
                buffer = ""
                quotes = 0
            }
        }
        if quotes % 2 != 0 {
            throw InputError(SourceLocation(file: file, line: bufferLine), "a quoted literal opened here is never closed")
        }
        return result
    }

    /// Applies `sql` to an open database, in one transaction.
    public static func apply(sql: String, to db: SQLiteDatabase, file: String = "patch") throws {
        let statements = try statements(in: sql, file: file)
        try db.execute("BEGIN EXCLUSIVE")
        do {
            for s in statements { try run(s, on: db, file: file) }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Applies `sql` to the database file at `path`.
    public static func apply(sql: String, toFileAt path: String, file: String = "patch") throws {
        let db = try SQLiteDatabase(path: path, mode: .readWrite)
        defer { db.close() }
        try apply(sql: sql, to: db, file: file)
    }

    static func run(_ s: Statement, on db: SQLiteDatabase, file: String) throws {
        let location = SourceLocation(file: file, line: s.line)
        var stmt: OpaquePointer?
        var tailText = ""
        let rc: Int32 = s.text.withCString { start in
            var tail: UnsafePointer<CChar>?
            let rc = sqlite3_prepare_v2(db.handle, start, -1, &stmt, &tail)
            if let tail { tailText = String(cString: tail) }
            return rc
        }
        defer { sqlite3_finalize(stmt) }
        if rc != SQLITE_OK {
            throw InputError(location, "\(String(cString: sqlite3_errmsg(db.handle))) in: \(s.text)")
        }
        guard stmt != nil else {
            throw InputError(location, "no statement on this line (blank or comment only): the client would run an empty statement")
        }
        if tailText.contains(where: { !$0.isWhitespace && $0 != ";" }) {
            throw InputError(location, "more than one statement on one line; the Android client runs only the first: \(s.text)")
        }
        while true {
            let step = sqlite3_step(stmt)
            if step == SQLITE_DONE { break }
            if step != SQLITE_ROW {
                throw InputError(location, "\(String(cString: sqlite3_errmsg(db.handle))) in: \(s.text)")
            }
        }
    }

    /// Lines as BufferedReader.readLine gives them: split at LF, CR or CRLF, with no
    /// empty line after a final line break.
    static func javaLines(_ text: String) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        var previousWasCR = false
        for byte in text.utf8 {
            if byte == 0x0A {
                if previousWasCR { previousWasCR = false; continue }
                lines.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true)
            } else if byte == 0x0D {
                lines.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true)
                previousWasCR = true
                continue
            } else {
                current.append(byte)
            }
            previousWasCR = false
        }
        if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
        return lines
    }
}
