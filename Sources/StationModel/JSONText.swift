// JSON written by hand so that manifests, latest.json and diff output are
// byte-stable whatever Foundation's encoder does: two-space indent, `/` left
// unescaped, members in the order given or sorted by their UTF-8 bytes.

public enum JSONText {
    /// A JSON string literal.
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A JSON value to write. An `object` keeps its members in the order given (a
/// schema's order); a `sortedObject` writes them sorted by the keys' UTF-8 bytes.
public indirect enum JSON: Sendable {
    case null
    case bool(Bool)
    /// Already spelled as a JSON number.
    case number(String)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])
    case sortedObject([String: JSON])

    public static func int(_ v: Int) -> JSON { .number(String(v)) }
    public static func fixed(_ v: Double, _ decimals: Int) -> JSON { .number(String(fixed: v, decimals: decimals)) }

    /// The document: the value and a trailing newline.
    public var text: String {
        var out = ""
        write(to: &out, indent: "")
        return out + "\n"
    }

    public func write(to out: inout String, indent: String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n
        case .string(let s): out += JSONText.quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            let inner = indent + "  "
            out += "[\n"
            for (i, item) in items.enumerated() {
                out += inner
                item.write(to: &out, indent: inner)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            let inner = indent + "  "
            out += "{\n"
            for (i, (key, value)) in members.enumerated() {
                out += inner + JSONText.quote(key) + ": "
                value.write(to: &out, indent: inner)
                out += i + 1 < members.count ? ",\n" : "\n"
            }
            out += indent + "}"
        case .sortedObject(let members):
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            JSON.object(keys.map { ($0, members[$0]!) }).write(to: &out, indent: indent)
        }
    }
}
