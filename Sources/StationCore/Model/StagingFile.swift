import CZlib
import FoundationEssentials

// The staging file is where Ingest hands over to Priority and BuildDB: the
// bundle's tables (no weights yet) and facts about the run that made them, in
// a compact binary form with a CRC-32, written to a temporary name and renamed.
// `stationdb build` turns it into a bundle anyone can open with sqlite3.

package struct Staging: Sendable {
    package var network: RailNetwork
    /// Facts about the run that made it, e.g. "source:ekidata/station.csv" -> sha256.
    package var meta: [String: String]

    package init(network: RailNetwork, meta: [String: String] = [:]) {
        self.network = network; self.meta = meta
    }
}

/// Keys of `Staging.meta` besides the sources' digests ("source:<path in raw/>").
package enum StagingMeta {
    /// raw/CREDITS.md as it was read: every version publishes it as its CREDITS.md.
    package static let credits = "credits"
    /// The licences sources.json names ("license"), for latest.json.
    package static let license = "license"

    /// What ingest settled of identities: its review and merges (StagingIdentity, as JSON).
    package static let identity = "identity"

    /// What the fixes changed, row by row (FixedValue.text): the reports' causes.
    package static let fixes = "fixes"

    /// The upstream release a source holds ("v20260529"), by its path in raw/.
    package static func release(_ source: String) -> String { "release:" + source }

    /// Those releases, from a staging file's facts: source -> release.
    package static func releases(in meta: [String: String]) -> [String: String] { prefixed("release:", in: meta) }

    /// The digest of each file the staging file was made from ("source:<path in raw/>"), by its path in raw/.
    package static func sources(in meta: [String: String]) -> [String: String] { prefixed("source:", in: meta) }

    static func prefixed(_ prefix: String, in meta: [String: String]) -> [String: String] {
        Dictionary(uniqueKeysWithValues: meta.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(prefix.count)), $0.value) })
    }

    /// The identity facts a staging file carries (none for one made without).
    package static func identity(in meta: [String: String]) -> StagingIdentity {
        guard let text = meta[identity], let facts = try? JSONDecoder().decode(StagingIdentity.self, from: Data(text.utf8)) else { return StagingIdentity() }
        return facts
    }
}

/// What ingest settled of identities, for the build and the plan: the review of every s_id
/// against the registry (IdentityReview) and the s_ids merged into another station.
package struct StagingIdentity: Codable, Sendable, Equatable {
    package var review: IdentityReview?
    /// s_ids retired into other stations (by the evidence or a `merge`), each with the s_ids it merges into.
    package var merged: [Int: [Int]] = [:]

    package init(review: IdentityReview? = nil, merged: [Int: [Int]] = [:]) {
        self.review = review; self.merged = merged
    }

    package var isEmpty: Bool { review == nil && merged.isEmpty }

    /// The JSON the staging file keeps under StagingMeta.identity.
    package var text: String { String(decoding: (try? jsonDocument(self, compact: true)) ?? [], as: UTF8.self) }
}

/// What a maintainer says a station holds, `column=value[;column=value]` over station,
/// o_id, pref and enabled (raw/identity.csv's `expect`): checked by ingest against what
/// the sources give, and by the guards against the version itself.
package struct StationExpectation: Sendable, Hashable, CustomStringConvertible {
    package static let columns = ["station", "o_id", "pref", "enabled"]
    package var pairs: [(column: String, value: String)]

    /// nil for text that is not `column=value[;column=value]` over those columns, or that holds
    /// a control character (a line break in a quoted field), which no station's value has.
    package init?(_ text: String) {
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        var pairs: [(column: String, value: String)] = []
        for part in text.split(separator: ";") {
            let kv = part.split(separator: "=", maxSplits: 1).map { String($0).trimmed() }
            guard kv.count == 2, Self.columns.contains(kv[0]) else { return nil }
            pairs.append((kv[0], kv[1]))
        }
        guard !pairs.isEmpty else { return nil }
        self.pairs = pairs
    }

    package var description: String { pairs.map { "\($0.column)=\($0.value)" }.joined(separator: ";") }

    /// Whether a station holds every value named (text without outer blanks).
    package func isMet(name: String, operatorID: Int, pref: Int?, enabled: Bool) -> Bool {
        pairs.allSatisfy { m in
            switch m.column {
            case "station": name.trimmed() == m.value
            case "o_id": Int(m.value) == operatorID
            case "pref": pref.map { Int(m.value) == $0 } ?? false
            case "enabled": ["0", "1"].contains(m.value) && (m.value == "1") == enabled
            default: false
            }
        }
    }

    package static func == (a: StationExpectation, b: StationExpectation) -> Bool { a.description == b.description }
    package func hash(into hasher: inout Hasher) { hasher.combine(description) }
}

