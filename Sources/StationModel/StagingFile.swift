import CZlib
import FoundationEssentials
import Glibc

// The staging file is where Ingest hands over to Priority and BuildDB: the
// bundle's tables (no weights yet) and the source digests, in a compact binary
// form. It is written to a temporary name and renamed.

public struct Staging: Sendable {
    public var network: RailNetwork
    /// Key-ordered facts about the run that made it, e.g. "source:raw/ekidata/station.csv" -> sha256.
    public var meta: [String: String]

    public init(network: RailNetwork, meta: [String: String] = [:]) {
        self.network = network; self.meta = meta
    }
}

public enum StagingFile {
    public static let defaultName = "staging.bin"

    /// The file starts with these bytes, then the format's number.
    static let magic = Array("stationdb staging\n".utf8)
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
    // Not SQLite, although it holds the bundle's tables: this file is read back
    // whole by the next stage and never queried, and writing it through SQLite's
    // b-trees was a fifth of the national ingest, reading it back as much of the
    // build. Inspect one with `stationdb build --staging FILE --dist DIR`
    // (or read it with `StagingFile.read`).

    /// Writes to a temporary file, runs `beforeCommit` (e.g. writing a file
    /// that must be older than this one) and renames it into place; a failure
    /// anywhere leaves the previous file as it was.
    public static func write(_ staging: Staging, to path: String, beforeCommit: () throws -> Void = {}) throws {
        // Sorted here only when it is not already (as Ingest hands it over): sorting
        // in place would first copy every array the caller still holds.
        var network = staging.network
        if !network.isSortedByKey { network.sortByKey() }
        try AtomicFile.write(to: path, checksummed: true, beforeCommit: beforeCommit) { out in
            out.append(magic); out.append(format)
            for n in [staging.meta.count, network.operators.count, network.lines.count, network.stations.count, network.stationLines.count] {
                out.append(varint: n)
            }
            for key in staging.meta.keys.sorted() { out.text(key); out.text(staging.meta[key]!) }
            for o in network.operators {
                out.append(varint: o.id); out.text(o.name); out.append(varint: o.type); out.flag(o.enabled)
            }
            for l in network.lines {
                out.append(varint: l.id); out.text(l.name); out.append(varint: l.operatorID); out.flag(l.enabled)
                out.append(varint: l.type.map { $0 + 1 } ?? 0)
            }
            for s in network.stations {
                out.append(varint: s.id); out.text(s.name); out.text(s.yomi); out.text(s.wiki); out.append(varint: s.pref)
                out.text(s.address); out.append(varint: s.lat); out.append(varint: s.lng); out.append(varint: s.operatorID)
                out.flag(s.enabled)
            }
            for x in network.stationLines {
                out.append(varint: x.lineID); out.append(varint: x.stationID); out.append(varint: x.sort)
            }
            out.appendCRC32()
        }
    }

    public static func read(from path: String) throws -> Staging {
        var file = try open(path)
        let counts = try file.counts()
        var staging = Staging(network: RailNetwork())
        for _ in 0..<counts.meta { let key = try file.text(); staging.meta[key] = try file.text() }
        var n = RailNetwork()
        n.operators.reserveCapacity(file.plausible(counts.operators, rowBytes: 4))
        for _ in 0..<counts.operators {
            n.operators.append(Operator(id: try file.int(), name: try file.text(), type: try file.int(), enabled: try file.flag()))
        }
        n.lines.reserveCapacity(file.plausible(counts.lines, rowBytes: 5))
        for _ in 0..<counts.lines {
            let id = try file.int(), name = try file.text(), o = try file.int(), enabled = try file.flag(), type = try file.int()
            n.lines.append(Line(id: id, name: name, operatorID: o, enabled: enabled, type: type == 0 ? nil : type - 1))
        }
        n.stations.reserveCapacity(file.plausible(counts.stations, rowBytes: 10))
        for _ in 0..<counts.stations {
            n.stations.append(Station(id: try file.int(), name: try file.text(), yomi: try file.text(), wiki: try file.text(),
                                      pref: try file.int(), address: try file.text(), lat: try file.int(), lng: try file.int(),
                                      operatorID: try file.int(), enabled: try file.flag()))
        }
        n.stationLines.reserveCapacity(file.plausible(counts.stationLines, rowBytes: 3))
        for _ in 0..<counts.stationLines {
            n.stationLines.append(StationLine(lineID: try file.int(), stationID: try file.int(), sort: try file.int()))
        }
        try file.finish()
        staging.network = n
        return staging
    }

