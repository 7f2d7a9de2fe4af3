import FoundationEssentials
import Glibc
import StationModel

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
