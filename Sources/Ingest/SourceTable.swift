import FoundationEssentials
import Glibc
import StationModel

// Shared plumbing of the CSV readers: open one table of a source folder, check
// its header, then read typed fields by column index straight from the bytes
// (CSVFields). Columns are resolved once per table, numbers never become
// strings, and nothing here goes through Foundation: these loops run over every
// field of a national file (about 10,000 rows) inside the ingest's time budget.

/// One column of a table, resolved once from the header; `index` is nil when an
/// optional column is absent.
struct SourceColumn {
    let name: String
    let index: Int?
}

struct SourceTable {
    /// The label-relative name used in messages, e.g. "raw/stations.csv".
    let file: String
    let fields: CSVFields

    /// Records are numbered 0..<count; `line(_:)` gives where each starts.
    var count: Int { fields.count }
    var records: Range<Int> { 0..<fields.count }
    func line(_ record: Int) -> Int { fields.lines[record] }

    /// Reads `name` from `folder` and checks that the header names every
    /// required column. Problems with the file are collected and nil returned,
    /// so the caller can go on to the other files and report everything at once.
    static func load(folder: String, label: String, name: String, required: [String],
                     _ problems: inout DiagnosticCollector) throws -> SourceTable? {
        let display = label.isEmpty ? name : label + "/" + name
        let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory else {
            problems.add(SourceLocation(file: display), "file not found; expected \(name) in the source folder \(label)")
            return nil
        }
        let fields: CSVFields
        do {
            fields = try CSVReader.scan(path: path, displayName: display)
        } catch let error as InputError {
            problems.add(error)
            return nil
        }
        if fields.header.isEmpty {
            problems.add(SourceLocation(file: display, line: 1), "empty file; expected a header naming the columns \(required.joined(separator: ", "))")
            return nil
        }
        do {
            try fields.require(required)
        } catch let error as InputError {
            problems.add(error)
            return nil
        }
        return SourceTable(file: display, fields: fields)
    }

    func column(_ name: String) -> SourceColumn { SourceColumn(name: name, index: fields.column(name)) }

    func location(_ record: Int, _ column: SourceColumn) -> SourceLocation {
        SourceLocation(file: file, line: line(record), field: column.name)
    }

    func location(_ record: Int, field: String? = nil) -> SourceLocation {
        SourceLocation(file: file, line: line(record), field: field)
    }

    /// The field's bytes without surrounding white space; empty when the column is absent.
    @inline(__always)
    func withTrimmed<R>(_ record: Int, _ column: SourceColumn, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        guard let c = column.index else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return fields.withField(record, c) { body(FieldBytes.trimmedBytes($0)) }
    }

