import Foundation

// RFC 4180 CSV, read from bytes in one pass: quoted fields with commas, quotes
// and newlines, LF or CRLF, an optional UTF-8 BOM, a missing final newline.
// Every record remembers the line it starts on, for error messages.

public struct CSVRecord: Sendable {
    public var line: Int
    public var fields: [String]
}

public struct CSVTable: Sendable {
    public var file: String
    public var header: [String]
    public var records: [CSVRecord]

    private var index: [String: Int] = [:]

    public init(file: String, header: [String], records: [CSVRecord]) {
        self.file = file; self.header = header; self.records = records
        for (i, name) in header.enumerated() where index[name] == nil { index[name] = i }
    }

    public func column(_ name: String) -> Int? { index[name] }

    /// Checks that the header names every required column.
    public func require(_ columns: [String]) throws {
        let missing = columns.filter { index[$0] == nil }
        if !missing.isEmpty {
            throw InputError(SourceLocation(file: file, line: 1, field: missing.joined(separator: ", ")),
                             "missing column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")); the header has: \(header.joined(separator: ", "))")
        }
    }

    /// Typed access to one record, collecting problems rather than stopping.
    public func rows() -> [CSVRow] { records.map { CSVRow(table: self, record: $0) } }
}

public struct CSVRow {
    public let table: CSVTable
    public let record: CSVRecord

    public var line: Int { record.line }

    public func location(_ column: String) -> SourceLocation {
        SourceLocation(file: table.file, line: record.line, field: column)
    }

    public func has(_ column: String) -> Bool { table.column(column) != nil }

    public func string(_ column: String) -> String {
        guard let i = table.column(column), i < record.fields.count else { return "" }
        return record.fields[i]
    }

    /// A required integer; records a diagnostic and returns nil when absent or malformed.
    public func int(_ column: String, _ problems: inout DiagnosticCollector, range: ClosedRange<Int>? = nil) -> Int? {
        let raw = trimmedField(string(column))
        guard let v = Int(raw) else {
            problems.add(location(column), raw.isEmpty ? "expected an integer, found nothing" : "expected an integer, found '\(raw)'")
            return nil
        }
        if let range, !range.contains(v) {
            problems.add(location(column), "expected \(range.lowerBound)..\(range.upperBound), found \(v)")
            return nil
        }
        return v
    }

    /// An optional integer: empty gives nil without a problem.
    public func optionalInt(_ column: String, _ problems: inout DiagnosticCollector) -> Int? {
        let raw = trimmedField(string(column))
        if raw.isEmpty { return nil }
        guard let v = Int(raw) else {
            problems.add(location(column), "expected an integer or nothing, found '\(raw)'")
            return nil
        }
        return v
    }

    /// 0/1 (or true/false); empty gives the default.
    public func bool(_ column: String, default def: Bool, _ problems: inout DiagnosticCollector) -> Bool {
        switch trimmedField(string(column)).lowercased() {
        case "": return def
        case "1", "true": return true
        case "0", "false": return false
        case let raw:
            problems.add(location(column), "expected 0 or 1, found '\(raw)'")
            return def
        }
    }

    /// Decimal degrees to micro-degrees.
    public func microDegrees(_ column: String, _ problems: inout DiagnosticCollector) -> Int? {
        let raw = trimmedField(string(column))
        guard let v = MicroDegrees.parse(raw) else {
            problems.add(location(column), raw.isEmpty ? "expected decimal degrees, found nothing" : "expected decimal degrees, found '\(raw)'")
            return nil
        }
        return v
    }
}

