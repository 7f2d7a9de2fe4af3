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
        guard let v = parseInt(value) else {
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
        guard let v = parseInt(value) else {
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

/// Trims white space (Unicode White_Space) without Foundation. Most fields
/// have none, and finding that out takes decoding the first and last scalar
/// from the bytes (Unicode's property lookup is far slower than this).
@inline(__always)
func trimmed(_ s: String) -> String {
    var s = s
    let clean: Bool = s.withUTF8 { b in
        guard !b.isEmpty else { return true }
        return !isSpace(firstScalar(b)) && !isSpace(lastScalar(b))
    }
    if clean { return s }
    let scalars = s.unicodeScalars
    var lo = scalars.startIndex, hi = scalars.endIndex
    while lo < hi, isSpace(scalars[lo].value) { lo = scalars.index(after: lo) }
    while hi > lo, isSpace(scalars[scalars.index(before: hi)].value) { hi = scalars.index(before: hi) }
    return String(scalars[lo..<hi])
}

/// Unicode's White_Space property, by code point.
@inline(__always)
func isSpace(_ u: UInt32) -> Bool {
    if u < 0x80 { return u == 0x20 || (u >= 0x09 && u <= 0x0D) }
    switch u {
    case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
    default: return false
    }
}

// The first and last scalar of valid, non-empty UTF-8.
@inline(__always)
func firstScalar(_ b: UnsafeBufferPointer<UInt8>) -> UInt32 {
    let b0 = UInt32(b[0])
    if b0 < 0x80 { return b0 }
    if b0 < 0xE0 { return (b0 & 0x1F) << 6 | UInt32(b[1] & 0x3F) }
    if b0 < 0xF0 { return (b0 & 0x0F) << 12 | UInt32(b[1] & 0x3F) << 6 | UInt32(b[2] & 0x3F) }
    return (b0 & 0x07) << 18 | UInt32(b[1] & 0x3F) << 12 | UInt32(b[2] & 0x3F) << 6 | UInt32(b[3] & 0x3F)
}

@inline(__always)
func lastScalar(_ b: UnsafeBufferPointer<UInt8>) -> UInt32 {
    var start = b.count - 1
    while start > 0, b[start] & 0xC0 == 0x80 { start -= 1 }
    return firstScalar(UnsafeBufferPointer(rebasing: b[start...]))
}

/// A decimal integer (optional sign, surrounding white space allowed); nil
/// for anything else. Plain digits are read straight from the bytes; anything
/// unusual goes through the standard library.
func parseInt(_ s: String) -> Int? {
    var s = s
    let fast: Int? = s.withUTF8 { b in
        var i = 0
        let n = b.count
        var negative = false
        if i < n, b[i] == 0x2D || b[i] == 0x2B { negative = b[i] == 0x2D; i += 1 }
        guard i < n, n - i <= 18 else { return nil }
        var v = 0
        while i < n {
            let d = b[i] &- 0x30
            if d > 9 { return nil }
            v = v * 10 + Int(d)
            i += 1
        }
        return negative ? -v : v
    }
    return fast ?? Int(trimmed(s))
}

/// Whether `text` contains `part`, comparing UTF-8 bytes (Foundation's
/// `contains` goes through CFString and is many times slower).
func containsText(_ text: String, _ part: String) -> Bool {
    var text = text, part = part
    return text.withUTF8 { t in
        part.withUTF8 { p in
            guard !p.isEmpty else { return true }
            guard t.count >= p.count else { return false }
            let first = p[0]
            var i = 0
            while i <= t.count - p.count {
                if t[i] == first {
                    var k = 1
                    while k < p.count, t[i + k] == p[k] { k += 1 }
                    if k == p.count { return true }
                }
                i += 1
            }
            return false
        }
    }
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
