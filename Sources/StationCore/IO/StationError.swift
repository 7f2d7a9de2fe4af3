/// The one error the libraries throw (beside SQLite's own): its kind, which alone decides
/// the exit status; what went wrong, at a file's line and field where there is one; and
/// the cause underneath, kept for matching (a download's failure, a gzip's, SQLite's).
package struct StationError: Error, CustomStringConvertible, Sendable {
    package enum Kind: String, Sendable, CaseIterable {
        /// What was given is wrong: a source, a fix, an option, a URL that serves nothing.
        case badInput
        /// A published dist, bundle or staging file is not what it says it is.
        case damaged
        /// A file that cannot be read or written, a network that fails, a tool missing.
        case environment
        /// A guard refused the version.
        case refused
        /// A version was published, but raw/registry.csv could not take its registry.
        case publishedWithoutRegistry

        /// The exit status of each kind (docs/cli.md's table).
        package var exitStatus: ExitStatus {
            switch self {
            case .badInput: .badInput
            case .damaged, .environment: .environment
            case .refused: .guardRefused
            case .publishedWithoutRegistry: .publishedWithoutRegistry
            }
        }
    }

    /// What underlies an error, for code that acts on it (a retry, a message in a
    /// download's terms).
    package enum Cause: Sendable, Equatable {
        case transfer(TransferFailure)
        case gzip(Gzip.Failure)
        case sqlite(SQLiteError)
        /// A statement of an SQL script (a patch) that failed.
        case statement(StatementFailure)
    }

    package var kind: Kind
    /// Each problem at its file, line and field.
    package var diagnostics: [Diagnostic]
    /// Problems that have no place in a file.
    package var reasons: [String]
    /// More problems were found than were kept.
    package var truncated: Bool
    package var cause: Cause?
    /// The events of the run have said it already: the command adds no words, only the status.
    package var said: Bool

    package init(_ kind: Kind, _ diagnostics: [Diagnostic] = [], reasons: [String] = [], truncated: Bool = false,
                 cause: Cause? = nil, said: Bool = false) {
        self.kind = kind; self.diagnostics = diagnostics; self.reasons = reasons
        self.truncated = truncated; self.cause = cause; self.said = said
    }

    package init(_ kind: Kind, _ location: SourceLocation, _ message: String, cause: Cause? = nil) {
        self.init(kind, [Diagnostic(location, message)], cause: cause)
    }

    /// A download that failed, bad input when the URL serves nothing usable.
    package init(_ transfer: TransferFailure) {
        self.init(transfer.isBadInput ? .badInput : .environment, reasons: [transfer.description], cause: .transfer(transfer))
    }

    package static func badInput(_ location: SourceLocation, _ message: String) -> StationError { StationError(.badInput, location, message) }
    package static func badInput(_ diagnostics: [Diagnostic], truncated: Bool = false) -> StationError {
        StationError(.badInput, diagnostics, truncated: truncated)
    }
    package static func damaged(_ location: SourceLocation, _ message: String) -> StationError { StationError(.damaged, location, message) }
    package static func environment(_ message: String, cause: Cause? = nil) -> StationError { StationError(.environment, reasons: [message], cause: cause) }
    package static func refused(_ reasons: [String]) -> StationError { StationError(.refused, reasons: reasons) }

    package var exitStatus: ExitStatus { kind.exitStatus }

    /// The failed download underneath, if that is what this is.
    package var transfer: TransferFailure? { if case .transfer(let t) = cause { t } else { nil } }

    /// SQLite's error underneath, if that is what this is.
    package var sqlite: SQLiteError? { if case .sqlite(let e) = cause { e } else { nil } }

    /// The statement of a script that failed, if that is what this is.
    package var statement: StatementFailure? { if case .statement(let s) = cause { s } else { nil } }

    /// The first problem's words, without its place: what a caller that words it again needs.
    package var message: String { diagnostics.first?.message ?? reasons.first ?? "" }

    /// Every problem on a line of its own, each starting with what it is.
    package var description: String {
        let word = kind == .refused ? "refused" : "error"
        var lines = diagnostics.map { "\(word): \($0)" } + reasons.map { "\(word): \($0)" }
        if truncated { lines.append("error: too many problems; stopped after \(diagnostics.count)") }
        return lines.joined(separator: "\n")
    }
}

extension StationError {
    /// The problems of `problems`, found in a published file: damaged (exit 3).
    package static func damaged(_ problems: StationError) -> StationError {
        var damaged = problems
        damaged.kind = .damaged
        return damaged
    }
}
