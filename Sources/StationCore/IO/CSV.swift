import Glibc

// RFC 4180 CSV: a header row, fields optionally in double quotes with "" for a
// quote, newlines inside quotes, LF, CRLF or CR line ends, an optional UTF-8
// BOM and a missing final newline. Spaces are data: a value is read exactly as
// the file holds it, never trimmed (sources.md). Every record remembers the line
// it starts on, so every message names file, line and column.
//
// Two things are refused here, each at its line and field: a NUL (text reaches
// the bundle byte for byte, and SQLite's text binding, like the apps' C strings,
// would end the value at it: `ab\0cd` became `ab`), and a quote inside a field
// that does not start with one (see `strayQuote`).
//
// A table keeps the file's bytes and where each field lies in them; a field
// becomes a String only when a reader asks for it.

/// One column of a table, looked up once by name; `index` is nil when the header lacks it.
package struct CSVColumn: Sendable {
    package let name: String
    package let index: Int?
    package init(name: String, index: Int?) { self.name = name; self.index = index }
}

/// The columns of one kind of CSV file, declared once: those it must have and those it
/// may have. A closed set refuses any other column, so a misspelled `expect` or `notes`
/// is an error at the header instead of a check silently turned off.
package struct CSVColumns: Sendable, CustomStringConvertible {
    package let required: [String]
    /// nil: other columns may stand beside the required ones (a format whose files carry
    /// columns stationdb does not read).
    package let optional: [String]?

    package init(required: [String], optional: [String]? = []) { self.required = required; self.optional = optional }

    /// "the columns a, b (and optionally c, d)".
    package var description: String {
        "the column\(required.count == 1 ? "" : "s") \(required.joined(separator: ", "))"
            + (optional.map { $0.isEmpty ? "" : " (and optionally \($0.joined(separator: ", ")))" } ?? " (other columns are ignored)")
    }
}

