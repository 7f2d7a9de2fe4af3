import Foundation
import XCTest
import Ingest
import StationCore

/// The CSV table's typed fields, which the readers use for every number, must
/// read exactly what the standard ways read.
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

    /// One sample per record, in the second column (the first numbers the record, so
    /// that an empty sample is still a record and not a blank line).
    func table(_ samples: [String]) throws -> CSVTable {
        let text = "n,v\n" + samples.enumerated().map { "\($0.offset),\($0.element)\n" }.joined()
        let t = try CSVReader.parse(text, file: "t.csv")
        XCTAssertEqual(t.count, samples.count)
        return t
    }

    /// Without the blanks (space, tab) that a number's field may have around it.
    func withoutBlanks(_ s: String) -> String {
        String(s.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    func testMicroDegreesFieldsMatchMicroDegreesParse() throws {
        var samples = ["35.681391", "139.766103", "-35.5", "+35.5", "35", "35.", ".5", ".", "", "-", "+", "1000.0", "1001",
                       "35.6813915", "35.6813914", "35.68139149999", "35.1.2", "3e5", " 35.1", "35.1 ", "０.5", "0.0000005",
                       "-0.0000005", "999.9999995", "12.34567890123"]
        var random = Seeded(state: 7)
        let alphabet = Array("0123456789.-+ e")
        for _ in 0..<3000 {
            let length = Int(random.next() % 14)
            samples.append(String((0..<length).map { _ in random.pick(alphabet) }))
        }
        let t = try table(samples)
        let column = t.column("v")
        var problems = DiagnosticCollector(limit: 10_000)
        for (r, s) in samples.enumerated() {
            XCTAssertEqual(t.microDegrees(r, column, &problems), MicroDegrees.parse(withoutBlanks(s)), "'\(s)'")
        }
        XCTAssertEqual(problems.diagnostics.count, samples.filter { MicroDegrees.parse(withoutBlanks($0)) == nil }.count)
        // Rounded half away from zero on the 7th decimal, never through a Double.
        XCTAssertEqual(MicroDegrees.parse("35.6813915"), 35_681_392)
        XCTAssertEqual(MicroDegrees.parse("35.68139149999"), 35_681_391)
        XCTAssertEqual(MicroDegrees.parse("-0.0000005"), -1)
        XCTAssertEqual(MicroDegrees.parse(" 35.1"), nil)
        XCTAssertEqual(t.microDegrees(samples.firstIndex(of: " 35.1")!, column, &problems), 35_100_000)
        var one = DiagnosticCollector()
        XCTAssertNil(t.microDegrees(samples.firstIndex(of: "3e5")!, column, &one))
        XCTAssertEqual(one.diagnostics.map(\.description), ["t.csv:\(samples.firstIndex(of: "3e5")! + 2): v: expected decimal degrees, found '3e5'"])
    }

    func testIntFieldsMatchInt() throws {
        var samples = ["0", "-0", "+7", "-", "+", "", "12a", "a12", "1_000", "9223372036854775807", "9223372036854775808",
                       "-9223372036854775808", "-9223372036854775809", "00012", " 1", "1 ", "１２"]
        var random = Seeded(state: 11)
        let alphabet = Array("0123456789-+ x")
        for _ in 0..<3000 {
            let length = Int(random.next() % 22)
            samples.append(String((0..<length).map { _ in random.pick(alphabet) }))
        }
        let t = try table(samples)
        let column = t.column("v")
        var problems = DiagnosticCollector(limit: 10_000)
        for (r, s) in samples.enumerated() {
            // Blanks around a number are allowed; anything else reads as Int reads it.
            let expected = Int(withoutBlanks(s))
            XCTAssertEqual(t.lenientInt(r, column), expected, "'\(s)'")
            XCTAssertEqual(t.int(r, column, &problems), expected, "'\(s)'")
            let optional = t.optionalInt(r, column, &problems)
            if withoutBlanks(s).isEmpty {
                XCTAssertEqual(optional, .some(nil), "'\(s)'")
            } else {
                XCTAssertEqual(optional, expected.map { .some($0) }, "'\(s)'")
            }
        }
        XCTAssertEqual(t.lenientInt(samples.firstIndex(of: "9223372036854775807")!, column), Int.max)
        XCTAssertNil(t.lenientInt(samples.firstIndex(of: "9223372036854775808")!, column), "an overflow is no integer")
        XCTAssertEqual(t.lenientInt(samples.firstIndex(of: "-9223372036854775808")!, column), Int.min)
    }

    func testContainsText() {
        XCTAssertTrue(containsText("東海道新幹線", "新幹線"))
        XCTAssertTrue(containsText("新幹線", "新幹線"))
        XCTAssertFalse(containsText("新幹", "新幹線"))
        XCTAssertFalse(containsText("山手線", "新幹線"))
        XCTAssertTrue(containsText("abc", ""))
        XCTAssertTrue(containsText("aab", "ab"))
    }

    func testKeys() {
        XCTAssertEqual(NativeCSVReader.stationKey(1130101), "s:1130101")
        XCTAssertEqual(NativeCSVReader.operatorKey(-4), "o:-4")
        XCTAssertEqual(NativeCSVReader.lineKey(0), "l:0")
        XCTAssertEqual(NativeCSVReader.lineKey(Int.min), "l:\(Int.min)")
        XCTAssertEqual(EkidataReader.stationKey(companyCD: 2, groupCD: 1130101, shinkansen: true), "ekidata:station:2:1130101:shinkansen")
        XCTAssertEqual(EkidataReader.matchKey(100401), "code:100401")
    }
}
