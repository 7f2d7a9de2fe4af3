// Errors carry where the problem is (file, line, field) and what was expected,
// and map to the command's exit status.

package struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var field: String?   // column name, XML element, or "column N"

    package init(file: String, line: Int? = nil, field: String? = nil) {
        self.file = file; self.line = line; self.field = field
    }

    package var description: String {
        var s = file
        if let line { s += ":\(line)" }
        if let field { s += ": \(field)" }
        return s
    }
}

package struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    package var location: SourceLocation
    package var message: String

    package init(_ location: SourceLocation, _ message: String) {
        self.location = location; self.message = message
    }

    package var description: String { "\(location): \(message)" }
}

/// Exit statuses shared by every subcommand.
package enum ExitStatus: Int32, Sendable {
    case success = 0
    case differences = 1
    case badInput = 2
    case environment = 3
    case guardRefused = 4
    /// A version was published, but raw/registry.csv could not take its registry: the
    /// next publish must not start from the old one (the message names the copy to restore).
    case publishedWithoutRegistry = 5
}

/// A failure whose messages were already written: only its exit status is left to give.
package struct ReportedFailure: Error, Sendable {
    package var status: ExitStatus
    package init(status: ExitStatus) { self.status = status }
}

/// Bad input (exit 2): every problem found, up to a limit, not just the first.
package struct InputError: Error, CustomStringConvertible, Sendable {
    package var diagnostics: [Diagnostic]
    package var truncated: Bool

    package init(_ diagnostics: [Diagnostic], truncated: Bool = false) {
        self.diagnostics = diagnostics; self.truncated = truncated
    }

    package init(_ location: SourceLocation, _ message: String) {
        self.init([Diagnostic(location, message)])
    }

    package var description: String {
        var lines = diagnostics.map { "error: \($0)" }
        if truncated { lines.append("error: too many problems; stopped after \(diagnostics.count)") }
        return lines.joined(separator: "\n")
    }
}

/// A published dist or bundle that is not what its own latest.json or manifest says, or
/// not a bundle as bundle.md defines it (a file it names missing, another size or sha256):
/// exit 3, every problem listed. What was given is right; what it leads to is damaged.
package struct DamagedError: Error, CustomStringConvertible, Sendable {
    package var problems: InputError
    package init(_ problems: InputError) { self.problems = problems }
    package init(_ location: SourceLocation, _ message: String) { problems = InputError(location, message) }
    package var description: String { problems.description }
}

/// I/O or environment failure (exit 3): a file that cannot be read or written, a network error.
package struct EnvironmentError: Error, CustomStringConvertible, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { "error: \(message)" }
}

/// A guard refused to publish (exit 4).
package struct GuardRefusal: Error, CustomStringConvertible, Sendable {
    package var reasons: [String]
    package init(_ reasons: [String]) { self.reasons = reasons }
    package var description: String { reasons.map { "refused: \($0)" }.joined(separator: "\n") }
}

/// Collects problems across a whole run, so a maintainer sees them all at once.
package struct DiagnosticCollector: Sendable {
    package private(set) var diagnostics: [Diagnostic] = []
    package private(set) var truncated = false
    package let limit: Int

    package init(limit: Int = 100) { self.limit = limit }

    package var isEmpty: Bool { diagnostics.isEmpty && !truncated }
    package var isFull: Bool { truncated }

    package mutating func add(_ location: SourceLocation, _ message: String) {
        if diagnostics.count < limit { diagnostics.append(Diagnostic(location, message)) } else { truncated = true }
    }

    package mutating func add(_ error: InputError) {
        for d in error.diagnostics { add(d.location, d.message) }
        if error.truncated { truncated = true }
    }

    /// Throws the collected problems, if any: bad input, or with `damaged` a DamagedError.
    package func check(damaged: Bool = false) throws {
        guard !isEmpty else { return }
        let error = InputError(diagnostics, truncated: truncated)
        if damaged { throw DamagedError(error) } else { throw error }
    }
}

/// `text` with every control character (C0 such as CR, LF and ESC, DEL, and C1) shown as
/// `\u{1B}`: what a source or a server says never colours a terminal, moves its cursor or
/// starts a line of its own in a log or a text report.
package func printable(_ text: String) -> String {
    func isControl(_ c: Unicode.Scalar) -> Bool { c.value < 0x20 || (0x7F...0x9F).contains(c.value) }
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var out = ""
    for c in text.unicodeScalars {
        if isControl(c) { out += "\\u{\(String(c.value, radix: 16, uppercase: true))}" } else { out.unicodeScalars.append(c) }
    }
    return out
}

/// A value for a message: the text as it is, or, when it is long, its first 80
/// characters and how long it was (a 10 MB field should not be echoed whole); printable.
package func shown(_ value: String, limit: Int = 80) -> String {
    guard value.count > limit else { return printable(value) }
    return "\(printable(String(value.prefix(limit))))... (\(value.utf8.count) bytes)"
}