    /// Opens a staging file and checks its first bytes.
    static func open(_ path: String) throws -> StagingDecoder {
        var file = try StagingDecoder(path: path)
        try file.expectHeader()
        return file
    }
}

private extension FileWriter {
    /// A string: its UTF-8 length, then its bytes.
    mutating func text(_ s: String) {
        var s = s
        s.withUTF8 { b in
            append(varint: b.count)
            append(UnsafeRawBufferPointer(b))
        }
    }

    mutating func flag(_ v: Bool) { append(v ? 1 : 0) }
}

/// Reads a staging file through a buffer, checking as it goes that the bytes
/// make sense and at the end that the CRC-32 matches: a truncated, damaged or
/// foreign file is an error naming the file, never a crash or wrong rows.
struct StagingDecoder {
    private let fd: Int32
    let path: String
    private let fileSize: Int
    private var buffer: [UInt8]
    private var pos = 0, end = 0
    /// File offset of buffer[0].
    private var base = 0
    /// CRC-32 of the file's bytes before buffer[0].
    private var crc = crc32(0, nil, 0)
    private static let chunk = 1 << 20

    init(path: String) throws {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { throw EnvironmentError("no staging file at \(path); run `stationdb ingest` first") }
            throw EnvironmentError("cannot read the staging file \(path): \(String(cString: strerror(errno)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            Glibc.close(fd)
            throw EnvironmentError("cannot read the staging file \(path): not a file")
        }
        self.fd = fd
        self.path = path
        fileSize = Int(info.st_size)
        buffer = [UInt8](repeating: 0, count: min(Self.chunk, max(fileSize, 16)))
    }

    /// Closes the file; every way out of a read goes through `finish` or this.
    func close() { Glibc.close(fd) }

    private func damaged(_ what: String) -> EnvironmentError {
        close()
        return EnvironmentError("the staging file \(path) is damaged (\(what)); run `stationdb ingest` again to rewrite it")
    }

    /// Bytes left in the file before the CRC.
    private var remaining: Int { fileSize - 4 - (base + pos) }

    /// At least `n` bytes in the buffer from `pos`, or an error if the file is shorter.
    private mutating func need(_ n: Int) throws {
        if end - pos >= n { return }
        guard n <= remaining else { throw damaged("it ends early") }
        // Moves the unread tail to the front and reads behind it.
        buffer.withUnsafeBufferPointer { crc = crc32(crc, $0.baseAddress, uInt(pos)) }
        let tail = end - pos
        if tail > 0 { buffer.withUnsafeMutableBufferPointer { b in _ = memmove(b.baseAddress!, b.baseAddress! + pos, tail) } }
        base += pos; pos = 0; end = tail
        if buffer.count < n + 4 { buffer.append(contentsOf: repeatElement(0, count: n + 4 - buffer.count)) }
        // Never the CRC's bytes: a row that would run into them is cut short.
        let want = min(buffer.count, fileSize - 4 - base)
        while end < want {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + end, want - end) }
            if got < 0, errno == EINTR { continue }
            if got < 0 { let e = String(cString: strerror(errno)); close(); throw EnvironmentError("cannot read the staging file \(path): \(e)") }
            if got == 0 { break }
            end += got
        }
        guard end >= n else { throw damaged("it ends early") }
    }

    mutating func expectHeader() throws {
        let n = StagingFile.magic.count + 1
        guard fileSize >= n + 4 else { throw notStaging() }
        try need(n)
        guard buffer[0..<StagingFile.magic.count].elementsEqual(StagingFile.magic) else { throw notStaging() }
        guard buffer[n - 1] == StagingFile.format else {
            close()
            throw EnvironmentError("the staging file \(path) is of format \(buffer[n - 1]), this stationdb reads format \(StagingFile.format); run `stationdb ingest` again to rewrite it")
        }
        pos = n
    }

    private func notStaging() -> EnvironmentError {
        close()
        return EnvironmentError("\(path) is not a stationdb staging file; run `stationdb ingest` to write one")
    }

    @inline(__always) mutating func int() throws -> Int {
        if end - pos < 10 { try need(min(10, max(remaining, 1))) }
        var z: UInt64 = 0, shift: UInt64 = 0
        while true {
            guard pos < end, shift < 64 else { throw damaged("a number runs on") }
            let b = buffer[pos]; pos += 1
            z |= UInt64(b & 0x7F) << shift
            if b < 0x80 { break }
            shift += 7
        }
        return Int(Int64(bitPattern: z >> 1) ^ -Int64(bitPattern: z & 1))
    }

    @inline(__always) mutating func flag() throws -> Bool {
        try need(1)
        let b = buffer[pos]; pos += 1
        guard b <= 1 else { throw damaged("a flag of \(b)") }
        return b == 1
    }

    @inline(__always) mutating func text() throws -> String {
        let n = try int()
        guard n >= 0, n <= remaining else { throw damaged("a string of \(n) bytes") }
        if n == 0 { return "" }
        try need(n)
        defer { pos += n }
        return buffer.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[pos..<(pos + n)]), as: UTF8.self) }
    }

    /// Passes over a string without making it.
    mutating func skipText() throws {
        let n = try int()
        guard n >= 0, n <= remaining else { throw damaged("a string of \(n) bytes") }
        try need(n)
        pos += n
    }

    mutating func counts() throws -> (meta: Int, operators: Int, lines: Int, stations: Int, stationLines: Int) {
        let c = (try int(), try int(), try int(), try int(), try int())
        guard [c.0, c.1, c.2, c.3, c.4].allSatisfy({ $0 >= 0 }) else { throw damaged("a negative row count") }
        return c
    }

    /// `count` rows, capped by what the bytes left could hold, so that a damaged
    /// count fails at the end of the bytes rather than reserving terabytes.
    func plausible(_ count: Int, rowBytes: Int) -> Int { min(count, max(0, remaining) / rowBytes) }

    /// Checks the CRC over the bytes read and, when `skippingRest` (a reader
    /// that needs only the first tables), those not read; closes the file.
    mutating func finish(skippingRest: Bool = false) throws {
        if !skippingRest, remaining != 0 { throw damaged("\(remaining) bytes after the last row") }
        while remaining > 0 {
            let n = min(remaining, Self.chunk)
            try need(n)
            pos += n
        }
        try need(0)
        buffer.withUnsafeBufferPointer { crc = crc32(crc, $0.baseAddress, uInt(pos)) }
        base += pos; pos = 0; end = 0
        var stored = [UInt8](repeating: 0, count: 4)
        let got = stored.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, 4, off_t(base)) }
        guard got == 4 else { throw damaged("it ends early") }
        let expected = UInt32(stored[0]) | UInt32(stored[1]) << 8 | UInt32(stored[2]) << 16 | UInt32(stored[3]) << 24
        guard expected == UInt32(truncatingIfNeeded: crc) else { throw damaged("its CRC-32 does not match") }
        close()
    }
}

