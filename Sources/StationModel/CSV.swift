import CSIMD
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

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
        try requireColumns(columns, file: file, header: header) { index[$0] != nil }
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

/// A CSV file split into fields but not yet into strings: each field is a
/// byte range. Readers of national-size files parse numbers straight from the
/// bytes and make strings only for the text they keep; `CSVTable` is built on
/// top of this, so both see exactly the same fields and problems.
public struct CSVFields: Sendable {
    public let file: String
    /// Column names, trimmed; empty for an empty file.
    public let header: [String]
    /// The line each record starts on (the header not counted as a record).
    public let lines: [Int]
    /// The file's bytes, then the contents of quoted fields that held `""`, unescaped.
    @usableFromInline let storage: [UInt8]
    /// How many of `storage`'s bytes are the file's own.
    public let fileByteCount: Int
    /// Start and end offsets into `storage`, two per field, record after record.
    /// 32 bits each (files are limited to 2 GiB): for a registry of a million
    /// stations these are more bytes than the file itself.
    @usableFromInline let bounds: FieldBounds
    /// Index of each record's first field, plus one past the last field.
    @usableFromInline let firstField: [Int]
    let columns: [String: Int]

    public var count: Int { lines.count }

    public func column(_ name: String) -> Int? { columns[name] }

    /// Checks that the header names every required column.
    public func require(_ names: [String]) throws {
        try requireColumns(names, file: file, header: header) { columns[$0] != nil }
    }

    public func fieldCount(_ record: Int) -> Int { firstField[record + 1] - firstField[record] }

