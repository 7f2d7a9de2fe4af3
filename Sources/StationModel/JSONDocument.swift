// Reading latest.json and manifest.json back (verify, diff, the next build).
// These files are read from disk that anyone may have edited, so what counts
// as valid and how numbers come out follow Foundation's JSONSerialization,
// which stationdb used before: the same file gets the same verdict.

// Decimal's double and integer readings are SPI: JSONSerialization gave long
// numbers as NSDecimalNumber, whose doubleValue and intValue are these.
@_spi(SwiftCorelibsFoundation) import FoundationEssentials

/// A parsed JSON value. Numbers keep their text; see `doubleValue`, `wholeNumber`
/// and `truncatedInt` for the readings JSONSerialization's NSNumber gave.
public indirect enum JSONDocument: Sendable, Equatable {
    case object([String: JSONDocument])
    case array([JSONDocument])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    /// The document in `bytes` (UTF-8, or UTF-16/32 told by a byte order mark
    /// or by zero bytes, as JSONSerialization detects them); nil when it is not
    /// valid JSON. Like JSONSerialization it allows a trailing comma in arrays
    /// and objects, keeps the last of repeated keys, nests at most 512 deep and
    /// rejects a number beyond Double's range.
    public static func parse(_ bytes: [UInt8]) -> JSONDocument? {
        var text = bytes
        if let (encoding, skip) = nonUTF8Encoding(bytes) {
            guard let utf8 = transcode(bytes.dropFirst(skip), encoding) else { return nil }
            text = utf8
        } else if bytes.starts(with: [0xEF, 0xBB, 0xBF]) && bytes.count >= 4 {
            text = Array(bytes.dropFirst(3))
        }
        var parser = JSONDocumentParser(bytes: text)
        return parser.document()
    }

    public var object: [String: JSONDocument]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// NSNumber's doubleValue: a number, or 1 and 0 for true and false.
    public var doubleValue: Double? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .number(let text):
            switch JSONNumber(text) {
            case .int64(let v): return Double(v)
            case .uint64(let v): return Double(v)
            case .decimal(let d): return d._doubleValue
            case .double(let d): return d
            case nil: return nil
            }
        default: return nil
        }
    }

    /// The value when it is a whole number an Int holds ("3", "3.0", "3e0").
    public var wholeNumber: Int? {
        doubleValue.flatMap { Int(exactly: $0) }
    }

    /// NSNumber's intValue: whole numbers as they are, others cut toward zero,
    /// and beyond Int's range what NSNumber made of them.
    public var truncatedInt: Int? {
        switch self {
        case .bool(let b): return b ? 1 : 0
        case .number(let text):
            switch JSONNumber(text) {
            case .int64(let v): return Int(v)
            case .uint64(let v): return Int(truncatingIfNeeded: v)
            case .decimal(let d): return Int(truncatingIfNeeded: d._int64Value)
            // Out of range, the conversion CoreFoundation uses gives Int.min.
            case .double(let d): return d >= 0x1p63 || d < -0x1p63 ? Int.min : Int(d.rounded(.towardZero))
            case nil: return nil
            }
        default: return nil
        }
    }

    private enum Encoding { case utf16LE, utf16BE, utf32LE, utf32BE }

    private static func nonUTF8Encoding(_ b: [UInt8]) -> (Encoding, Int)? {
        if b.count >= 4 {
            if b.starts(with: [0xEF, 0xBB, 0xBF]) { return nil }
            if b.starts(with: [0x00, 0x00, 0xFE, 0xFF]) { return (.utf32BE, 4) }
            if b.starts(with: [0xFF, 0xFE, 0x00, 0x00]) { return (.utf32LE, 4) }
            if b.starts(with: [0xFF, 0xFE]) { return (.utf16LE, 2) }
            if b.starts(with: [0xFE, 0xFF]) { return (.utf16BE, 2) }
            switch (b[0], b[1], b[2], b[3]) {
            case (0, 0, 0, _): return (.utf32BE, 0)
            case (_, 0, 0, 0): return (.utf32LE, 0)
            case (0, _, 0, _): return (.utf16BE, 0)
            case (_, 0, _, 0): return (.utf16LE, 0)
            default: return nil
            }
        }
        if b.count >= 2 {
            if b[0] == 0 { return (.utf16BE, 0) }
            if b[1] == 0 { return (.utf16LE, 0) }
        }
        return nil
    }

    /// UTF-8 for UTF-16/32 text; nil when the text is not valid in its encoding.
    /// Bytes left over after the last whole code unit are ignored, as Foundation did.
    private static func transcode(_ b: ArraySlice<UInt8>, _ encoding: Encoding) -> [UInt8]? {
        let unit = encoding == .utf16LE || encoding == .utf16BE ? 2 : 4
        let bytes = Array(b.prefix(b.count - b.count % unit))
        var out: [UInt8] = []
        func append(_ scalar: Unicode.Scalar) { out.append(contentsOf: String(scalar).utf8) }
        switch encoding {
        case .utf16LE, .utf16BE:
            let units = stride(from: 0, to: bytes.count, by: 2).map { i -> UInt16 in
                encoding == .utf16LE ? UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8 : UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
            }
            var decoder = UTF16()
            var iterator = units.makeIterator()
            while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let s): append(s)
                case .emptyInput: return out
                case .error: return nil
                }
            }
        case .utf32LE, .utf32BE:
            for i in stride(from: 0, to: bytes.count, by: 4) {
                let v = encoding == .utf32LE
                    ? UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
                    : UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                guard let s = Unicode.Scalar(v) else { return nil }
                append(s)
            }
            return out
        }
    }
}

