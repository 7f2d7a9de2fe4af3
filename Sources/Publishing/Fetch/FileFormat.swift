import Ingest
import StationCore

/// What a downloaded source file must be before it may replace the one in
/// raw/: enough of its source's format that the source's reader would start on
/// it, so a maintenance page or an error page sent with status 200 never
/// replaces a good file.
package enum FileFormat: Sendable, Hashable {
    /// UTF-8 CSV whose header names these columns, with at least one row.
    case csv(requiredColumns: [String])
    /// An N02 document that Ingest's N02Reader (libxml2) reads whole.
    case n02
    /// The upstream's latest_info.json: a JSON object whose "version" is a whole number.
    case upstreamRelease
}

extension FileFormat {
    /// Why the file at `path` is not of this format, or nil when it is.
    /// `name` is how messages name the file (its place in raw/).
    func problem(withFileAt path: String, name: String) throws -> String? {
        switch self {
        case .csv(let required):
            let bytes = try Files.read(path)
            return Self.csvProblem(bytes, name: name, required: required)
        case .upstreamRelease:
            let bytes = try Files.read(path)
            if StationDatabaseReader.release(of: bytes) != nil { return nil }
            let number = JSONSyntax.numberOutOfRange(in: bytes).map { "\"\(shown($0.path))\" is \(shown($0.text)), out of range; " } ?? ""
            return number + "expected a JSON object whose \"version\" is a whole number (the release, as 20260529)"
        case .n02:
            do {
                _ = try N02Reader.read(path: path, label: name)
                return nil
            } catch let error as StationError where error.kind == .badInput {
                return Self.firstProblem(of: error)
            }
        }
    }

    /// The whole file through StationIO's CSV reader, as the ingest reads it.
    static func csvProblem(_ bytes: [UInt8], name: String, required: [String]) -> String? {
        do {
            let table = try CSVReader.parse(bytes, file: name)
            if table.header.isEmpty {
                return "an empty file; expected a header naming the columns \(required.joined(separator: ", "))"
            }
            try table.require(required)
            return table.count == 0 ? "the header but no rows; expected at least one row of data" : nil
        } catch let error as StationError where error.kind == .badInput {
            return firstProblem(of: error)
        } catch {
            return "\(error)"
        }
    }

    /// The first problem an input error names, with its line and field (a field
    /// name from the file is cut), and how many more there were.
    static func firstProblem(of error: StationError) -> String {
        guard let first = error.diagnostics.first else { return "\(error)" }
        var place = first.location.line.map { "line \($0)" } ?? ""
        if let field = first.location.field { place += (place.isEmpty ? "" : ", ") + shown(field) }
        var text = place.isEmpty ? first.message : place + ": " + first.message
        let more = error.diagnostics.count - 1
        if more > 0 || error.truncated { text += " (and \(more)\(error.truncated ? " or more" : "") more problems)" }
        return text
    }
}
