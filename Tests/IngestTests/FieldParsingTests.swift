import Foundation
import XCTest
import StationModel
@testable import Ingest

/// The byte-level helpers the readers use instead of Foundation and String
/// parsing must read exactly what the slower standard ways read.
final class FieldParsingTests: XCTestCase {
    /// A seeded generator, so every run tests the same inputs.
    struct Seeded {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
    }

    func withBytes<R>(_ s: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        Array(s.utf8).withUnsafeBufferPointer(body)
    }

    func testMicroDegreesFromBytesMatchesMicroDegreesParse() {
        var samples = ["35.681391", "139.766103", "-35.5", "+35.5", "35", "35.", ".5", ".", "", "-", "+", "1000.0", "1001",
                       "35.6813915", "35.6813914", "35.68139149999", "35.1.2", "3e5", " 35.1", "35.1 ", "０.5", "0.0000005",
                       "-0.0000005", "999.9999995", "12.34567890123"]
        var random = Seeded(state: 7)
        let alphabet = Array("0123456789.-+ e")
        for _ in 0..<3000 {
            let length = Int(random.next() % 14)
            samples.append(String((0..<length).map { _ in random.pick(alphabet) }))
        }
        for s in samples {
            XCTAssertEqual(withBytes(s, FieldBytes.parseMicroDegrees), MicroDegrees.parse(s), "'\(s)'")
        }
    }

    func testIntFromBytesMatchesInt() {
        var samples = ["0", "-0", "+7", "-", "+", "", "12a", "a12", "1_000", "9223372036854775807", "9223372036854775808",
                       "-9223372036854775808", "-9223372036854775809", "00012", " 1", "1 ", "１２"]
        var random = Seeded(state: 11)
        let alphabet = Array("0123456789-+ x")
        for _ in 0..<3000 {
            let length = Int(random.next() % 22)
            samples.append(String((0..<length).map { _ in random.pick(alphabet) }))
        }
        for s in samples {
            XCTAssertEqual(withBytes(s, FieldBytes.parseInt), Int(s), "'\(s)'")
        }
        // The readers' fast path (CSVFields.plainDecimal) reads what it accepts as Int does, and
        // leaves the rest (signs, spaces, 19 digits) to the general parser.
        let plain = samples.filter { !$0.isEmpty && !$0.contains(",") && !$0.contains("\"") }
        let fields = try! CSVReader.scan(Data(("v\n" + plain.joined(separator: "\n") + "\n").utf8), file: "t.csv")
        XCTAssertEqual(fields.count, plain.count)
        for (r, s) in plain.enumerated() {
            if let v = fields.plainDecimal(r, 0) { XCTAssertEqual(v, Int(s), "'\(s)'") }
            if let v = Int(s), s.utf8.count <= 18, s.first != "+" { XCTAssertEqual(fields.plainDecimal(r, 0), v, "'\(s)'") }
        }
    }