package enum StagingFile {
    package static let defaultName = "staging.bin"

    /// The file starts with these bytes, then the format's number.
    package static let magic = Array("stationdb staging\n".utf8)
    static let format: UInt8 = 1

    // Layout, format 1. Every integer is a LEB128 varint of its zigzag form, a
    // string its UTF-8 length then its bytes, a flag one byte 0 or 1:
    //   magic, format byte
    //   counts: meta, operators, lines, stations, stations_lines
    //   meta           key, value                       (by key)
    //   operators      o_id, operator, type, enabled    (by o_id)
    //   lines          l_id, line, o_id, enabled, l_type + 1 (0 for NULL)   (by l_id)
    //   stations       s_id, station, yomi, wiki, pref, address, lat, lng, o_id, enabled   (by s_id)
    //   stations_lines l_id, s_id, s_sort               (by l_id, s_sort, s_id)
    //   CRC-32 of every byte before it, 4 bytes little-endian

    package static func encode(_ staging: Staging) -> [UInt8] {
        var network = staging.network
        network.sortByKey()
        var out = StagingEncoder()
        out.bytes = magic + [format]
        for n in [staging.meta.count, network.operators.count, network.lines.count, network.stations.count, network.stationLines.count] {
            out.int(n)
        }
        for key in staging.meta.keys.sorted() { out.text(key); out.text(staging.meta[key]!) }
        for o in network.operators { out.int(o.id); out.text(o.name); out.int(o.type); out.flag(o.enabled) }
        for l in network.lines {
            out.int(l.id); out.text(l.name); out.int(l.operatorID); out.flag(l.enabled); out.int(l.type.map { $0 + 1 } ?? 0)
        }
        for s in network.stations {
            out.int(s.id); out.text(s.name); out.text(s.yomi); out.text(s.wiki); out.int(s.pref); out.text(s.address)
            out.int(s.lat); out.int(s.lng); out.int(s.operatorID); out.flag(s.enabled)
        }
        for x in network.stationLines { out.int(x.lineID); out.int(x.stationID); out.int(x.sort) }
        let crc = out.bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
        for shift in stride(from: 0, to: 32, by: 8) { out.bytes.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
        return out.bytes
    }

    /// Writes the file through a temporary one beside it.
    @discardableResult
    package static func write(_ staging: Staging, to path: String) throws -> WrittenFile {
        try AtomicFile.write(encode(staging), to: path)
    }

    /// Reads a staging file; a missing, truncated, damaged or foreign file is an
    /// environment error that says to run `stationdb ingest` again.
    package static func read(from path: String) throws -> Staging { try read(from: path, metaOnly: false) }

    static func read(from path: String, metaOnly: Bool) throws -> Staging {
        guard Files.exists(path) else { throw StationError.badInput(SourceLocation(file: path), "no staging file there; run `stationdb ingest` first, or name the one it wrote") }
        let bytes = try Files.read(path)
        func damaged(_ what: String) -> StationError {
            StationError(.damaged, reasons: ["the staging file \(path) is damaged (\(what)); run `stationdb ingest` again to rewrite it"])
        }
        guard bytes.count >= magic.count + 5, bytes.starts(with: magic) else {
            throw StationError(.damaged, reasons: ["\(path) is not a stationdb staging file; run `stationdb ingest` to write one"])
        }
        guard bytes[magic.count] == format else {
            throw StationError(.damaged, reasons: ["the staging file \(path) is of format \(bytes[magic.count]), this stationdb reads format \(format); run `stationdb ingest` again to rewrite it"])
        }
        let body = bytes.count - 4
        let stored = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[body + $1]) << UInt32(8 * $1) }
        let crc = bytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt(body))) }
        guard stored == crc else { throw damaged("its CRC-32 does not match") }

        do {
            return try bytes.withUnsafeBufferPointer { try decode(StagingDecoder(bytes: $0, position: magic.count + 1, end: body), metaOnly: metaOnly) }
        } catch let damage as StationError where damage.kind == .damaged {
            throw damaged(damage.message)
        }
    }

    /// Only the facts of a staging file (its meta), for a run that has its candidate
    /// already and needs no network: the file is checked whole all the same.
    package static func readMeta(from path: String) throws -> [String: String] {
        try read(from: path, metaOnly: true).meta
    }

    private static func decode(_ decoder: StagingDecoder, metaOnly: Bool = false) throws -> Staging {
        var file = decoder
        do {
            let counts = try (0..<5).map { _ in try file.count() }
            var meta: [String: String] = [:]
            for _ in 0..<counts[0] { let key = try file.text(); meta[key] = try file.text() }
            if metaOnly { return Staging(network: RailNetwork(), meta: meta) }
            var n = RailNetwork()
            for _ in 0..<counts[1] {
                n.operators.append(Operator(id: try file.int(), name: try file.text(), type: try file.int(), enabled: try file.flag()))
            }
            for _ in 0..<counts[2] {
                let id = try file.int(), name = try file.text(), o = try file.int(), enabled = try file.flag(), type = try file.int()
                n.lines.append(Line(id: id, name: name, operatorID: o, enabled: enabled, type: type == 0 ? nil : type - 1))
            }
            n.stations.reserveCapacity(counts[3])
            for _ in 0..<counts[3] {
                n.stations.append(Station(id: try file.int(), name: try file.text(), yomi: try file.text(), wiki: try file.text(),
                                          pref: try file.int(), address: try file.text(), lat: try file.int(), lng: try file.int(),
                                          operatorID: try file.int(), enabled: try file.flag()))
            }
            n.stationLines.reserveCapacity(counts[4])
            for _ in 0..<counts[4] {
                n.stationLines.append(StationLine(lineID: try file.int(), stationID: try file.int(), sort: try file.int()))
            }
            guard file.position == file.end else { throw StagingDecoder.damage("\(file.end - file.position) bytes after the last row") }
            return Staging(network: n, meta: meta)
        }
    }
}