package struct CSVTable: Sendable {
    /// How messages name the file, e.g. "raw/stations.csv".
    package let file: String
    /// The column names (outer blanks dropped); empty for an empty file.
    package let header: [String]
    package let headerLine: Int
    /// The file's bytes, then the text of quoted fields that held "", unescaped.
    private let bytes: [UInt8]
    private let fileByteCount: Int
    /// Start and end of every field in `bytes`, record after record.
    private let bounds: [UInt32]
    /// Index of each record's first field in `bounds / 2`, plus one past the last.
    private let firstField: [Int]
    private let lines: [Int]
    private let columns: [String: Int]

    /// The file exactly as read.
    package var fileBytes: ArraySlice<UInt8> { bytes[..<fileByteCount] }

    /// Records are numbered 0..<count.
    package var count: Int { lines.count }
    package var records: Range<Int> { 0..<lines.count }
    /// The line record `r` starts on.
    package func line(_ r: Int) -> Int { lines[r] }

    package func column(_ name: String) -> CSVColumn { CSVColumn(name: name, index: columns[name]) }

    package func has(_ name: String) -> Bool { columns[name] != nil }

    /// Checks the header against the columns a file of its kind has: every required one
    /// there, and (for a closed set) no other. A missing column's message quotes nothing
    /// of the header, which may be a line of a file that is no table at all; an unknown
    /// column is named only when every expected one is there.
    package func require(_ expected: CSVColumns) throws {
        let missing = expected.required.filter { columns[$0] == nil }
        if !missing.isEmpty {
            throw StationError.badInput(SourceLocation(file: file, line: headerLine, field: missing.joined(separator: ", ")),
                             "missing column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")); expected \(expected)")
        }
        guard let optional = expected.optional else { return }
        let unknown = header.filter { !$0.isEmpty && !expected.required.contains($0) && !optional.contains($0) }
        if !unknown.isEmpty {
            throw StationError.badInput(SourceLocation(file: file, line: headerLine, field: unknown.map { shown($0, limit: 40) }.joined(separator: ", ")),
                             "unknown column\(unknown.count > 1 ? "s" : ""), which would be ignored; expected \(expected): correct the header's spelling or remove the column")
        }
    }

    /// Checks that the header names every column of `names`; others may stand beside them.
    package func require(_ names: [String]) throws { try require(CSVColumns(required: names, optional: nil)) }

    package func fieldCount(_ r: Int) -> Int { firstField[r + 1] - firstField[r] }

    /// The field's bytes, empty when the column is absent or the record short of it.
    package func bytes(_ r: Int, _ column: CSVColumn) -> ArraySlice<UInt8> {
        guard let c = column.index, c < fieldCount(r) else { return [] }
        let k = 2 * (firstField[r] + c)
        return bytes[Int(bounds[k])..<Int(bounds[k + 1])]
    }

    /// The field's bytes without the blanks (space, tab) around them, for numbers.
    package func trimmedBytes(_ r: Int, _ column: CSVColumn) -> ArraySlice<UInt8> { CSVNumbers.trimmed(bytes(r, column)) }

    /// The field exactly as the file holds it; "" when absent.
    package func string(_ r: Int, _ column: CSVColumn) -> String {
        String(decoding: bytes(r, column), as: UTF8.self)
    }

    package func string(_ r: Int, _ name: String) -> String { string(r, column(name)) }

    /// Every field of record `r`, as the file holds them.
    package func fields(_ r: Int) -> [String] {
        (0..<fieldCount(r)).map { c in string(r, CSVColumn(name: "", index: c)) }
    }

    package func location(_ r: Int, _ column: CSVColumn) -> SourceLocation {
        SourceLocation(file: file, line: lines[r], field: column.name)
    }

    package func location(_ r: Int, field: String? = nil) -> SourceLocation {
        SourceLocation(file: file, line: lines[r], field: field)
    }

    // MARK: Typed fields, collecting problems

    /// Required text, verbatim; an empty field is a problem ("expected a name").
    package func name(_ r: Int, _ column: CSVColumn, _ problems: inout DiagnosticCollector) -> String? {
        let value = string(r, column)
        if value.isEmpty {
            problems.add(location(r, column), "expected a name, found nothing")
            return nil
        }
        return value
    }

    /// Optional text, verbatim: empty gives nil (a later source may fill it in).
    package func optionalText(_ r: Int, _ column: CSVColumn) -> String? {
        let value = string(r, column)
        return value.isEmpty ? nil : value
    }

    /// A required integer (blanks around it allowed), optionally within a range.
    package func int(_ r: Int, _ column: CSVColumn, range: ClosedRange<Int>? = nil,
                    _ problems: inout DiagnosticCollector) -> Int? {
        guard let v = CSVNumbers.int(bytes(r, column)) else {
            let value = string(r, column)
            problems.add(location(r, column), value.isEmpty ? "expected an integer, found nothing" : "expected an integer, found '\(shown(value))'")
            return nil
        }
        if let range, !range.contains(v) {
            problems.add(location(r, column), "expected \(range.lowerBound)..\(range.upperBound), found \(v)")
            return nil
        }
        return v
    }

    /// An optional integer: an empty field (or an absent column) is `.some(nil)`;
    /// anything else that is not an integer is a problem and gives nil.
    package func optionalInt(_ r: Int, _ column: CSVColumn, _ problems: inout DiagnosticCollector) -> Int?? {
        if CSVNumbers.isBlank(bytes(r, column)) { return .some(nil) }
        guard let v = CSVNumbers.int(bytes(r, column)) else {
            problems.add(location(r, column), "expected an integer or nothing, found '\(shown(string(r, column)))'")
            return nil
        }
        return .some(v)
    }

    /// An integer when the field holds one, else nil, without a problem.
    package func lenientInt(_ r: Int, _ column: CSVColumn) -> Int? {
        CSVNumbers.int(bytes(r, column))
    }

    /// 0/1 (or true/false in any case); empty or an absent column gives the default.
    package func bool(_ r: Int, _ column: CSVColumn, default def: Bool, _ problems: inout DiagnosticCollector) -> Bool? {
        let value = String(decoding: trimmedBytes(r, column), as: UTF8.self)
        switch value {
        case "": return def
        case "1", "true", "TRUE", "True": return true
        case "0", "false", "FALSE", "False": return false
        default:
            problems.add(location(r, column), "expected 0 or 1, found '\(shown(string(r, column)))'")
            return nil
        }
    }


    init(file: String, header: [String], headerLine: Int, bytes: [UInt8], fileByteCount: Int, bounds: [UInt32], firstField: [Int], lines: [Int],
         columns: [String: Int]) {
        self.file = file; self.header = header; self.headerLine = headerLine; self.bytes = bytes; self.fileByteCount = fileByteCount; self.bounds = bounds
        self.firstField = firstField; self.lines = lines; self.columns = columns
    }
}

/// Numbers in CSV fields: blanks (space, tab) around them are allowed.
enum CSVNumbers {
    static func isBlank(_ b: ArraySlice<UInt8>) -> Bool { b.allSatisfy { $0 == 0x20 || $0 == 0x09 } }