    /// The bytes of one field (empty when the record is short of that column);
    /// always valid UTF-8, since scanning rejects a file that is not.
    @inlinable
    public func withField<R>(_ record: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let k = firstField[record] + column
        guard column >= 0, k < firstField[record + 1] else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        let start = Int(bounds[2 * k]), end = Int(bounds[2 * k + 1])
        return try storage.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[start..<end])) }
    }

    /// The field as a plain decimal integer (digits, an optional leading minus,
    /// at most 18 digits), or nil for anything else, including white space: the
    /// common case of every numeric column, without closures or trimming. Callers
    /// fall back to their general parser on nil.
    @inlinable
    public func plainDecimal(_ record: Int, _ column: Int) -> Int? {
        let k = firstField[record] + column
        guard column >= 0, k < firstField[record + 1] else { return nil }
        var i = Int(bounds[2 * k])
        let end = Int(bounds[2 * k + 1])
        return storage.withUnsafeBufferPointer { b -> Int? in
            let negative = i < end && b[i] == 0x2D
            if negative { i += 1 }
            guard i < end, end - i <= 18 else { return nil }
            var v = 0
            while i < end {
                let d = b[i] &- 0x30
                guard d <= 9 else { return nil }
                v = v &* 10 &+ Int(d)
                i += 1
            }
            return negative ? -v : v
        }
    }

    public func string(_ record: Int, _ column: Int) -> String {
        withField(record, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the file held exactly these bytes (e.g. the text a writer would
    /// write now), compared without a copy of either.
    public func fileHolds(_ bytes: [UInt8]) -> Bool { fileHolds((bytes, [])) }

    /// Whether the file held `parts.head` followed by `parts.tail`.
    public func fileHolds(_ parts: (head: [UInt8], tail: [UInt8])) -> Bool {
        guard parts.head.count + parts.tail.count == fileByteCount else { return false }
        return storage.withUnsafeBytes { a in
            func same(_ part: [UInt8], at offset: Int) -> Bool {
                part.isEmpty || part.withUnsafeBytes { b in memcmp(a.baseAddress! + offset, b.baseAddress!, part.count) == 0 }
            }
            return same(parts.head, at: 0) && same(parts.tail, at: parts.head.count)
        }
    }

    /// All records as strings.
    public func table() -> CSVTable {
        var records: [CSVRecord] = []
        records.reserveCapacity(count)
        for r in 0..<count {
            records.append(CSVRecord(line: lines[r], fields: (0..<fieldCount(r)).map { string(r, $0) }))
        }
        return CSVTable(file: file, header: header, records: records)
    }
}

func requireColumns(_ columns: [String], file: String, header: [String], has: (String) -> Bool) throws {
    let missing = columns.filter { !has($0) }
    if !missing.isEmpty {
        throw InputError(SourceLocation(file: file, line: 1, field: missing.joined(separator: ", ")),
                         "missing column\(missing.count > 1 ? "s" : "") \(missing.joined(separator: ", ")); the header has: \(header.joined(separator: ", "))")
    }
}

public enum CSVReader {
    public static func read(path: String, displayName: String? = nil) throws -> CSVTable {
        try scan(path: path, displayName: displayName).table()
    }

    public static func parse(_ data: Data, file: String) throws -> CSVTable {
        try scan(data, file: file).table()
    }

    public static func parse(_ text: String, file: String) throws -> CSVTable {
        try parse(Data(text.utf8), file: file)
    }

    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> CSVTable {
        try scan(bytes, file: file).table()
    }

    public static func scan(path: String, displayName: String? = nil) throws -> CSVFields {
        // Read straight into the array the fields will point into: going
        // through Data held the file twice while scanning.
        guard let bytes = readBytes(path: path) else {
            throw EnvironmentError("cannot read \(path)")
        }
        return try bytes.withUnsafeBufferPointer { try scan($0, owned: bytes, file: displayName ?? path) }
    }

    /// The whole file, or nil when it cannot be opened or read.
    static func readBytes(path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            var done = 0
            while done < size {
                let got = Glibc.read(fd, buffer.baseAddress! + done, size - done)
                if got < 0, errno == EINTR { continue }
                if got < 0 { failed = true; break }
                if got == 0 { break }
                done += got
            }
            count = done
        }
        return failed ? nil : bytes
    }

    public static func scan(_ data: Data, file: String) throws -> CSVFields {
        try data.withUnsafeBytes { raw in
            try scan(UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count), file: file)
        }
    }

    /// Splits RFC 4180 text into fields, collecting every problem (up to 50):
    /// an unterminated quote (thrown at once, since the rest of the file is
    /// inside it), text after a closing quote, invalid UTF-8, a column named
    /// twice, a record whose field count differs from the header's.
    public static func scan(_ bytes: UnsafeBufferPointer<UInt8>, file: String) throws -> CSVFields {
        try scan(bytes, owned: nil, file: file)
    }

    /// `owned`, when given, holds exactly `bytes` and becomes the fields' storage without a copy.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, owned: [UInt8]?, file: String) throws -> CSVFields {
        let quote: UInt8 = 0x22, comma: UInt8 = 0x2C, lf: UInt8 = 0x0A, cr: UInt8 = 0x0D
        let n = bytes.count
        var i = 0
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }

        var problems = DiagnosticCollector(limit: 50)
        // Validating once, up front, spares every field its own validation:
        // fields are split only at ASCII bytes, which never occur inside a
        // multi-byte sequence, so every field of a valid file is valid. Only an
        // invalid file is checked field by field, to locate the bad bytes.
        let wholeFileIsUTF8 = isValidUTF8(UnsafeBufferPointer(rebasing: bytes[i...]))
        // Offsets are 32-bit, and unescaped copies of quoted fields go after
        // the file's bytes, so a file may take at most half of that range.
        guard n <= Int(UInt32.max) / 2 else {
            throw InputError(SourceLocation(file: file), "file of \(n) bytes; expected at most 2 GiB")
        }
        // Unescaped contents of quoted fields that held "", addressed as offsets from n.
        var extra: [UInt8] = []
        var bounds = FieldBoundsWriter(capacity: n / 3)
        var firstField: [Int] = []
        var lines: [Int] = []
        var header: [String]? = nil
        var headerLine = 1
        var line = 1

        // Columns are named by the header once it is known, as other messages do.
        func columnName(_ column: Int) -> String {
            if let header, column < header.count, !header[column].isEmpty { return header[column] }
            return "column \(column + 1)"
        }

        // `firstLine` is the line the field starts on: a quoted field may span
        // lines, and the message should point at the line holding the bad byte.
        func fieldBytes<R>(_ start: Int, _ end: Int, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if start < n || start == end { return body(UnsafeBufferPointer(rebasing: bytes[min(start, n)..<min(end, n)])) }
            return extra.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[(start - n)..<(end - n)])) }
        }
        func checkUTF8(start: Int, end: Int, column: Int, firstLine: Int) {
            fieldBytes(start, end) { buf in
                guard String(validating: buf, as: UTF8.self) == nil else { return }
                let bad = firstInvalidUTF8Offset(buf)
                var badLine = firstLine
                for k in 0..<bad where buf[k] == lf { badLine += 1 }
                problems.add(SourceLocation(file: file, line: badLine, field: columnName(column)),
                             "invalid UTF-8 (byte 0x\(hexByte(buf[bad]))); expected UTF-8 text")
            }
        }

        var recordStart = 0          // field index of the current record's first field
        var recordLine = 1
        var atRecordStart = true
        while i < n || !atRecordStart {
            if atRecordStart { recordLine = line; recordStart = bounds.count / 2; atRecordStart = false }
            let column = bounds.count / 2 - recordStart
            // One field.
            if i < n, bytes[i] == quote {
                let openLine = line
                i += 1
                let contentStart = i
                var escaped = false, closed = false
                while i < n {
                    let b = bytes[i]
                    if b == quote {
                        if i + 1 < n, bytes[i + 1] == quote { escaped = true; i += 2; continue }
                        closed = true; break
                    }
                    if b == lf { line += 1 }
                    i += 1
                }
                let contentEnd = i
                if !closed {
                    problems.add(SourceLocation(file: file, line: openLine, field: columnName(column)),
                                 "unterminated quoted field (a \" opened here is never closed)")
                    try problems.check()
                }
                i += 1   // the closing quote
                if escaped {
                    let start = n + extra.count
                    var k = contentStart
                    while k < contentEnd {
                        extra.append(bytes[k])
                        k += bytes[k] == quote ? 2 : 1
                    }
                    bounds.append(UInt32(start)); bounds.append(UInt32(n + extra.count))
                } else {
                    bounds.append(UInt32(contentStart)); bounds.append(UInt32(contentEnd))
                }
                if !wholeFileIsUTF8 {
                    checkUTF8(start: Int(bounds[bounds.count - 2]), end: Int(bounds[bounds.count - 1]), column: column, firstLine: openLine)
                }
                if i < n, bytes[i] != comma, bytes[i] != lf, bytes[i] != cr {
                    problems.add(SourceLocation(file: file, line: line, field: columnName(column)),
                                 "unexpected text after a closing quote (write a quote inside a quoted field as \"\")")
                    while i < n, bytes[i] != comma, bytes[i] != lf { i += 1 }
                }
            } else {
                let start = i
                i = endOfUnquotedField(bytes, from: i)
                bounds.append(UInt32(start)); bounds.append(UInt32(i))
                if !wholeFileIsUTF8 { checkUTF8(start: start, end: i, column: column, firstLine: line) }
            }
            // What ends it.
            if i < n, bytes[i] == comma { i += 1; continue }
            if i < n, bytes[i] == cr { i += 1 }
            if i < n, bytes[i] == lf { i += 1 }
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
                    let f = recordStart + k
                    return fieldBytes(Int(bounds[2 * f]), Int(bounds[2 * f + 1])) { String(decoding: $0, as: UTF8.self) }
                        .trimmingWhitespace()
                }
                headerLine = recordLine
                bounds.removeLast(2 * fieldsInRecord)
                continue
            }
            firstField.append(recordStart)
            lines.append(recordLine)
        }
        firstField.append(bounds.count / 2)

        guard let header else {
            try problems.check()
            return CSVFields(file: file, header: [], lines: [], storage: owned ?? Array(bytes), fileByteCount: n, bounds: FieldBounds(),
                             firstField: [0], columns: [:])
        }
        // A repeated column name would make "the value of column X" ambiguous.
        var columns: [String: Int] = [:]
        for (k, name) in header.enumerated() where !name.isEmpty {
            if let earlier = columns[name] {
                problems.add(SourceLocation(file: file, line: headerLine, field: name),
                             "column named twice in the header (columns \(earlier + 1) and \(k + 1)); expected each name once")
            } else {
                columns[name] = k
            }
        }
        for r in 0..<lines.count {
            let count = firstField[r + 1] - firstField[r]
            if count != header.count {
                problems.add(SourceLocation(file: file, line: lines[r]),
                             "expected \(header.count) fields as in the header, found \(count)")
            }
        }
        try problems.check()
        var storage: [UInt8]
        if let owned {
            storage = owned
        } else {
            storage = []
            storage.reserveCapacity(n + extra.count)
            storage.append(contentsOf: bytes)
        }
        if !extra.isEmpty { storage.append(contentsOf: extra) }
        return CSVFields(file: file, header: header, lines: lines, storage: storage, fileByteCount: n, bounds: bounds.finish(),
                         firstField: firstField, columns: columns)
    }
}

