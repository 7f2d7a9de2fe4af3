import Foundation
import XCTest
@testable import StationModel

/// The staging file's own binary form: what goes in comes back, the same
/// network gives the same bytes, and a damaged or foreign file is an error
/// that names it, never wrong rows.
final class StagingFileTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("StagingFileTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func path(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }

    /// Extremes of every column: numbers at both ends of Int, empty and
    /// multi-byte text, a quote and a line break, and a string longer than the
    /// reader's 1 MB buffer (it must grow it rather than fail).
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
        XCTAssertEqual(try StagingFile.readStationPoints(from: path("a.bin")), StationPoints(stations: n.stations))
        // The same network, handed over in another order, gives the same bytes.
        var shuffled = n
        shuffled.stations.reverse(); shuffled.stationLines.reverse()
        try StagingFile.write(Staging(network: shuffled, meta: meta), to: path("b.bin"))
        XCTAssertEqual(FileManager.default.contents(atPath: path("a.bin")), FileManager.default.contents(atPath: path("b.bin")))
        // No temporary file left beside it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder).sorted(), ["a.bin", "b.bin"])
    }

    func testEmptyNetwork() throws {
        try StagingFile.write(Staging(network: RailNetwork()), to: path("e.bin"))
        let read = try StagingFile.read(from: path("e.bin"))
        XCTAssertEqual(read.network, RailNetwork())
        XCTAssertEqual(read.meta, [:])
        XCTAssertEqual(try StagingFile.readStationPoints(from: path("e.bin")).count, 0)
    }

    private func readError(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> String {
        let p = path("bad.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: p, contents: Data(bytes)))
        var messages: [String] = []
        for read in [{ _ = try StagingFile.read(from: p) }, { _ = try StagingFile.readStationPoints(from: p) }] {
            do {
                try read()
                XCTFail("expected an error", file: file, line: line)
            } catch let e as EnvironmentError {
                messages.append(e.message)
            } catch {
                XCTFail("expected an EnvironmentError, got \(error)", file: file, line: line)
            }
        }
        XCTAssertEqual(messages.count, 2, file: file, line: line)
        return messages.first ?? ""
    }

    func testDamagedFilesAreErrorsNamingTheFile() throws {
        try StagingFile.write(Staging(network: network(), meta: ["k": "v"]), to: path("good.bin"))
        let good = [UInt8](FileManager.default.contents(atPath: path("good.bin"))!)
        let p = path("bad.bin")

        // Cut anywhere: at the start, in the counts, in a row, in the long string, just before the CRC.
        for cut in [0, 10, 19, 21, 200, good.count / 2, good.count - 5, good.count - 1] {
            let message = readError(Array(good[..<cut]))
            XCTAssertTrue(message.contains(p), message)
            // Where the cut falls decides which problem shows first (the last 4 bytes are taken for the CRC).
            XCTAssertTrue(message.hasPrefix("the staging file \(p) is damaged") || message.hasPrefix("\(p) is not a stationdb staging file"),
                          "cut at \(cut): \(message)")
        }
        // One byte changed in a row, in the long string and in the CRC itself.
        for offset in [100, good.count / 2, good.count - 2] {
            var bad = good
            bad[offset] ^= 0x01
            let message = readError(bad)
            XCTAssertTrue(message.hasPrefix("the staging file \(p) is damaged"), "byte \(offset): \(message)")
            XCTAssertTrue(message.hasSuffix("run `stationdb ingest` again to rewrite it"), message)
        }
        // Bytes after the last row.
        var longer = good
        longer.insert(contentsOf: [0, 0, 0], at: good.count - 4)
        XCTAssertTrue(readError(longer).contains("damaged"))
        // A string longer than the file.
        var header = Array(good[..<19])
        header += [0, 2, 0, 0, 0, 2, 0xFE, 0xFF, 0xFF, 0x0F]
        XCTAssertTrue(readError(header + [0, 0, 0, 0]).contains("is damaged"))
    }

    func testForeignFiles() throws {
        let p = path("bad.bin")
        // The SQLite staging file of earlier versions.
        XCTAssertEqual(readError(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 100)),
                       "\(p) is not a stationdb staging file; run `stationdb ingest` to write one")
        XCTAssertEqual(readError(StagingFile.magic + [2] + [UInt8](repeating: 0, count: 20)),
                       "the staging file \(p) is of format 2, this stationdb reads format 1; run `stationdb ingest` again to rewrite it")
        XCTAssertThrowsError(try StagingFile.read(from: path("missing.bin"))) {
            XCTAssertEqual(($0 as? EnvironmentError)?.message, "no staging file at \(path("missing.bin")); run `stationdb ingest` first")
        }
        XCTAssertThrowsError(try StagingFile.read(from: folder)) {
            XCTAssertEqual(($0 as? EnvironmentError)?.message, "cannot read the staging file \(self.folder!): not a file")
        }
    }

    /// The one writer behind the staging file, the registry, weights and synth:
    /// a failure inside leaves the old file and no temporary one; large and small
    /// appends come out in order, past the 1 MB buffer.
    func testAtomicWriterKeepsTheOldFileOnFailure() throws {
        let p = path("w.txt")
        try AtomicFile.write(to: p) { $0.append(utf8: "old\n") }
        struct Stop: Error {}
        XCTAssertThrowsError(try AtomicFile.write(to: p) { file in file.append(utf8: "half"); throw Stop() })
        XCTAssertThrowsError(try AtomicFile.write(to: p, beforeCommit: { throw Stop() }) { $0.append(utf8: "new") })
        XCTAssertEqual(try String(contentsOfFile: p, encoding: .utf8), "old\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), ["w.txt"])

        let big = [UInt8](repeating: 7, count: 3 << 20)
        try AtomicFile.write(to: p) { file in
            file.append(decimal: -42); file.append(big); file.append(utf8: "end")
        }
        XCTAssertEqual(FileManager.default.contents(atPath: p), Data(Array("-42".utf8) + big + Array("end".utf8)))
    }
}