    static func trimmed(_ b: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var b = b
        while let f = b.first, f == 0x20 || f == 0x09 { b = b.dropFirst() }
        while let l = b.last, l == 0x20 || l == 0x09 { b = b.dropLast() }
        return b
    }


    /// A decimal integer with an optional sign; nil for anything else or an overflow.
    static func int(_ field: ArraySlice<UInt8>) -> Int? {
        var b = trimmed(field)
        var negative = false
        if let sign = b.first, sign == 0x2D || sign == 0x2B { negative = sign == 0x2D; b = b.dropFirst() }
        guard !b.isEmpty else { return nil }
        var v = 0
        for c in b {
            guard c >= 0x30, c <= 0x39 else { return nil }
            let (times10, o1) = v.multipliedReportingOverflow(by: 10)
            let digit = Int(c - 0x30)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
            guard !o1, !o2 else { return nil }
            v = next
        }
        return v
    }
}

package enum CSVReader {
    /// Reads and splits a file (a regular file within the read limit: Files.read); `displayName` is how messages name it.
    package static func read(path: String, displayName: String? = nil) throws -> CSVTable {
        try parse(Files.read(path, label: displayName), file: displayName ?? path)
    }

    package static func parse(_ text: String, file: String) throws -> CSVTable {
        try parse(Array(text.utf8), file: file)
    }

    /// Splits RFC 4180 text into fields, collecting every problem (up to 50): an
    /// unterminated quote (thrown at once: the rest of the file is inside it), text
    /// after a closing quote, a quote inside an unquoted field, a NUL byte, invalid
    /// UTF-8, a column named twice, a record whose field count differs from the header's.
    package static func parse(_ input: [UInt8], file: String) throws -> CSVTable {
        try input.withUnsafeBufferPointer { try parse(input, $0, file: file) }
    }

    /// `bytes` are `input`'s, read through a pointer: this loop sees every byte of every file.
    private static func parse(_ input: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> CSVTable {
        let n = bytes.count
        // Field offsets are 32-bit, and unescaped copies of quoted fields go after the file's bytes.
        guard n <= Int(UInt32.max) / 2 else { throw StationError.badInput(SourceLocation(file: file), "file of \(n) bytes; expected at most 2 GiB") }
        // UTF-16 (what some spreadsheets save as "Unicode") is one mistake, not a NUL in every field.
        if isUTF16(bytes) { throw StationError.badInput(SourceLocation(file: file, line: 1), "UTF-16 text; save it as UTF-8") }
        var problems = DiagnosticCollector(limit: 50)
        var i = n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        let text = input.span
        let wholeFileIsUTF8 = (try? UTF8Span(validating: text.extracting(i...))) != nil
        // Most files hold neither: then no field is searched for them.
        let base = UnsafeRawPointer(bytes.baseAddress)
        let fileHasNUL = n > 0 && memchr(base!, 0, n) != nil
        let fileHasQuote = n > 0 && memchr(base!, 0x22, n) != nil

        var bounds: [UInt32] = []
        bounds.reserveCapacity(n / 4)
        var firstField: [Int] = []
        var lines: [Int] = []
        var header: [String]?
        var headerLine = 1
        var line = 1
        var unescaped: [UInt8] = []

        // Nothing below is a local function over these variables: a function that captures
        // them makes every access to them an exclusivity-checked one.
        var recordStart = 0, recordLine = 1, atRecordStart = true
        while i < n || !atRecordStart {
            if atRecordStart { recordLine = line; recordStart = bounds.count / 2; atRecordStart = false }
            let column = bounds.count / 2 - recordStart
            if i < n, bytes[i] == 0x22 {
                // A quoted field.
                let openLine = line
                i += 1
                let contentStart = i
                var escaped = false, closed = false
                while i < n {
                    if bytes[i] == 0x22 {
                        if i + 1 < n, bytes[i + 1] == 0x22 { escaped = true; i += 2; continue }
                        closed = true
                        break
                    }
                    if bytes[i] == 0x0A { line += 1 }
                    i += 1
                }
                if !closed {
                    problems.add(SourceLocation(file: file, line: openLine, field: columnName(column, header)),
                                 "unterminated quoted field (a \" opened here is never closed)")
                    try problems.check()
                }
                if escaped {
                    let start = n + unescaped.count
                    var k = contentStart
                    while k < i {
                        unescaped.append(bytes[k])
                        k += bytes[k] == 0x22 ? 2 : 1
                    }
                    bounds.append(UInt32(start)); bounds.append(UInt32(n + unescaped.count))
                } else {
                    bounds.append(UInt32(contentStart)); bounds.append(UInt32(i))
                }
                i += 1   // the closing quote
                if !wholeFileIsUTF8, let (location, message) = utf8Problem(fieldBytes(bounds.count / 2 - 1, input, bounds, unescaped), firstLine: openLine,
                                                                           at: SourceLocation(file: file, field: columnName(column, header))) {
                    problems.add(location, message)
                }
                if fileHasNUL, let at = nulLine(fieldBytes(bounds.count / 2 - 1, input, bounds, unescaped), firstLine: openLine) {
                    problems.add(SourceLocation(file: file, line: at, field: columnName(column, header)), nulMessage)
                }
                if i < n, bytes[i] != 0x2C, bytes[i] != 0x0A, bytes[i] != 0x0D {
                    problems.add(SourceLocation(file: file, line: line, field: columnName(column, header)),
                                 "unexpected text after a closing quote (write a quote inside a quoted field as \"\")")
                    while i < n, bytes[i] != 0x2C, bytes[i] != 0x0A { i += 1 }
                }
            } else {
                let start = i
                while i < n, bytes[i] != 0x2C, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
                bounds.append(UInt32(start)); bounds.append(UInt32(i))
                if fileHasQuote, i > start, memchr(base! + start, 0x22, i - start) != nil {
                    problems.add(SourceLocation(file: file, line: line, field: columnName(column, header)), strayQuote)
                }
                if fileHasNUL, i > start, memchr(base! + start, 0, i - start) != nil {
                    problems.add(SourceLocation(file: file, line: line, field: columnName(column, header)), nulMessage)
                }
                if !wholeFileIsUTF8, let (location, message) = utf8Problem(fieldBytes(bounds.count / 2 - 1, input, bounds, unescaped), firstLine: line,
                                                                           at: SourceLocation(file: file, field: columnName(column, header))) {
                    problems.add(location, message)
                }
            }
            // What ends the field: a comma, or the end of the record.
            if i < n, bytes[i] == 0x2C { i += 1; continue }
            if i < n, bytes[i] == 0x0D { i += 1 }
            if i < n, bytes[i] == 0x0A { i += 1 }
            line += 1
            atRecordStart = true
            let fieldsInRecord = bounds.count / 2 - recordStart
            // A blank line (one empty field) is not a record.
            if fieldsInRecord == 1, bounds[bounds.count - 1] == bounds[bounds.count - 2] {
                bounds.removeLast(2)
                continue
            }
            if header == nil {
                header = (0..<fieldsInRecord).map { k in
                    String(decoding: CSVNumbers.trimmed(fieldBytes(recordStart + k, input, bounds, unescaped)), as: UTF8.self)
                }
                headerLine = recordLine
                bounds.removeLast(2 * fieldsInRecord)
                continue
            }
            firstField.append(recordStart)
            lines.append(recordLine)
        }
        firstField.append(bounds.count / 2)

        var columns: [String: Int] = [:]
        for (k, name) in (header ?? []).enumerated() where !name.isEmpty {
            if let earlier = columns[name] {
                problems.add(SourceLocation(file: file, line: headerLine, field: name),
                             "column named twice in the header (columns \(earlier + 1) and \(k + 1)); expected each name once")
            } else {
                columns[name] = k
            }
        }
        if let header {
            for r in lines.indices where firstField[r + 1] - firstField[r] != header.count {
                let found = firstField[r + 1] - firstField[r]
                guard found > header.count, let last = header.indices.last else {
                    problems.add(SourceLocation(file: file, line: lines[r]), "expected \(header.count) fields as in the header, found \(found)")
                    continue
                }
                // More fields than columns is, as a rule, a comma in a value that was not quoted:
                // where the row runs past its last column, and what ran over, point at it.
                func text(_ k: Int) -> String { String(decoding: fieldBytes(firstField[r] + k, input, bounds, unescaped), as: UTF8.self) }
                let over = (header.count..<found).map(text)
                let joined = ([text(last)] + over).joined(separator: ",")
                problems.add(SourceLocation(file: file, line: lines[r], field: columnName(last, header)),
                             "expected \(header.count) fields as in the header, found \(found): the row runs past its last column, "
                             + "\(columnName(last, header)), with \(over.map { "'\(shown($0))'" }.joined(separator: ", ")); a value that holds a comma "
                             + "must be in double quotes (if it is \(columnName(last, header))'s: \"\(shown(joined.replacingScalars(["\"": "\"\""])))\")")
            }
        }
        try problems.check()
        return CSVTable(file: file, header: header ?? [], headerLine: headerLine, bytes: unescaped.isEmpty ? input : input + unescaped,
                        fileByteCount: n, bounds: bounds,
                        firstField: firstField, lines: lines, columns: columns)
    }

    static let nulMessage = "a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it"

    /// RFC 4180 (2.5): "If fields are not enclosed with double quotes, then double quotes
    /// may not appear inside the fields." Readers differ: Python's csv keeps such a quote
    /// as a character, Go's encoding/csv refuses it (ErrBareQuote) unless told to be lazy.
    /// Here it is an error, because no reader can tell `東"中野` (a quote meant as text)
    /// from a field whose opening quote was lost, where the commas and line breaks inside
    /// would split it silently; every value is kept verbatim, so guessing is not allowed.
    static let strayQuote = "a quote inside a field that does not start with one; RFC 4180 allows quotes only in a quoted field: "
        + "quote the whole field and double the quote (\"東\"\"中野\"), or remove it"

    /// A UTF-16 byte order mark, or a NUL beside every byte of the header's start (ASCII column names in UTF-16).
    static func isUTF16(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        if b.count >= 2, (b[0] == 0xFF && b[1] == 0xFE) || (b[0] == 0xFE && b[1] == 0xFF) { return true }
        var low = true, high = true, k = 0
        while 2 * k + 1 < b.count, k < 32, low || high {
            let (x, y) = (b[2 * k], b[2 * k + 1])
            if (x, y) == (0x0A, 0) || (x, y) == (0, 0x0A) { break }
            low = low && x != 0 && y == 0
            high = high && x == 0 && y != 0
            k += 1
        }
        return k >= 2 && (low || high)
    }

    /// The line of the first NUL in a field that starts on `firstLine`, if it holds one.
    private static func nulLine(_ field: ArraySlice<UInt8>, firstLine: Int) -> Int? {
        guard let at = field.firstIndex(of: 0) else { return nil }
        return firstLine + field[..<at].count { $0 == 0x0A }
    }

    private static func columnName(_ c: Int, _ header: [String]?) -> String {
        if let header, c < header.count, !header[c].isEmpty { return header[c] }
        return "column \(c + 1)"
    }

    /// Field `k`'s bytes: in the file, or after it for a quoted field that held "".
    private static func fieldBytes(_ k: Int, _ input: [UInt8], _ bounds: [UInt32], _ unescaped: [UInt8]) -> ArraySlice<UInt8> {
        let n = input.count, start = Int(bounds[2 * k]), end = Int(bounds[2 * k + 1])
        return start < n || start == end ? input[min(start, n)..<min(end, n)] : unescaped[(start - n)..<(end - n)]
    }

    /// For a file that is not all UTF-8: where in a field that starts on `firstLine` its first bad byte is, and which.
    private static func utf8Problem(_ field: ArraySlice<UInt8>, firstLine: Int, at place: SourceLocation) -> (SourceLocation, String)? {
        let bad: Int
        do { _ = try UTF8Span(validating: field.span); return nil } catch { bad = field.startIndex + error.byteOffsets.lowerBound }
        let hex = String(field[bad], radix: 16, uppercase: true)
        return (SourceLocation(file: place.file, line: firstLine + field[..<bad].count { $0 == 0x0A }, field: place.field),
                "invalid UTF-8 (byte 0x\(hex.count == 1 ? "0" + hex : hex)); expected UTF-8 text")
    }
}

package enum CSVWriter {
    /// Whether a field must be quoted: it holds a comma, quote or line break, or
    /// starts or ends with a space (which other readers may trim).
    package static func needsQuotes(_ s: String) -> Bool {
        var s = s
        return s.withUTF8(needsQuotes)
    }

    static func needsQuotes(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = utf8.first, let last = utf8.last else { return false }
        if first == 0x20 || last == 0x20 { return true }
        return utf8.contains { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }
    }

    /// Appends one record and its newline, each field quoted only when it must be.
    package static func append(_ fields: [String], to out: inout [UInt8]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { out.append(0x2C) }
            var field = field
            field.withUTF8 { utf8 in
                guard needsQuotes(utf8) else { return out.append(contentsOf: utf8) }
                out.append(0x22)
                for b in utf8 {
                    out.append(b)
                    if b == 0x22 { out.append(0x22) }
                }
                out.append(0x22)
            }
        }
        out.append(0x0A)
    }

    /// One record as text, with its newline.
    package static func line(_ fields: [String]) -> String {
        var out: [UInt8] = []
        append(fields, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
