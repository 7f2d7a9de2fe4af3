import FoundationEssentials

/// How every JSON file stationdb writes looks (latest.json, manifests, stage records,
/// lint reports): two-space indent, keys sorted, slashes as written, a trailing newline,
/// so the same content is the same bytes and a diff of two versions reads line by line.
public func jsonDocument<T: Encodable>(_ value: T) throws -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return [UInt8](try encoder.encode(value)) + [0x0A]
}