    func testTrimmingMatchesUnicodeWhiteSpace() {
        let spaces = [" ", "\t", "\n", "\r", "\u{3000}", "\u{00A0}", "\u{2009}", "\u{205F}", "\u{1680}", "\u{85}"]
        let words = ["", "東京", "a b", "えき ", "x\u{3000}y", "駅", "é", "𠮷野家"]
        var random = Seeded(state: 3)
        for _ in 0..<2000 {
            let s = (0..<Int(random.next() % 3)).map { _ in random.pick(spaces) }.joined() + random.pick(words)
                + (0..<Int(random.next() % 3)).map { _ in random.pick(spaces) }.joined()
            let expected: String = {
                let scalars = Array(s.unicodeScalars)
                var lo = 0, hi = scalars.count
                while lo < hi, scalars[lo].properties.isWhitespace { lo += 1 }
                while hi > lo, scalars[hi - 1].properties.isWhitespace { hi -= 1 }
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[lo..<hi])
                return String(view)
            }()
            XCTAssertEqual(withBytes(s) { String(decoding: FieldBytes.trimmedBytes($0), as: UTF8.self) }, expected, "'\(s)'")
        }
    }

    func testContainsText() {
        XCTAssertTrue(FieldBytes.containsText("東海道新幹線", "新幹線"))
        XCTAssertTrue(FieldBytes.containsText("新幹線", "新幹線"))
        XCTAssertFalse(FieldBytes.containsText("新幹", "新幹線"))
        XCTAssertFalse(FieldBytes.containsText("山手線", "新幹線"))
        XCTAssertTrue(FieldBytes.containsText("abc", ""))
        XCTAssertTrue(FieldBytes.containsText("aab", "ab"))
    }

    func testKeysAndIDTable() {
        XCTAssertEqual(NativeCSVReader.stationKey(1130101), "s:1130101")
        XCTAssertEqual(NativeCSVReader.operatorKey(-4), "o:-4")
        XCTAssertEqual(NativeCSVReader.lineKey(0), "l:0")
        XCTAssertEqual(NativeCSVReader.lineKey(Int.min), "l:\(Int.min)")
        XCTAssertEqual(EkidataReader.stationKey(companyCD: 2, groupCD: 1130101, shinkansen: true), "ekidata:station:2:1130101:shinkansen")
        XCTAssertEqual(EkidataReader.matchKey(100401), "code:100401")

        var table = IDTable()
        var reference: [Pair: Int] = [:]
        var random = Seeded(state: 5)
        for k in 0..<20_000 {
            let a = Int(truncatingIfNeeded: random.next() % 5000) - 2500, b = Int(random.next() % 3)
            let earlier = table.insertIfAbsent(a, b, value: k)
            XCTAssertEqual(earlier, reference[Pair(a: a, b: b)])
            if earlier == nil { reference[Pair(a: a, b: b)] = k }
        }
        XCTAssertEqual(table.count, reference.count)
        for (pair, value) in reference { XCTAssertEqual(table.value(pair.a, pair.b), value) }
        XCTAssertNil(table.value(99_999))
    }

    /// Small IDs go to the direct array, which grows, then moves into hash slots
    /// at the first key it cannot hold; every answer must stay the same throughout.
    func testIDTableDirectThenHashed() {
        for capacity in [16, 1000] {
            var table = IDTable(capacity: capacity)
            var reference: [Pair: Int] = [:]
            var random = Seeded(state: UInt64(capacity))
            func insert(_ a: Int, _ b: Int, _ value: Int) {
                let earlier = table.insertIfAbsent(a, b, value: value)
                XCTAssertEqual(earlier, reference[Pair(a: a, b: b)], "(\(a), \(b))")
                if earlier == nil { reference[Pair(a: a, b: b)] = value }
            }
            func check() {
                XCTAssertEqual(table.count, reference.count)
                for (pair, value) in reference { XCTAssertEqual(table.value(pair.a, pair.b), value) }
                for a in [-1, 3 * capacity + 7, 1 << 40] where reference[Pair(a: a, b: 0)] == nil { XCTAssertNil(table.value(a)) }
                XCTAssertNil(table.value(1, 99))
            }
            // IDs counting up past twice the capacity (direct, growing), some twice.
            for k in 0..<(3 * capacity) { insert(Int(random.next() % UInt64(3 * capacity)), 0, k) }
            check()
            insert(0, 0, 12345)      // zero is an ID like any other
            check()
            insert(1 << 40, 0, 7)    // cannot be held directly: hashed from here on
            check()
            for k in 0..<capacity { insert(Int(random.next() % 50), Int(random.next() % 3), k) }
            insert(-5, 0, 1)
            check()
        }
    }

    /// Each station's first line is kept apart from its further ones; a pair
    /// given again must be found whichever of the two holds it.
    func testStationLinePairs() {
        var pairs = StationLinePairs(stations: 100)
        var reference: [Pair: Int] = [:]
        var random = Seeded(state: 11)
        for k in 0..<3000 {
            let line = Int(random.next() % 6), station = Int(random.next() % 400) - (k % 7 == 0 ? 1_000_000 : 0)
            let earlier = pairs.insertIfAbsent(line: line, station: station, value: k)
            XCTAssertEqual(earlier, reference[Pair(a: line, b: station)], "(\(line), \(station))")
            if earlier == nil { reference[Pair(a: line, b: station)] = k }
        }
        XCTAssertGreaterThan(reference.count, 1000)
    }

    struct Pair: Hashable { var a: Int; var b: Int }
}
