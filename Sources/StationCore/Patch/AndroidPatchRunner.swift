/// Runs a patch exactly as the Android client does, so tests see what users' phones
/// see, and the reference client runs a downloaded one the same way: the statements
/// of an `SQLScript` (lines joined until the count of `'` is even), all inside one
/// exclusive transaction (as Android's beginTransaction), everything rolled back on
/// any error.
///
/// It is stricter than the phone where the phone would silently do the wrong thing:
/// a blank line, a comment-only line, or a second statement after the first `;` on a
/// line (Android's execSQL ignores it) are errors here. With an authorizer (the
/// client's is `PatchPolicy.authorizer`), a statement that would do anything the
/// authorizer refuses fails before it runs.
package enum AndroidPatchRunner {
    /// Applies `sql` to an open database, in one transaction; `file` is how messages
    /// name the patch. Throws bad input whose cause is the statement that failed.
    package static func apply(sql: String, to db: SQLiteDatabase, file: String = "patch",
                             authorizer: SQLiteAuthorizer? = nil) throws {
        let script = try SQLScript(sql, file: file)
        try db.transaction(.exclusive) { try db.authorizing(authorizer) { try script.run(on: db) } }
    }
}

/// SQL statements in a text, split as the Android client splits a patch (bundle.md,
/// "Incremental patches"): lines as Java's BufferedReader reads them (ending at LF,
/// CR or CRLF) are joined, without the line break, until the text holds an even
/// number of `'`; that text is one statement.
package struct SQLScript: Sendable {
    package struct Statement: Hashable, Sendable {
        /// The line the statement starts on (1-based).
        package var line: Int
        package var text: String
    }

    /// How messages name the text.
    package let file: String
    package let statements: [Statement]

    /// A quote left open at the end is an error: the client would never run that statement.
    package init(_ text: String, file: String = "patch") throws {
        self.file = file
        var result: [Statement] = [], buffer = "", bufferLine = 0, quotes = 0
        for (index, line) in Self.javaLines(text).enumerated() {
            if buffer.isEmpty && quotes == 0 { bufferLine = index + 1 }
            buffer += line
            quotes += line.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "'") ? 1 : 0) }
            if quotes % 2 == 0 {
                result.append(Statement(line: bufferLine, text: buffer))
                buffer = ""
                quotes = 0
            }
        }
        if quotes % 2 != 0 {
            throw StationError.badInput(SourceLocation(file: file, line: bufferLine), "a quoted literal opened here is never closed")
        }
        statements = result
    }

    /// Lines as BufferedReader.readLine gives them: split at LF, CR or CRLF, with no
    /// empty line after a final line break.
    static func javaLines(_ text: String) -> [String] {
        var lines: [String] = [], current: [UInt8] = [], afterCR = false
        for byte in text.utf8 {
            defer { afterCR = byte == 0x0D }
            if byte == 0x0A && afterCR { continue }
            if byte == 0x0A || byte == 0x0D {
                lines.append(String(decoding: current, as: UTF8.self)); current.removeAll(keepingCapacity: true)
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
        return lines
    }

    /// Runs each statement to its end, in order; exactly one SQL statement each (a
    /// second would be ignored by the Android client, an empty one is a mistake).
    /// Opens no transaction: `AndroidPatchRunner` wraps the call in one, the client in its update.
    package func run(on db: SQLiteDatabase) throws {
        for statement in statements {
            func failure(_ problem: String, _ error: SQLiteError? = nil) -> StationError {
                let failure = StatementFailure(location: SourceLocation(file: file, line: statement.line), statement: statement.text, problem: problem, error: error)
                return StationError(.badInput, [Diagnostic(failure.location, failure.message)], cause: .statement(failure))
            }
            do {
                let (prepared, rest) = try db.prepareFirst(statement.text)
                guard let prepared else { throw failure("no statement (a blank or comment-only line): the client would run an empty statement") }
                guard rest.allSatisfy({ $0.isWhitespace || $0 == ";" }) else { throw failure("more than one statement on one line; the Android client runs only the first") }
                while try prepared.step() {}
            } catch let error as SQLiteError {
                throw failure(error.message, error)
            }
        }
    }
}