/// The fields' offsets of a scanned file, in memory of their own: filled once by
/// `FieldBoundsWriter` (whose appends skip an array's uniqueness check, once per
/// field of every file), then only read.
public final class FieldBounds: @unchecked Sendable {
    @usableFromInline let base: UnsafeMutablePointer<UInt32>
    @usableFromInline let count: Int

    init(base: UnsafeMutablePointer<UInt32>? = nil, count: Int = 0) {
        self.base = base ?? allocateTrivial(UInt32.self, capacity: 1)
        self.count = count
    }

    deinit { free(base) }

    @inlinable
    subscript(_ i: Int) -> UInt32 {
        precondition(i >= 0 && i < count, "field offset out of range")
        return base[i]
    }
}

struct FieldBoundsWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt32>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = allocateTrivial(UInt32.self, capacity: self.capacity)
    }

    deinit { free(base) }

    @inline(__always)
    mutating func append(_ v: UInt32) {
        if count == capacity {
            base = reallocateTrivial(base, capacity: capacity * 2)
            capacity *= 2
        }
        base[count] = v
        count += 1
    }

    mutating func removeLast(_ k: Int) { count -= k }

    subscript(_ i: Int) -> UInt32 { base[i] }

    /// Hands the offsets over (shrunk to size), without copying them otherwise.
    consuming func finish() -> FieldBounds {
        let exact = reallocateTrivial(base, capacity: count)
        let count = self.count
        discard self
        return FieldBounds(base: exact, count: count)
    }
}