struct StagingEncoder {
    var bytes: [UInt8] = []

    mutating func int(_ v: Int) {
        var z = UInt64(bitPattern: Int64(v) << 1 ^ Int64(v) >> 63)
        while z >= 0x80 { bytes.append(UInt8(truncatingIfNeeded: z) | 0x80); z >>= 7 }
        bytes.append(UInt8(z))
    }

    mutating func text(_ s: String) {
        int(s.utf8.count)
        bytes.append(contentsOf: s.utf8)
    }

    mutating func flag(_ v: Bool) { bytes.append(v ? 1 : 0) }
}

/// Reads the file's bytes in place, checking as it goes: a damaged file is an error, never a crash.
struct StagingDecoder {
    /// What is wrong, as the decoder finds it; read() names the file.
    static func damage(_ what: String) -> StationError { StationError(.damaged, reasons: [what]) }

    let bytes: UnsafeBufferPointer<UInt8>
    var position: Int
    let end: Int

    mutating func int() throws -> Int {
        var z: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard position < end, shift < 64 else { throw Self.damage("it ends early") }
            let b = bytes[position]
            position += 1
            z |= UInt64(b & 0x7F) << shift
            if b < 0x80 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
    }

    /// A row count, which cannot exceed the bytes left.
    mutating func count() throws -> Int {
        let n = try int()
        guard n >= 0, n <= end - position else { throw Self.damage("a row count of \(n)") }
        return n
    }

    mutating func flag() throws -> Bool {
        guard position < end else { throw Self.damage("it ends early") }
        let b = bytes[position]
        position += 1
        guard b <= 1 else { throw Self.damage("a flag of \(b)") }
        return b == 1
    }

    mutating func text() throws -> String {
        let n = try int()
        guard n >= 0, n <= end - position else { throw Self.damage("a string of \(n) bytes") }
        defer { position += n }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[position..<(position + n)]), as: UTF8.self)
    }
}

/// The columns of one row a fix of raw/fixes.csv gave a new value, and the fix's line: what
/// tells a change a maintainer made from one the sources made.
package struct FixedValue: Sendable, Hashable {
    /// operators, lines or stations, and the row's o_id, l_id or s_id.
    package var table: String
    package var id: Int
    package var columns: [String]
    /// "raw/fixes.csv:3".
    package var fix: String

    package init(table: String, id: Int, columns: [String], fix: String) {
        self.table = table; self.id = id; self.columns = columns; self.fix = fix
    }

    /// One line each, "table<TAB>id<TAB>column,column<TAB>fix", as the staging file keeps them.
    package static func text(_ values: [FixedValue]) -> String {
        values.map { "\($0.table)\t\($0.id)\t\($0.columns.joined(separator: ","))\t\($0.fix)" }.joined(separator: "\n")
    }

    package static func parse(_ text: String?) -> [FixedValue] {
        (text ?? "").split(separator: "\n").compactMap { line in
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4, let id = Int(parts[1]) else { return nil }
            return FixedValue(table: parts[0], id: id, columns: parts[2].split(separator: ",").map(String.init), fix: parts[3])
        }
    }
}
