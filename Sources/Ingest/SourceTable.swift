import Foundation
import StationModel

// Shared plumbing of the CSV readers: open one table of a source folder, check
// its header, then read typed fields by column index. Columns are resolved once
// per table, and numbers are parsed without Foundation, because these loops run
// over every field of a national file (about 10,000 rows) inside the ingest's
// time budget.

/// One column of a table, resolved once from the header; `index` is nil when an
/// optional column is absent.
struct Column {
    let name: String
    let index: Int?
}

struct SourceTable {
    /// The label-relative name used in messages, e.g. "raw/stations.csv".
    let file: String
    let table: CSVTable

    var records: [CSVRecord] { table.records }

    /// Reads `name` from `folder` and checks that the header names every
    /// required column. Problems with the file are collected and nil returned,
    /// so the caller can go on to the other files and report everything at once.
    static func load(folder: String, label: String, name: String, required: [String],
                     _ problems: inout DiagnosticCollector) throws -> SourceTable? {
        let display = label.isEmpty ? name : label + "/" + name
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            problems.add(SourceLocation(file: display), "file not found; expected \(name) in the source folder \(label)")
            return nil
        }
        let table: CSVTable
        do {
            table = try CSVReader.read(path: path, displayName: display)
        } catch let error as InputError {
            problems.add(error)
            return nil
        }
        if table.header.isEmpty {
            problems.add(SourceLocation(file: display, line: 1), "empty file; expected a header naming the columns \(required.joined(separator: ", "))")
            return nil
        }
        do {
            try table.require(required)
        } catch let error as InputError {
            problems.add(error)
            return nil
        }
        return SourceTable(file: display, table: table)
    }

    func column(_ name: String) -> Column { Column(name: name, index: table.column(name)) }

    func location(_ record: CSVRecord, _ column: Column) -> SourceLocation {
        SourceLocation(file: file, line: record.line, field: column.name)
    }

    func location(_ record: CSVRecord, field: String? = nil) -> SourceLocation {
        SourceLocation(file: file, line: record.line, field: field)
    }

    /// The raw field; "" when the column is absent. (CSVReader has already
    /// checked that every record has as many fields as the header.)
    @inline(__always)
    func raw(_ record: CSVRecord, _ column: Column) -> String {
        guard let i = column.index, i < record.fields.count else { return "" }
        return record.fields[i]
    }

    /// The field without surrounding white space.
    @inline(__always)
    func text(_ record: CSVRecord, _ column: Column) -> String {
        trimmed(raw(record, column))
    }

    /// Required non-empty text (a name).
    func name(_ record: CSVRecord, _ column: Column, _ problems: inout DiagnosticCollector) -> String? {
        let value = text(record, column)
        if value.isEmpty {
            problems.add(location(record, column), "expected a name, found nothing")
            return nil
        }
        return value
    }

    /// Optional text: empty gives nil.
    func optionalText(_ record: CSVRecord, _ column: Column) -> String? {
        let value = text(record, column)
        return value.isEmpty ? nil : value
    }

    /// A required integer, optionally within a range.
    func int(_ record: CSVRecord, _ column: Column, range: ClosedRange<Int>? = nil,
             _ problems: inout DiagnosticCollector) -> Int? {
        let value = text(record, column)
        guard let v = Int(value) else {
            problems.add(location(record, column),
                         value.isEmpty ? "expected an integer, found nothing" : "expected an integer, found '\(value)'")
            return nil
        }
        if let range, !range.contains(v) {
            problems.add(location(record, column), "expected \(range.lowerBound)..\(range.upperBound), found \(v)")
            return nil
        }
        return v
    }

    /// An optional integer: empty (or an absent column) gives nil without a problem.
    /// `ok` is false when the field held something that is not an integer.
    func optionalInt(_ record: CSVRecord, _ column: Column, _ problems: inout DiagnosticCollector) -> (value: Int?, ok: Bool) {
        let value = text(record, column)
        if value.isEmpty { return (nil, true) }
        guard let v = Int(value) else {
            problems.add(location(record, column), "expected an integer or nothing, found '\(value)'")
            return (nil, false)
        }
        return (v, true)
    }

    /// 0/1 (or true/false); empty or an absent column gives the default.
    func bool(_ record: CSVRecord, _ column: Column, default def: Bool, _ problems: inout DiagnosticCollector) -> Bool? {
        let value = text(record, column)
        switch value {
        case "": return def
        case "1", "true", "TRUE", "True": return true
        case "0", "false", "FALSE", "False": return false
        default:
            problems.add(location(record, column), "expected 0 or 1, found '\(value)'")
            return nil
        }
    }

    /// Decimal degrees to micro-degrees.
    func microDegrees(_ record: CSVRecord, _ column: Column, _ problems: inout DiagnosticCollector) -> Int? {
        let value = text(record, column)
        guard let v = MicroDegrees.parse(value) else {
            problems.add(location(record, column),
                         value.isEmpty ? "expected decimal degrees, found nothing" : "expected decimal degrees, found '\(value)'")
            return nil
        }
        return v
    }

    /// Checks that a point lies in Japan; the message shows both coordinates.
    func checkInJapan(_ record: CSVRecord, lat: Int, lng: Int, field: String, _ problems: inout DiagnosticCollector) -> Bool {
        if MicroDegrees.inJapan(lat: lat, lng: lng) { return true }
        problems.add(location(record, field: field),
                     "expected a point in Japan (lat 20..46, lng 122..154), found lat \(MicroDegrees.format(lat)), lng \(MicroDegrees.format(lng))")
        return false
    }
}

/// Trims white space without Foundation: most fields have none, and the
/// check is two scalar looks.
@inline(__always)
func trimmed(_ s: String) -> String {
    let scalars = s.unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return s }
    if !isSpace(first) && !isSpace(last) { return s }
    var lo = scalars.startIndex, hi = scalars.endIndex
    while lo < hi, isSpace(scalars[lo]) { lo = scalars.index(after: lo) }
    while hi > lo, isSpace(scalars[scalars.index(before: hi)]) { hi = scalars.index(before: hi) }
    return String(scalars[lo..<hi])
}

@inline(__always)
func isSpace(_ u: Unicode.Scalar) -> Bool {
    u.value < 0x80 ? (u.value == 0x20 || (u.value >= 0x09 && u.value <= 0x0D)) : u.properties.isWhitespace
}

/// Remembers where each ID was first defined, to name both lines of a duplicate.
struct FirstSeen {
    private var lines: [Int: Int] = [:]

    func contains(_ id: Int) -> Bool { lines[id] != nil }

    /// Records `id` at `line`; on a duplicate, adds a problem naming the earlier line and returns false.
    mutating func insert(_ id: Int, line: Int, at location: SourceLocation, what: String,
                         _ problems: inout DiagnosticCollector) -> Bool {
        if let earlier = lines[id] {
            problems.add(location, "expected a unique \(what), found \(id) again (first on line \(earlier))")
            return false
        }
        lines[id] = line
        return true
    }
}