/// The offset of the first comma, LF or CR at or after `i` (or the end): eight
/// bytes at a time, since this runs over every byte of every file read.
@inline(__always)
func endOfUnquotedField(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    let n = bytes.count
    var i = start
    if let base = UnsafeRawPointer(bytes.baseAddress) {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        // A byte of `w` equal to c is a zero byte of w ^ (c * ones); the lowest flagged
        // byte of (v - ones) & ~v & highs is exactly the first zero byte of v.
        @inline(__always) func zeros(_ v: UInt64) -> UInt64 { (v &- ones) & ~v & highs }
        while i + 8 <= n {
            let w = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let hits = zeros(w ^ (0x2C * ones)) | zeros(w ^ (0x0A * ones)) | zeros(w ^ (0x0D * ones))
            if hits != 0 { return i + hits.trailingZeroBitCount / 8 }
            i += 8
        }
    }
    while i < n {
        let b = bytes[i]
        if b == 0x2C || b == 0x0A || b == 0x0D { break }
        i += 1
    }
    return i
}

/// Whether the bytes are well-formed UTF-8 (no overlongs, surrogates or
/// values past U+10FFFF): sixteen bytes at a time where the CPU can (CSIMD).
func isValidUTF8(_ buf: UnsafeBufferPointer<UInt8>) -> Bool {
    if cpuValidatesUTF8, let base = buf.baseAddress { return csimd_utf8_valid(base, buf.count) == 1 }
    return isValidUTF8Portably(buf)
}

let cpuValidatesUTF8 = csimd_cpu_has_ssse3() == 1

/// `isValidUTF8` byte by byte, with a fast path over runs of ASCII.
func isValidUTF8Portably(_ buf: UnsafeBufferPointer<UInt8>) -> Bool {
    let n = buf.count
    var i = 0
    let base = UnsafeRawPointer(buf.baseAddress)
    while i < n {
        let b = buf[i]
        if b < 0x80 {
            // Runs of ASCII (digits, commas, coordinates) eight bytes at a time.
            if let base, i + 8 <= n, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 } else { i += 1 }
            continue
        }
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

/// Trims like `trimmingWhitespace()`, checking first for the common case:
/// most fields have no surrounding space.
@inline(__always)
func trimmedField(_ s: String) -> String {
    let scalars = s.unicodeScalars
    guard let first = scalars.first, let last = scalars.last else { return s }
    @inline(__always) func space(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x80 ? (u.value == 0x20 || u.value == 0x09) : u.properties.isWhitespace
    }
    if !space(first) && !space(last) { return s }
    return s.trimmingWhitespace()
}

public enum CSVWriter {
    /// Whether a field must be quoted: it holds a comma, quote or line break,
    /// or starts or ends with a space (which readers may trim). Scanned as
    /// bytes: this runs for every field of the registry.
    static func needsQuotes(_ s: String) -> Bool {
        var s = s
        return s.withUTF8(needsQuotes)
    }

    /// `needsQuotes` on a field's UTF-8 bytes.
    public static func needsQuotes(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = b.first, let last = b.last else { return false }
        if first == 0x20 || last == 0x20 { return true }
        for c in b where c == 0x2C || c == 0x22 || c == 0x0A || c == 0x0D { return true }
        return false
    }

    /// One field, quoted only when it must be.
    public static func field(_ s: String) -> String {
        needsQuotes(s) ? "\"" + s.replacingAll("\"", with: "\"\"") + "\"" : s
    }

    /// Appends one record to `out`.
    public static func append(_ fields: [String], to out: inout String) {
        for (i, f) in fields.enumerated() {
            if i > 0 { out.append(",") }
            if needsQuotes(f) { out.append(field(f)) } else { out.append(f) }
        }
        out.append("\n")
    }

    public static func line(_ fields: [String]) -> String {
        var out = ""
        append(fields, to: &out)
        return out
    }
}