    /// The field without surrounding white space.
    @inline(__always)
    func text(_ record: Int, _ column: SourceColumn) -> String {
        withTrimmed(record, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// Required non-empty text (a name).
    func name(_ record: Int, _ column: SourceColumn, _ problems: inout DiagnosticCollector) -> String? {
        let value = text(record, column)
        if value.isEmpty {
            problems.add(location(record, column), "expected a name, found nothing")
            return nil
        }
        return value
    }

    /// `name`'s check without making the string.
    func hasName(_ record: Int, _ column: SourceColumn, _ problems: inout DiagnosticCollector) -> Bool {
        if withTrimmed(record, column, { !$0.isEmpty }) { return true }
        problems.add(location(record, column), "expected a name, found nothing")
        return false
    }

    /// Optional text: empty gives nil.
    func optionalText(_ record: Int, _ column: SourceColumn) -> String? {
        withTrimmed(record, column) { $0.isEmpty ? nil : String(decoding: $0, as: UTF8.self) }
    }

    /// A required integer, optionally within a range.
    func int(_ record: Int, _ column: SourceColumn, range: ClosedRange<Int>? = nil,
             _ problems: inout DiagnosticCollector) -> Int? {
        if let c = column.index, let v = fields.plainDecimal(record, c), range?.contains(v) ?? true { return v }
        guard let v = withTrimmed(record, column, FieldBytes.parseInt) else {
            let value = text(record, column)
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
    func optionalInt(_ record: Int, _ column: SourceColumn, _ problems: inout DiagnosticCollector) -> (value: Int?, ok: Bool) {
        let parsed: Int?? = withTrimmed(record, column) { $0.isEmpty ? .some(nil) : FieldBytes.parseInt($0).map { .some($0) } ?? nil }
        guard let value = parsed else {
            problems.add(location(record, column), "expected an integer or nothing, found '\(text(record, column))'")
            return (nil, false)
        }
        return (value, true)
    }

    /// An integer when the field holds one, else nil (no problem either way).
    func lenientInt(_ record: Int, _ column: SourceColumn) -> Int? {
        withTrimmed(record, column, FieldBytes.parseInt)
    }

    /// 0/1 (or true/false); empty or an absent column gives the default.
    func bool(_ record: Int, _ column: SourceColumn, default def: Bool, _ problems: inout DiagnosticCollector) -> Bool? {
        let flag: Bool?? = withTrimmed(record, column) { b in
            if b.isEmpty { return .some(def) }
            if b.count == 1 { return b[0] == 0x31 ? true : b[0] == 0x30 ? false : nil }
            switch String(decoding: b, as: UTF8.self) {
            case "true", "TRUE", "True": return true
            case "false", "FALSE", "False": return false
            default: return nil
            }
        }
        guard let value = flag, let value else {
            problems.add(location(record, column), "expected 0 or 1, found '\(text(record, column))'")
            return nil
        }
        return value
    }

    /// Decimal degrees to micro-degrees.
    func microDegrees(_ record: Int, _ column: SourceColumn, _ problems: inout DiagnosticCollector) -> Int? {
        // Most fields have no white space to trim: parsed as they are first.
        if let c = column.index, let v = fields.withField(record, c, FieldBytes.parseMicroDegrees) { return v }
        guard let v = withTrimmed(record, column, FieldBytes.parseMicroDegrees) else {
            let value = text(record, column)
            problems.add(location(record, column),
                         value.isEmpty ? "expected decimal degrees, found nothing" : "expected decimal degrees, found '\(value)'")
            return nil
        }
        return v
    }

    /// Checks that a point lies in Japan; the message shows both coordinates.
    func checkInJapan(_ record: Int, lat: Int, lng: Int, field: String, _ problems: inout DiagnosticCollector) -> Bool {
        if MicroDegrees.inJapan(lat: lat, lng: lng) { return true }
        problems.add(location(record, field: field),
                     "expected a point in Japan (lat 20..46, lng 122..154), found lat \(MicroDegrees.format(lat)), lng \(MicroDegrees.format(lng))")
        return false
    }
}

// MARK: bytes

/// Field parsing on UTF-8 bytes, without Foundation or String parsing; each
/// agrees exactly with the standard way it replaces (FieldParsingTests).
enum FieldBytes {

    /// The bytes without leading and trailing white space (Unicode White_Space).
    @inline(__always)
    static func trimmedBytes(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var lo = 0, hi = b.count
        while lo < hi {
            let (scalar, width) = scalarAt(b, lo)
            guard isSpace(scalar) else { break }
            lo += width
        }
        while hi > lo {
            var start = hi - 1
            while start > lo, b[start] & 0xC0 == 0x80 { start -= 1 }
            guard isSpace(scalarAt(b, start).scalar) else { break }
            hi = start
        }
        if lo == 0 && hi == b.count { return b }
        return UnsafeBufferPointer(rebasing: b[lo..<hi])
    }

    /// Unicode's White_Space property, by code point.
    @inline(__always)
    static func isSpace(_ u: UInt32) -> Bool {
        if u < 0x80 { return u == 0x20 || (u >= 0x09 && u <= 0x0D) }
        switch u {
        case 0x85, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000: return true
        default: return false
        }
    }

    /// The scalar starting at `i` of valid UTF-8, and its length in bytes.
    @inline(__always)
    static func scalarAt(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> (scalar: UInt32, width: Int) {
        let b0 = UInt32(b[i])
        if b0 < 0x80 { return (b0, 1) }
        if b0 < 0xE0 { return ((b0 & 0x1F) << 6 | UInt32(b[i + 1] & 0x3F), 2) }
        if b0 < 0xF0 { return ((b0 & 0x0F) << 12 | UInt32(b[i + 1] & 0x3F) << 6 | UInt32(b[i + 2] & 0x3F), 3) }
        return ((b0 & 0x07) << 18 | UInt32(b[i + 1] & 0x3F) << 12 | UInt32(b[i + 2] & 0x3F) << 6 | UInt32(b[i + 3] & 0x3F), 4)
    }

    /// A decimal integer with an optional sign, as `Int(_: String)` reads it
    /// (no white space, no overflow); nil for anything else.
    @inline(__always)
    static func parseInt(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        var i = 0
        let n = b.count
        var negative = false
        if n > 0, b[0] == 0x2D || b[0] == 0x2B { negative = b[0] == 0x2D; i = 1 }
        guard i < n else { return nil }
        var v = 0
        while i < n {
            let d = b[i] &- 0x30
            guard d <= 9 else { return nil }
            let (times10, o1) = v.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(Int(d)) : times10.addingReportingOverflow(Int(d))
            guard !o1, !o2 else { return nil }
            v = next
            i += 1
        }
        return v
    }

    /// Decimal degrees to micro-degrees from bytes.
    @inline(__always)
    static func parseMicroDegrees(_ b: UnsafeBufferPointer<UInt8>) -> Int? { MicroDegrees.parse(b) }

    /// Whether `text` contains `part`, comparing UTF-8 bytes (Foundation's
    /// `contains` goes through CFString and is many times slower).
    static func containsText(_ text: String, _ part: String) -> Bool {
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
}

/// Remembers where each ID was first defined, to name both lines of a duplicate.
struct FirstSeen {
    private var lines: IDTable

    init(capacity: Int = 16) { lines = IDTable(capacity: capacity) }

    func contains(_ id: Int) -> Bool { lines.contains(id) }

    /// Records `id` at `line`; on a duplicate, adds a problem naming the earlier line and returns false.
    mutating func insert(_ id: Int, line: Int, at location: @autoclosure () -> SourceLocation, what: String,
                         _ problems: inout DiagnosticCollector) -> Bool {
        if let earlier = lines.insertIfAbsent(id, value: line) {
            problems.add(location(), "expected a unique \(what), found \(id) again (first on line \(earlier))")
            return false
        }
        return true
    }
}
