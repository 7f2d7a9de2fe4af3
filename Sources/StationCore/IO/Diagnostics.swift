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

/// Exit statuses shared by every subcommand: the one table (docs/cli.md, the Makefile and
/// `stationdb --help` quote it), which StationError.Kind maps onto.
package enum ExitStatus: Int32, Sendable, CaseIterable {
    case success = 0
    case differences = 1
    case badInput = 2
    case environment = 3
    case guardRefused = 4
    /// raw/registry.csv lags the published version: a version was published and raw/registry.csv
    /// could not take its registry, or it was put back since; the next publish must not start
    /// from the old one (the message names the copy to restore).
    case publishedWithoutRegistry = 5

    /// What the status says, as `stationdb --help` gives it.
    package var meaning: String {
        switch self {
        case .success: "success"
        case .differences: "diff found differences or plan would publish"
        case .badInput: "bad input or usage (what was given is wrong)"
        case .environment: "I/O or environment failure, or a damaged dist (what it leads to failed)"
        case .guardRefused: "a guard refused (or would refuse) to publish"
        case .publishedWithoutRegistry: "RAW/registry.csv lags the published version (not updated)"
        }
    }

    /// The table as a paragraph of the help: one sentence, in lines of at most 72 characters.
    package static var paragraph: String {
        let sentence = "Exit status: " + allCases.map { "\($0.rawValue) \($0.meaning)" }.joined(separator: ", ") + "."
        var lines: [String] = [], line = ""
        for word in sentence.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > 72 { lines.append(line); line = "" }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }
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

    package mutating func add(_ error: StationError) {
        for d in error.diagnostics { add(d.location, d.message) }
        if error.truncated { truncated = true }
    }

    /// Throws the collected problems, if any: bad input, or with `damaged` a damaged file.
    package func check(damaged: Bool = false) throws {
        guard !isEmpty else { return }
        throw StationError(damaged ? .damaged : .badInput, diagnostics, truncated: truncated)
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
