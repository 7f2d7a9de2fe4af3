import Foundation
import XCTest
import StationCore

/// The staging file's own binary form: what goes in comes back, the same
/// network gives the same bytes, and a damaged or foreign file is an error
/// that names it, never wrong rows.
final class StagingFileTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = try temporaryFolder("StagingFileTests")
    }

    override func tearDownWithError() throws { Files.remove(folder) }

    private func path(_ name: String) -> String { joinPath(folder, name) }

    /// Extremes of every column: numbers at both ends of Int, empty and
    /// multi-byte text, a quote and a line break, and a string of several MB.
    private func network() -> RailNetwork {
        var n = RailNetwork()
        n.operators = [Operator(id: 1, name: "JR東日本", type: 1, enabled: true), Operator(id: Int.max, name: "", type: 10, enabled: false)]
        n.lines = [Line(id: -5, name: "山手線", operatorID: 1, enabled: true, type: 0),
                   Line(id: 11, name: "a \"quoted\"\nline", operatorID: Int.max, enabled: false, type: nil),
                   Line(id: 12, name: "x", operatorID: 1, enabled: true, type: Int.max - 1)]
        n.stations = (0..<3000).map { i in
            Station(id: i * 7919 - 100, name: "駅\(i)", yomi: i % 2 == 0 ? "えき" : "", wiki: "", pref: 1 + i % 47,
                    address: i == 1500 ? String(repeating: "長い住所", count: 120_000) : "東京都千代田区\(i)",
                    lat: 24_000_000 + i * 1000, lng: i == 7 ? Int.min : 122_000_000 + i, operatorID: 1, enabled: i % 3 != 0)
        }
        n.stationLines = (0..<3000).map { StationLine(lineID: $0 % 2 == 0 ? -5 : 11, stationID: $0 * 7919 - 100, sort: $0) }
        n.sortByKey()
        return n
    }

    func testRoundTripAndSameBytes() throws {
        let n = network()
        let meta = ["source:b.xml": "def", "source:a.csv": "abc", "": ""]
        try StagingFile.write(Staging(network: n, meta: meta), to: path("a.bin"))
        let read = try StagingFile.read(from: path("a.bin"))
        XCTAssertEqual(read.network, n)
        XCTAssertEqual(read.meta, meta)
        XCTAssertEqual(try Files.read(path("a.bin")), StagingFile.encode(Staging(network: n, meta: meta)))
        // The same network, handed over in another order, gives the same bytes.
        var shuffled = n
        shuffled.stations.reverse(); shuffled.stationLines.reverse(); shuffled.operators.reverse(); shuffled.lines.reverse()
        try StagingFile.write(Staging(network: shuffled, meta: meta), to: path("b.bin"))
        XCTAssertEqual(try Files.read(path("a.bin")), try Files.read(path("b.bin")))
        // No temporary file left beside it.
        XCTAssertEqual(Files.names(in: folder), ["a.bin", "b.bin"])
    }

    func testEmptyNetwork() throws {
        try StagingFile.write(Staging(network: RailNetwork()), to: path("e.bin"))
        let read = try StagingFile.read(from: path("e.bin"))
        XCTAssertEqual(read.network, RailNetwork())
        XCTAssertEqual(read.meta, [:])
    }

    private func readError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String {
        let p = path("bad.bin")
        XCTAssertNoThrow(try Files.write(bytes, to: p), file: file, line: line)
        do {
            _ = try StagingFile.read(from: p)
            XCTFail("expected an error", file: file, line: line)
        } catch let e as StationError where e.kind == .damaged {
            return e.message
        } catch {
            XCTFail("expected a damaged file, got \(error)", file: file, line: line)
        }
        return ""
    }

    /// `body` (everything before the CRC) with its right CRC-32, so the reader
    /// gets past the checksum to the rows.
    private func withCRC(_ body: [UInt8]) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in body {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        return body + (0..<4).map { UInt8(truncatingIfNeeded: crc >> UInt32(8 * $0)) }
    }

    func testDamagedFilesAreErrorsNamingTheFile() throws {
        try StagingFile.write(Staging(network: network(), meta: ["k": "v"]), to: path("good.bin"))
        let good = try Files.read(path("good.bin"))
        let p = path("bad.bin")
        // The CRC helper agrees with the writer's.
        XCTAssertEqual(withCRC(Array(good.dropLast(4))), good)

        // Cut anywhere: at the start, in the counts, in a row, in the long string, just before the CRC.
        for cut in [0, 10, 19, 21, 200, good.count / 2, good.count - 5, good.count - 1] {
            let message = readError(Array(good[..<cut]))
            XCTAssertTrue(message.contains(p), message)
            // Where the cut falls decides which problem shows first (the last 4 bytes are taken for the CRC).
            XCTAssertTrue(message.hasPrefix("the staging file \(p) is damaged") || message.hasPrefix("\(p) is not a stationdb staging file"),
                          "cut at \(cut): \(message)")
        }
        // Cut, with a CRC that matches what is left: the rows themselves end early.
        for cut in [25, 200, good.count / 2, good.count - 5] {
            let message = readError(withCRC(Array(good[..<cut])))
            XCTAssertTrue(message.hasPrefix("the staging file \(p) is damaged ("), "cut at \(cut): \(message)")
            XCTAssertTrue(message.hasSuffix("run `stationdb ingest` again to rewrite it"), message)
            XCTAssertFalse(message.contains("CRC-32"), "cut at \(cut): \(message)")
        }
        // One byte changed in a row, in the long string and in the CRC itself.
        for offset in [100, good.count / 2, good.count - 2] {
            var bad = good
            bad[offset] ^= 0x01
            let message = readError(bad)
            XCTAssertEqual(message, "the staging file \(p) is damaged (its CRC-32 does not match); run `stationdb ingest` again to rewrite it",
                           "byte \(offset)")
        }
        // Bytes after the last row (under a matching CRC).
        XCTAssertEqual(readError(withCRC(Array(good.dropLast(4)) + [0, 0, 0])),
                       "the staging file \(p) is damaged (3 bytes after the last row); run `stationdb ingest` again to rewrite it")
        // A string longer than the file: counts 0 meta, 1 operator; o_id 1, then a name of ~8 million bytes.
        var header = Array(good[..<19])
        header += [0, 2, 0, 0, 0, 2, 0xFE, 0xFF, 0xFF, 0x0F]
        XCTAssertTrue(readError(header + [0, 0, 0, 0]).contains("is damaged"))
        XCTAssertEqual(readError(withCRC(header)),
                       "the staging file \(p) is damaged (a string of 16777215 bytes); run `stationdb ingest` again to rewrite it")
        // A row count larger than the bytes left.
        XCTAssertEqual(readError(withCRC(Array(good[..<19]) + [0, 0xFE, 0xFF, 0x0F, 0, 0, 0])),
                       "the staging file \(p) is damaged (a row count of 131071); run `stationdb ingest` again to rewrite it")
        // A flag that is neither 0 nor 1: one operator (o_id 1, name "", type 1, flag 2).
        XCTAssertEqual(readError(withCRC(Array(good[..<19]) + [0, 2, 0, 0, 0, 2, 0, 2, 2])),
                       "the staging file \(p) is damaged (a flag of 2); run `stationdb ingest` again to rewrite it")
    }

    func testForeignFiles() throws {
        let p = path("bad.bin")
        // The SQLite staging file of earlier versions.
        XCTAssertEqual(readError(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 100)),
                       "\(p) is not a stationdb staging file; run `stationdb ingest` to write one")
        XCTAssertEqual(readError(StagingFile.magic + [2] + [UInt8](repeating: 0, count: 20)),
                       "the staging file \(p) is of format 2, this stationdb reads format 1; run `stationdb ingest` again to rewrite it")
        XCTAssertThrowsError(try StagingFile.read(from: path("missing.bin"))) {
            // A path that names nothing is what was given: bad input (exit 2), as for diff and verify.
            XCTAssertEqual($0.station(.badInput)?.message, "no staging file there; run `stationdb ingest` first, or name the one it wrote")
        }
        // A folder where a file belongs is the user's to fix: bad input (exit 2), not an I/O failure.
        XCTAssertThrowsError(try StagingFile.read(from: folder)) {
            XCTAssertEqual($0.station(.badInput)?.description, "error: \(self.folder!): a folder, not a file; expected a file here")
        }
    }
}