public enum CSVReader {
    public static func read(path: String, displayName: String? = nil) throws -> CSVTable {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EnvironmentError("cannot read \(path)")
        }
        return try parse(data, file: displayName ?? path)
    }

    public static func parse(_ data: Data, file: String) throws -> CSVTable {
        try data.withUnsafeBytes { raw in
            try parse(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count), file: file)
        }
    }

    public static func parse(_ text: String, file: String) throws -> CSVTable {
        try parse(Data(text.utf8), file: file)
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> CSVTable {
        let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let n = bytes.count
        var i = 0
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }

        var problems = DiagnosticCollector(limit: 50)
        // Validating once, up front, lets each field be made without its own
        // (generic, unspecialised) validation: fields are split only at ASCII
        // bytes, which never occur inside a multi-byte sequence, so every field
        // of a valid file is valid. Only an invalid file pays per field, to
        // locate the bad bytes.
        let wholeFileIsUTF8 = isValidUTF8(UnsafeBufferPointer(rebasing: bytes[i...]))
        var records: [CSVRecord] = []
        var fields: [String] = []
        var line = 1
        var recordLine = 1
        var field: [UInt8] = []
        field.reserveCapacity(64)

        // Columns are named by the header once it is known, as other messages do.
        func columnName(_ column: Int) -> String {
            if let header = records.first?.fields, column < header.count {
                let name = header[column].trimmingCharacters(in: .whitespaces)
                if !name.isEmpty { return name }
            }
            return "column \(column + 1)"
        }

        // `firstLine` is the line the field starts on: a quoted field may span
        // lines, and the message should point at the line holding the bad byte.
        func makeString(_ buf: UnsafeBufferPointer<UInt8>, column: Int, firstLine: Int) -> String {
            if wholeFileIsUTF8 { return String(decoding: buf, as: UTF8.self) }
            if let s = String(validating: buf, as: UTF8.self) { return s }
            let bad = firstInvalidUTF8Offset(buf)
            var badLine = firstLine
            for k in 0..<bad where buf[k] == lf { badLine += 1 }
            problems.add(SourceLocation(file: file, line: badLine, field: columnName(column)),
                         "invalid UTF-8 (byte 0x\(hexByte(buf[bad]))); expected UTF-8 text")
            return String(decoding: buf, as: UTF8.self)
        }

        guard let base = bytes.baseAddress, n > i else {
            return CSVTable(file: file, header: [], records: [])
        }
        var atRecordStart = true
        while i <= n {
            if atRecordStart { recordLine = line; atRecordStart = false }
            // One field.
            if i < n, bytes[i] == quote {
                let openLine = line
                i += 1
                field.removeAll(keepingCapacity: true)
                var closed = false
                while i < n {
                    let b = bytes[i]
                    if b == quote {
                        if i + 1 < n, bytes[i + 1] == quote { field.append(quote); i += 2; continue }
                        i += 1; closed = true; break
                    }
                    if b == lf { line += 1 }
                    field.append(b); i += 1
                }
                if !closed {
                    problems.add(SourceLocation(file: file, line: openLine, field: columnName(fields.count)),
                                 "unterminated quoted field (a \" opened here is never closed)")
                    try problems.check()
                }
                fields.append(field.withUnsafeBufferPointer { makeString($0, column: fields.count, firstLine: openLine) })
                if i < n, bytes[i] != comma, bytes[i] != lf, bytes[i] != cr {
                    problems.add(SourceLocation(file: file, line: line, field: columnName(fields.count - 1)),
                                 "unexpected text after a closing quote (write a quote inside a quoted field as \"\")")
                    while i < n, bytes[i] != comma, bytes[i] != lf { i += 1 }
                }
            } else {
                let start = i
                while i < n, bytes[i] != comma, bytes[i] != lf, bytes[i] != cr { i += 1 }
                fields.append(makeString(UnsafeBufferPointer(start: base + start, count: i - start), column: fields.count, firstLine: line))
            }
            // What ends it.
            if i < n, bytes[i] == comma { i += 1; continue }
            if i < n, bytes[i] == cr { i += 1 }
            if i < n, bytes[i] == lf { i += 1 }
            line += 1
            // A blank line (one empty field) is not a record.
            if !(fields.count == 1 && fields[0].isEmpty) {
                records.append(CSVRecord(line: recordLine, fields: fields))
            }
            fields.removeAll(keepingCapacity: true)
            atRecordStart = true
            if i >= n { break }
        }
        guard !records.isEmpty else {
            try problems.check()
            return CSVTable(file: file, header: [], records: [])
        }
        let header = records.removeFirst().fields.map { $0.trimmingCharacters(in: .whitespaces) }
        // A repeated column name would make "the value of column X" ambiguous.
        var firstColumn: [String: Int] = [:]
        for (k, name) in header.enumerated() where !name.isEmpty {
            if let earlier = firstColumn[name] {
                problems.add(SourceLocation(file: file, line: 1, field: name),
                             "column named twice in the header (columns \(earlier + 1) and \(k + 1)); expected each name once")
            } else {
                firstColumn[name] = k
            }
        }
        for r in records where r.fields.count != header.count {
            problems.add(SourceLocation(file: file, line: r.line),
                         "expected \(header.count) fields as in the header, found \(r.fields.count)")
        }
        try problems.check()
        return CSVTable(file: file, header: header, records: records)
    }
}

/// Whether the bytes are well-formed UTF-8 (no overlongs, surrogates or
/// values past U+10FFFF), with a fast path over runs of ASCII.
func isValidUTF8(_ buf: UnsafeBufferPointer<UInt8>) -> Bool {
    let n = buf.count
    var i = 0
    while i < n {
        let b = buf[i]
        if b < 0x80 { i += 1; continue }
        @inline(__always) func cont(_ k: Int) -> Bool { k < n && buf[k] & 0xC0 == 0x80 }
        switch b {
        case 0xC2...0xDF:
            guard cont(i + 1) else { return false }
            i += 2
        case 0xE0...0xEF:
            guard cont(i + 1), cont(i + 2) else { return false }
            let b1 = buf[i + 1]
            if b == 0xE0 && b1 < 0xA0 { return false }          // overlong
            if b == 0xED && b1 > 0x9F { return false }          // surrogate
            i += 3
        case 0xF0...0xF4:
            guard cont(i + 1), cont(i + 2), cont(i + 3) else { return false }
            let b1 = buf[i + 1]
            if b == 0xF0 && b1 < 0x90 { return false }          // overlong
            if b == 0xF4 && b1 > 0x8F { return false }          // past U+10FFFF
            i += 4
        default:
            return false
        }
    }
    return true
}

/// Byte offset of the first byte that does not start a valid UTF-8 sequence
/// (only called on a buffer already known to be invalid).
func firstInvalidUTF8Offset(_ buf: UnsafeBufferPointer<UInt8>) -> Int {
    var iterator = buf.makeIterator()
    var decoder = UTF8()
    var offset = 0
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar): offset += UTF8.width(scalar)
        case .emptyInput: return max(0, min(offset, buf.count - 1))
        case .error: return min(offset, buf.count - 1)
        }
    }
}

func hexByte(_ b: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
}

/// Trims like `trimmingCharacters(in: .whitespaces)` but without Foundation
/// on the common path: most fields have no surrounding space.
@inline(__always)
func trimmedField(_ s: String) -> String {
    let scalars = s.unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return s }
    @inline(__always) func space(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x80 ? (u.value == 0x20 || u.value == 0x09) : u.properties.isWhitespace
    }
    if !space(first) && !space(last) { return s }
    return s.trimmingCharacters(in: .whitespaces)
}

public enum CSVWriter {
    /// One field, quoted only when it must be.
    public static func field(_ s: String) -> String {
        if s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) || s.hasPrefix(" ") || s.hasSuffix(" ") {
            return "\"" + s.replacingAll("\"", with: "\"\"") + "\""
        }
        return s
    }

    public static func line(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\n"
    }
}
