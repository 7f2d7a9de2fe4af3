import FoundationEssentials

/// How every JSON file stationdb writes looks (latest.json, manifests, stage records,
/// lint reports): two-space indent, keys sorted, slashes as written, a trailing newline,
/// so the same content is the same bytes and a diff of two versions reads line by line.
/// `compact` leaves out the indent and line breaks, for data no one reads by eye (the
/// preview page's), where they would double the size.
package func jsonDocument<T: Encodable>(_ value: T, compact: Bool = false) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = compact ? [.sortedKeys, .withoutEscapingSlashes] : [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return [UInt8](try encoder.encode(value)) + [0x0A]
}

/// Where a document stops being JSON (RFC 8259), for a maintainer's file such as
/// raw/sources.json: Foundation's decoder only says "not valid JSON", with no place.
/// A syntax check only; what the values mean is the decoder's business.
package enum JSONSyntax {
    package struct Problem: Equatable, Sendable {
        /// 1-based; the column counts characters (Unicode scalars), as editors do.
        package var line: Int
        package var column: Int
        package var message: String
    }

    /// The line each value of `bytes` starts on, by its path ("sources.0.path", as
    /// DecodingError.keyPath names it), when they are one JSON value (an optional UTF-8
    /// BOM and white space around it allowed); else the first syntax error is thrown.
    /// Stricter than Foundation's decoder, which takes a trailing comma and a name given
    /// twice in one object (the first wins): both are refused at their line.
    package static func lines(in bytes: [UInt8]) throws -> [String: Int] {
        var scanner = Scanner(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.i = 3 }
        scanner.skipSpace()
        try scanner.value(depth: 0, path: "")
        scanner.skipSpace()
        if scanner.i < bytes.count { throw scanner.problem("expected nothing after the document") }
        return scanner.lines
    }

    /// The first number of `bytes` (one JSON value) that no reader takes as it is written: a
    /// whole number past 64 bits, or one past a Double's range (1e400), by its path. Foundation's
    /// decoder refuses such a document as "not valid JSON", naming neither.
    package static func numberOutOfRange(in bytes: [UInt8]) -> (path: String, text: String)? {
        var scanner = Scanner(bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.i = 3 }
        scanner.skipSpace()
        try? scanner.value(depth: 0, path: "")
        return scanner.outOfRange
    }

    private struct Scanner {
        let b: [UInt8]
        var i = 0
        var outOfRange: (path: String, text: String)?
        /// The line `i` is on: line breaks stand only in white space (a string may not hold one).
        var line = 1
        var lines: [String: Int] = [:]
        init(_ b: [UInt8]) { self.b = b }

        mutating func skipSpace() {
            while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D {
                if b[i] == 0x0A { line += 1 }
                i += 1
            }
        }

        /// A problem at byte `at` (default: here), naming what stands there.
        func problem(_ expected: String, at: Int? = nil, naming: Bool = true) -> Problem {
            let at = at ?? i
            var line = 1, lineStart = 0
            for k in 0..<min(at, b.count) where b[k] == 0x0A { line += 1; lineStart = k + 1 }
            let column = String(decoding: b[lineStart..<min(at, b.count)], as: UTF8.self).unicodeScalars.count + 1
            var found = ""
            if naming {
                if at >= b.count {
                    found = ", found the end of the file"
                } else {
                    let rest = String(decoding: b[at..<min(at + 4, b.count)], as: UTF8.self)
                    found = ", found '\(rest.unicodeScalars.first.map { String($0) } ?? "?")'"
                }
            }
            return Problem(line: line, column: column, message: expected + found)
        }

        /// A comma right before the closing bracket: JSON has none, though some readers take it.
        mutating func trailingComma(before close: UInt8) throws {
            if i < b.count, b[i] == close { throw problem("expected a value after ',' (JSON allows no comma before the closing bracket)") }
        }

        mutating func value(depth: Int, path: String) throws {
            guard depth < 512 else { throw problem("expected at most 512 nested arrays and objects", naming: false) }
            guard i < b.count else { throw problem("expected a value") }
            if !path.isEmpty { lines[path] = line }
            func member(_ name: String) -> String { path.isEmpty ? name : path + "." + name }
            switch b[i] {
            case UInt8(ascii: "{"):
                i += 1
                skipSpace()
                if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return }
                var names: [String: Int] = [:]
                while true {
                    guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw problem("expected a name in double quotes") }
                    let start = i
                    try string()
                    let name = String(decoding: b[(start + 1)..<(i - 1)], as: UTF8.self)
                    if let first = names[name] {
                        throw problem("the name \"\(shown(name))\" again in one object (first on line \(first)); readers differ on which one counts: keep one", at: start, naming: false)
                    }
                    names[name] = line
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: ":") else { throw problem("expected ':' after a name") }
                    i += 1
                    skipSpace()
                    try value(depth: depth + 1, path: member(name))
                    skipSpace()
                    if i < b.count, b[i] == UInt8(ascii: ",") { i += 1; skipSpace(); try trailingComma(before: UInt8(ascii: "}")); continue }
                    if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return }
                    throw problem("expected ',' or '}' after an object's value")
                }
            case UInt8(ascii: "["):
                i += 1
                skipSpace()
                if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return }
                var index = 0
                while true {
                    try value(depth: depth + 1, path: member(String(index)))
                    index += 1
                    skipSpace()
                    if i < b.count, b[i] == UInt8(ascii: ",") { i += 1; skipSpace(); try trailingComma(before: UInt8(ascii: "]")); continue }
                    if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return }
                    throw problem("expected ',' or ']' after an array's value")
                }
            case UInt8(ascii: "\""):
                try string()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                try number()
                let text = String(decoding: b[start..<i], as: UTF8.self)
                let whole = !text.contains { $0 == "." || $0 == "e" || $0 == "E" }
                if outOfRange == nil, whole ? Int64(text) == nil : !(Double(text)?.isFinite ?? false) { outOfRange = (path, text) }
            default:
                throw problem("expected a value")
            }
        }

        mutating func literal(_ word: String) throws {
            guard b[i...].starts(with: word.utf8) else { throw problem("expected a value") }
            i += word.utf8.count
        }

        mutating func string() throws {
            let start = i
            i += 1
            while i < b.count {
                switch b[i] {
                case UInt8(ascii: "\""):
                    i += 1
                    return
                case UInt8(ascii: "\\"):
                    guard i + 1 < b.count else { break }
                    switch b[i + 1] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                         UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        i += 2
                    case UInt8(ascii: "u"):
                        let hex = b[min(i + 2, b.count)..<min(i + 6, b.count)]
                        guard hex.count == 4, hex.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) }) else {
                            throw problem("expected four hex digits after \\u", naming: false)
                        }
                        i += 6
                    default:
                        throw problem("expected an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX)", naming: false)
                    }
                case 0x00..<0x20:
                    throw problem("a control character inside a string; write it escaped (\\n, \\t, \\u00XX)", naming: false)
                default:
                    i += 1
                }
            }
            throw problem("a string that never ends (its closing \" is missing)", at: start, naming: false)
        }

        mutating func number() throws {
            if b[i] == UInt8(ascii: "-") { i += 1 }
            func digits() -> Int {
                let start = i
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 { i += 1 }
                return i - start
            }
            guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { throw problem("expected a digit") }
            if b[i] == 0x30 { i += 1 } else { _ = digits() }
            if i < b.count, b[i] == UInt8(ascii: ".") {
                i += 1
                guard digits() > 0 else { throw problem("expected a digit after the decimal point") }
            }
            if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
                i += 1
                if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
                guard digits() > 0 else { throw problem("expected a digit in the exponent") }
            }
        }
    }
}

extension JSONSyntax.Problem: Error {}
