import Foundation
import XCTest
@testable import StationModel

/// The helpers that replaced Foundation in the pipeline must give what
/// Foundation gave (paths, numbers, trimming, escaping, reading JSON back):
/// they end up in messages, reports and files compared byte for byte.
final class FoundationEquivalenceTests: XCTestCase {
    func testPathsAsNSString() {
        let pieces = ["a", "b", "/", ".", "..", "x y", "駅", "é"]
        var paths = [""]
        for _ in 0..<4 { paths = paths + paths.flatMap { p in pieces.map { p + $0 } }.filter { !$0.contains("//") } }
        paths += ["/", "//", "a//b", "a//b/", "/a///b", "a///b//c", "a//"]
        for p in Set(paths) {
            let ns = p as NSString
            for c in ["", "x", "/y/", "z.csv"] {
                XCTAssertEqual(Path.appending(p, c), ns.appendingPathComponent(c), "\(p) + \(c)")
            }
            XCTAssertEqual(Path.lastComponent(p), ns.lastPathComponent, p)
            // NSString traps on a relative path of one UTF-16 unit ("a", "a/", "駅").
            var trimmed = Substring(p)
            while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
            if trimmed.utf16.count != 1 {
                XCTAssertEqual(Path.deletingLastComponent(p), ns.deletingLastPathComponent, p)
            }
        }
    }

    func testFixedDecimalsAsStringFormat() {
        let values: [Double] = [0, -0.0, 0.0005, 0.0015, 0.0025, -0.0005, 1.2345, 2.5, 99.9999, -12.3456, 1e300, 5e-324,
                                .infinity, -.infinity, .nan, 0.1 + 0.2, 1_234_567.891]
        for v in values {
            for d in 0...4 {
                XCTAssertEqual(String(fixed: v, decimals: d), String(format: "%.\(d)f", v))
                XCTAssertEqual(String(fixed: v, decimals: d, alwaysSigned: true), String(format: "%+.\(d)f", v))
            }
        }
    }

    /// The integer path must print what printf prints, ties and all: random
    /// doubles of every size it takes, values a hair either side of a tie, and ties.
    func testExactFixedMatchesPrintf() {
        var random = SystemRandomNumberGenerator()
        var values: [Double] = [0.05, 0.15, 0.25, 0.35, 2.675, 1.005, 0.125, 0.375, 1e-7, 4.5e15, 0x1p53 - 1, 9_007_199_254_740_991, -0.04]
        for _ in 0..<20_000 {
            let bits = UInt64.random(in: 0...UInt64.max, using: &random)
            let v = Double(bitPattern: bits)
            if v.isFinite, abs(v) < 0x1p53 { values.append(v) }
            let small = Double(Int.random(in: -2_000_000...2_000_000, using: &random)) / Double([1, 2, 4, 8, 10, 16, 100, 1000, 1024].randomElement(using: &random)!)
            values.append(small)
            values.append(small.nextUp)
            values.append(small.nextDown)
        }
        for v in values {
            for d in [0, 1, 2, 3, 6, 9] {
                XCTAssertEqual(String.exactFixed(v, decimals: d, alwaysSigned: false), String(format: "%.\(d)f", v), "\(v) \(d)")
                XCTAssertEqual(String.exactFixed(v, decimals: d, alwaysSigned: true), String(format: "%+.\(d)f", v), "\(v) \(d)")
            }
        }
        XCTAssertNil(String.exactFixed(.nan, decimals: 1, alwaysSigned: false))
        XCTAssertNil(String.exactFixed(1e300, decimals: 1, alwaysSigned: false))
    }

    func testTrimmingAsCharacterSets() {
        let samples = ["", " ", "a", " a ", "\ta\t", "\u{3000}全角\u{3000}", "\u{A0}x\u{200B}", " \u{301}a ", "\r\na\n",
                       "\u{85}b\u{2028}", "\u{2029} c \u{1680}", "\u{FEFF}d"]
        for s in samples {
            XCTAssertEqual(s.trimmingWhitespace(), s.trimmingCharacters(in: .whitespaces), s.debugDescription)
            XCTAssertEqual(s.trimmingWhitespaceAndNewlines(), s.trimmingCharacters(in: .whitespacesAndNewlines), s.debugDescription)
            XCTAssertEqual(s.dropFirst(0).trimmingWhitespace(), s.trimmingCharacters(in: .whitespaces), s.debugDescription)
        }
    }

    func testReplacingAsReplacingOccurrences() {
        let samples = ["a&b", "&&", "&\u{301}x&", "a\r\nb", "|\u{200D}|", "`\u{1FEF}`", "<\u{338}>", "\"駅\"", "\\\u{903}\\",
                       "&\u{1F3FB}", "&\u{0897}", "\u{301}&", "ｶﾞ&ﾞ"]
        for s in samples {
            for target: Unicode.Scalar in ["&", "<", ">", "\"", "\\", "|", "\r", "\n", "`"] {
                XCTAssertEqual(s.replacingEvery(target, with: "#"), s.replacingOccurrences(of: String(target), with: "#"),
                               "\(s.debugDescription) \(target)")
            }
        }
    }

    func testJSONAsJSONSerialization() {
        let values = ["1", "-0", "3.0", "3.7", "-3.7", "1e2", "1E2", "1e400", "9007199254740993", "18446744073709551615",
                      "18446744073709551616", "-9223372036854775809", "1234567890123456789.99", "99999999999999999999",
                      "01", "1.", "-", "true", "false", "null", "\"s\"", "\"\\u00e9\"", "\"\\ud83d\"", "{}", "[1,]", "{\"a\":1,}"]
        var documents = values.flatMap { ["{\"v\":\($0)}", "{ \"v\" : \($0) , }", "{\"v\":\($0) x}"] }
        documents += ["", "[]", "1", "{\"v\":1,\"v\":2}", "/*c*/{\"v\":1}", "{\"v\":1}\n"]
        var inputs = documents.map { Array($0.utf8) }
        inputs.append([0xEF, 0xBB, 0xBF] + Array("{\"v\":2}".utf8))
        inputs.append([0xFF, 0xFE] + "{\"v\":\"é\"}".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        inputs.append(Array("{\"v\":\"".utf8) + [0xC3] + Array("\"}".utf8))
        for bytes in inputs {
            let old = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
            let new = JSONDocument.parse(bytes)?.object
            let text = String(decoding: bytes, as: UTF8.self).debugDescription
            XCTAssertEqual(new == nil, old == nil, text)
            guard let old, let new else { continue }
            XCTAssertEqual(new.keys.sorted(), old.keys.sorted(), text)
            XCTAssertEqual(new["v"]?.string, old["v"] as? String, text)
            XCTAssertEqual(new["v"]?.wholeNumber, (old["v"] as? NSNumber).flatMap { Int(exactly: $0.doubleValue) }, text)
            XCTAssertEqual(new["v"]?.truncatedInt, (old["v"] as? NSNumber)?.intValue, text)
            XCTAssertEqual(new["v"]?.object == nil, old["v"] as? [String: Any] == nil, text)
        }
    }
}