private struct JSONDocumentParser {
    let bytes: [UInt8]
    var i = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func document() -> JSONDocument? {
        guard let value = value() else { return nil }
        skipWhitespace()
        return i == bytes.count ? value : nil
    }

    private static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private mutating func skipWhitespace() {
        while i < bytes.count, Self.isWhitespace(bytes[i]) { i += 1 }
    }

    private mutating func value() -> JSONDocument? {
        skipWhitespace()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "\""): return string().map(JSONDocument.string)
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func literal(_ word: String, _ result: JSONDocument) -> JSONDocument? {
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { return nil }
            i += 1
        }
        return result
    }

    private mutating func array() -> JSONDocument? {
        guard depth < 512 else { return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        var items: [JSONDocument] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
        while true {
            guard let item = value() else { return nil }
            items.append(item)
            skipWhitespace()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "]"): i += 1; return .array(items)
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            default: return nil
            }
        }
    }

    private mutating func object() -> JSONDocument? {
        guard depth < 512 else { return nil }
        depth += 1
        defer { depth -= 1 }
        i += 1
        var members: [String: JSONDocument] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
        while true {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard let member = value() else { return nil }
            members[key] = member
            skipWhitespace()
            guard i < bytes.count else { return nil }
            switch bytes[i] {
            case UInt8(ascii: "}"): i += 1; return .object(members)
            case UInt8(ascii: ","):
                i += 1
                skipWhitespace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(members) }
            default: return nil
            }
        }
    }

    /// A string literal; raw bytes must be valid UTF-8 and no control characters.
    private mutating func string() -> String? {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "\""):
                i += 1
                return String(validatingUTF8Bytes: out)
            case 0...0x1F:
                return nil
            case UInt8(ascii: "\\"):
                i += 1
                guard i < bytes.count else { return nil }
                let e = bytes[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let scalar = unicodeEscape() else { return nil }
                    out.append(contentsOf: String(scalar).utf8)
                default: return nil
                }
            default:
                out.append(b)
                i += 1
            }
        }
        return nil
    }

    /// After "\u": four hex digits, a surrogate pair taking a second "\uXXXX".
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hex4() else { return nil }
        if high & 0xFC00 == 0xD800 {
            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else { return nil }
            i += 2
            guard let low = hex4(), low & 0xFC00 == 0xDC00 else { return nil }
            return Unicode.Scalar((UInt32(high) - 0xD800) * 0x400 + (UInt32(low) - 0xDC00) + 0x10000)
        }
        return Unicode.Scalar(high)
    }

    private mutating func hex4() -> UInt16? {
        guard i + 4 <= bytes.count else { return nil }
        var v: UInt16 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let d: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = b - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = b - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = b - UInt8(ascii: "a") + 10
            default: return nil
            }
            v = v << 4 | UInt16(d)
            i += 1
        }
        return v
    }

    /// RFC 8259's number grammar; the number must end at whitespace, a comma,
    /// a closing bracket or the end, and fit a Double (or an Int64/UInt64).
    private mutating func number() -> JSONDocument? {
        let start = i
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        func digits() -> Int {
            let from = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            return i - from
        }
        let intStart = i
        let intDigits = digits()
        guard intDigits > 0, !(intDigits > 1 && bytes[intStart] == UInt8(ascii: "0")) else { return nil }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return nil }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return nil }
        }
        if i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"): break
            default: return nil
            }
        }
        let text = String(decoding: bytes[start..<i], as: UTF8.self)
        guard JSONNumber(text) != nil else { return nil }
        return .number(text)
    }
}

/// How JSONSerialization stored a number (NSNumber.fromJSONNumber): whole
/// numbers as Int64 or UInt64, longer ones as Decimal, the rest as Double; nil
/// (the document is rejected) when none holds it.
private enum JSONNumber {
    case int64(Int64), uint64(UInt64), decimal(Decimal), double(Double)

    init?(_ text: String) {
        // Only a lower-case "e" counted as an exponent there, so "1E5" is read as a Double.
        let exponent = text.firstIndex(of: "e")
        let digitCount = text[..<(exponent ?? text.endIndex)].count
        if !text.contains("."), exponent == nil {
            if text.hasPrefix("-") {
                if digitCount <= 19, let v = Int64(text) { self = .int64(v); return }
            } else {
                if digitCount <= 20, let v = UInt64(text) { self = .uint64(v); return }
            }
        }
        var exp = 0
        if let exponent, let parsed = Int(text[text.index(after: exponent)...]) { exp = parsed }
        if digitCount > 17, exp >= -128, exp <= 127, let d = Decimal(string: text), d.isFinite {
            self = .decimal(d); return
        }
        if let d = Double(text), d.isFinite { self = .double(d); return }
        return nil
    }
}

private extension String {
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var scalars = String.UnicodeScalarView()
        var decoder = UTF8()
        var iterator = bytes.makeIterator()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let s): scalars.append(s)
            case .emptyInput: self = String(scalars); return
            case .error: return nil
            }
        }
    }
}