/// Every station's final weight (1...13), as Priority writes it for BuildDB:
/// a CSV `s_id,weight`, sorted by s_id.
public enum StationWeightsFile {
    public static let defaultName = "weights.csv"

    public static func write(_ weights: [Int: Int], to path: String) throws {
        var out = "s_id,weight\n"
        out.reserveCapacity(weights.count * 12)
        for id in weights.keys.sorted() { out += "\(id),\(weights[id]!)\n" }
        try AtomicFile.write(out, to: path)
    }

    public static func read(from path: String) throws -> [Int: Int] {
        let fields = try CSVReader.scan(path: path)
        try fields.require(["s_id", "weight"])
        if let weights = plainWeights(fields) { return weights }
        return try readRows(fields.table())
    }

    /// The weights when every s_id and weight is plain decimal digits and every
    /// weight is 1...13 (what Priority writes), parsed from the bytes without a
    /// String per field; nil sends the file through the row reader, which says
    /// what is wrong where.
    static func plainWeights(_ fields: CSVFields) -> [Int: Int]? {
        guard let idColumn = fields.column("s_id"), let weightColumn = fields.column("weight") else { return nil }
        @inline(__always) func digits(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
            guard !b.isEmpty, b.count <= 18 else { return nil }
            var v = 0
            for c in b {
                let d = Int(c) &- 48
                guard d >= 0, d <= 9 else { return nil }
                v = v &* 10 &+ d
            }
            return v
        }
        var weights: [Int: Int] = [:]
        weights.reserveCapacity(fields.count)
        for r in 0..<fields.count {
            guard let id = fields.withField(r, idColumn, digits),
                  let w = fields.withField(r, weightColumn, digits), (1...13).contains(w) else { return nil }
            weights[id] = w
        }
        return weights
    }

    static func readRows(_ table: CSVTable) throws -> [Int: Int] {
        var problems = DiagnosticCollector()
        var weights: [Int: Int] = [:]
        for row in table.rows() {
            if let id = row.int("s_id", &problems), let w = row.int("weight", &problems, range: 1...13) { weights[id] = w }
        }
        try problems.check()
        return weights
    }
}
