import FoundationEssentials
import Glibc
import StationModel

/// The few JSON values latest.json and manifest.json need, printed by hand so the
/// bytes are fixed: keys sorted (by UTF-8 bytes), two-space indent, `/` unescaped,
/// a trailing newline.
public indirect enum JSONValue: Hashable, Sendable {
    case null
    case int(Int)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public var text: String {
        var out = ""
        write(to: &out, indent: "")
        return out + "\n"
    }

    private func write(to out: inout String, indent: String) {
        switch self {
        case .null: out += "null"
        case .int(let v): out += String(v)
        case .string(let s): out += JSONValue.quote(s)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[\n"
            let inner = indent + "  "
            for (i, item) in items.enumerated() {
                out += inner
                item.write(to: &out, indent: inner)
                out += i + 1 < items.count ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{\n"
            let inner = indent + "  "
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (i, key) in keys.enumerated() {
                out += inner + JSONValue.quote(key) + ": "
                members[key]!.write(to: &out, indent: inner)
                out += i + 1 < keys.count ? ",\n" : "\n"
            }
            out += indent + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONText.quote(s) }
}

/// Reading latest.json / manifest.json back: a thin typed view over JSONDocument.
struct JSONObject {
    let file: String
    let dict: [String: JSONDocument]

    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw EnvironmentError("cannot read \(path)") }
        guard let dict = JSONDocument.parse([UInt8](data))?.object else {
            throw InputError(SourceLocation(file: path), "not a JSON object")
        }
        self.file = path; self.dict = dict
    }

    /// Only whole numbers count.
    func int(_ key: String) -> Int? { dict[key]?.wholeNumber }

    func string(_ key: String) -> String? { dict[key]?.string }

    func requireInt(_ key: String) throws -> Int {
        guard let v = int(key) else { throw InputError(SourceLocation(file: file, field: key), "expected an integer") }
        return v
    }

    func requireString(_ key: String) throws -> String {
        guard let v = string(key) else { throw InputError(SourceLocation(file: file, field: key), "expected a string") }
        return v
    }

    func object(_ key: String) -> [String: JSONDocument]? { dict[key]?.object }
}
