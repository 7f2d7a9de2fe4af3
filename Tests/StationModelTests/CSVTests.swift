import Foundation
import XCTest
@testable import StationModel

final class CSVTests: XCTestCase {
    func parse(_ text: String) throws -> CSVTable { try CSVReader.parse(text, file: "t.csv") }

    func messages(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try CSVReader.parse(Data(bytes), file: "raw/t.csv")
            XCTFail("expected an InputError", file: file, line: line)
        } catch let error as InputError {
            return error.diagnostics.map(\.description)
        } catch {
            XCTFail("expected an InputError, got \(error)", file: file, line: line)
        }
        return []
    }

    func messages(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        messages(Array(text.utf8), file: file, line: line)
    }

    func testPlainTable() throws {
        let t = try parse("a,b,c\n1,2,3\n4,,6\n")
        XCTAssertEqual(t.file, "t.csv")
        XCTAssertEqual(t.header, ["a", "b", "c"])
        XCTAssertEqual(t.records.map(\.fields), [["1", "2", "3"], ["4", "", "6"]])
        XCTAssertEqual(t.records.map(\.line), [2, 3])
        XCTAssertEqual(t.column("c"), 2)
        XCTAssertNil(t.column("d"))
    }

    func testQuotedFieldsWithCommasQuotesAndNewlines() throws {
        let t = try parse("id,name,note\n1,\"a, b\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",\"\"\n3,x,\"three\r\nmore\nlines\"\n4,y,z\n")
        XCTAssertEqual(t.records.map(\.fields), [
            ["1", "a, b", "say \"hi\""],
            ["2", "two\nlines", ""],
            ["3", "x", "three\r\nmore\nlines"],
            ["4", "y", "z"],
        ])
        // Each record remembers the line it starts on, past the newlines inside quotes.
        XCTAssertEqual(t.records.map(\.line), [2, 3, 5, 8])
    }

    func testCRLFBOMAndMissingFinalNewline() throws {
        let t = try CSVReader.parse(Data([0xEF, 0xBB, 0xBF] + Array("a,b\r\n1,\"x\"\r\n2,y".utf8)), file: "t.csv")
        XCTAssertEqual(t.header, ["a", "b"])
        XCTAssertEqual(t.records.map(\.fields), [["1", "x"], ["2", "y"]])
        XCTAssertEqual(t.records.map(\.line), [2, 3])
    }

    func testTrailingEmptyFieldAndBlankLines() throws {
        let t = try parse("a,b\n1,\n\n2,\"\"\n\n")
        XCTAssertEqual(t.records.map(\.fields), [["1", ""], ["2", ""]])
        XCTAssertEqual(t.records.map(\.line), [2, 4])
        let noNewline = try parse("a,b\n1,")
        XCTAssertEqual(noNewline.records.map(\.fields), [["1", ""]])
    }

    func testHeaderIsTrimmedAndEmptyInputHasNoHeader() throws {
        XCTAssertEqual(try parse(" a ,b\n1,2\n").header, ["a", "b"])
        XCTAssertEqual(try parse("").header, [])
        XCTAssertEqual(try CSVReader.parse(Data([0xEF, 0xBB, 0xBF]), file: "t.csv").header, [])
        XCTAssertEqual(try parse("a,b\n").records.count, 0)
    }

    func testUnterminatedQuoteNamesFileLineAndColumn() {
        XCTAssertEqual(messages("id,name\n1,ok\n2,\"never\nclosed\n3,x\n"),
                       ["raw/t.csv:3: name: unterminated quoted field (a \" opened here is never closed)"])
        XCTAssertEqual(messages("\"id"), ["raw/t.csv:1: column 1: unterminated quoted field (a \" opened here is never closed)"])
    }

    func testInvalidUTF8NamesFileLineAndColumn() {
        XCTAssertEqual(messages(Array("id,name\n1,ok\n2,".utf8) + [0x41, 0xFE, 0x42] + Array("\n".utf8)),
                       ["raw/t.csv:3: name: invalid UTF-8 (byte 0xFE); expected UTF-8 text"])
        // Inside a quoted field spanning lines: the line of the bad byte. A truncated sequence counts too.
        XCTAssertEqual(messages(Array("id,name\n1,\"line\nnext ".utf8) + [0xE6, 0x9D] + Array("\"\n".utf8)),
                       ["raw/t.csv:3: name: invalid UTF-8 (byte 0xE6); expected UTF-8 text"])
        // Shift_JIS is not UTF-8 (東京 = 93 8C 8B 9E); in the header, columns are counted.
        XCTAssertEqual(messages(Array("id,".utf8) + [0x93, 0x8C, 0x8B, 0x9E] + Array("\n1,2\n".utf8)),
                       ["raw/t.csv:1: column 2: invalid UTF-8 (byte 0x93); expected UTF-8 text"])
    }

    func testWrongFieldCountAndTextAfterQuote() {
        XCTAssertEqual(messages("a,b,c\n1,2,3\n1,2\n1,2,3,4\n"), [
            "raw/t.csv:3: expected 3 fields as in the header, found 2",
            "raw/t.csv:4: expected 3 fields as in the header, found 4",
        ])
        XCTAssertEqual(messages("a,b\n\"x\"y,2\n"),
                       ["raw/t.csv:2: a: unexpected text after a closing quote (write a quote inside a quoted field as \"\")"])
    }

    func testDuplicateColumnName() {
        XCTAssertEqual(messages("id,name,id\n1,a,2\n"),
                       ["raw/t.csv:1: id: column named twice in the header (columns 1 and 3); expected each name once"])
    }

    func testRequireNamesMissingColumns() throws {
        let t = try parse("a,b\n1,2\n")
        XCTAssertNoThrow(try t.require(["a", "b"]))
        XCTAssertThrowsError(try t.require(["a", "c", "d"])) { error in
            XCTAssertEqual((error as? InputError)?.diagnostics.map(\.description),
                           ["t.csv:1: c, d: missing columns c, d; the header has: a, b"])
        }
    }

    func testTypedRowAccess() throws {
        let t = try parse("n,p,f,d,o\n 12 ,52,yes,35.6812345,\nx,3,0,abc,7\n")
        var problems = DiagnosticCollector()
        let rows = t.rows()
        XCTAssertEqual(rows[0].int("n", &problems), 12)
        XCTAssertNil(rows[0].int("p", &problems, range: 1...47))
        XCTAssertEqual(rows[0].bool("f", default: true, &problems), true)
        XCTAssertEqual(rows[0].microDegrees("d", &problems), 35_681_235)
        XCTAssertNil(rows[0].optionalInt("o", &problems))
        XCTAssertNil(rows[1].int("n", &problems))
        XCTAssertEqual(rows[1].bool("f", default: true, &problems), false)
        XCTAssertNil(rows[1].microDegrees("d", &problems))
        XCTAssertEqual(rows[1].optionalInt("o", &problems), 7)
        XCTAssertEqual(rows[1].string("missing"), "")
        XCTAssertEqual(problems.diagnostics.map(\.description), [
            "t.csv:2: p: expected 1..47, found 52",
            "t.csv:2: f: expected 0 or 1, found 'yes'",
            "t.csv:3: n: expected an integer, found 'x'",
            "t.csv:3: d: expected decimal degrees, found 'abc'",
        ])
    }

    func testWriterRoundTrip() throws {
        let values = [["id", "text"], ["1", "plain"], ["2", "a, \"b\"\nc"], ["3", " padded "], ["4", ""]]
        let text = values.map(CSVWriter.line).joined()
        XCTAssertEqual(CSVWriter.field("a,b"), "\"a,b\"")
        XCTAssertEqual(CSVWriter.field("plain"), "plain")
        let t = try parse(text)
        XCTAssertEqual([t.header] + t.records.map(\.fields), values)
    }
}

final class CSVFieldsTests: XCTestCase {
    func testFieldsGiveTheSameValuesAsTheTable() throws {
        let text = "\u{FEFF}id, name ,note\r\n1,\"a \"\"b\"\"\",\"x\ny\"\n\n2,東京,\n3,,\"\"\"\"\n"
        let fields = try CSVReader.scan(Data(text.utf8), file: "t.csv")
        let table = try CSVReader.parse(text, file: "t.csv")
        XCTAssertEqual(fields.header, ["id", "name", "note"])
        XCTAssertEqual(fields.count, 3)
        XCTAssertEqual(fields.lines, [2, 5, 6])
        XCTAssertEqual(fields.column("note"), 2)
        XCTAssertNil(fields.column("other"))
        XCTAssertEqual((0..<3).map { r in (0..<3).map { fields.string(r, $0) } }, table.records.map(\.fields))
        XCTAssertEqual(table.records.map(\.fields), [["1", "a \"b\"", "x\ny"], ["2", "東京", ""], ["3", "", "\""]])
        XCTAssertEqual(fields.withField(1, 1) { Array($0) }, Array("東京".utf8))
        XCTAssertEqual(fields.string(0, 7), "")          // past the last column
        XCTAssertNoThrow(try fields.require(["id", "note"]))
        XCTAssertThrowsError(try fields.require(["pref"])) { error in
            XCTAssertEqual((error as? InputError)?.description, "error: t.csv:1: pref: missing column pref; the header has: id, name, note")
        }
    }

    func testUTF8ValidatorAgreesWithTheStandardLibrary() {
        // Seeded random byte strings weighted towards the edges of UTF-8's rules.
        var state: UInt64 = 99
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
        let interesting: [UInt8] = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF,
                                    0xE0, 0xE3, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF]
        var cases: [[UInt8]] = [[], Array("東京 ok".utf8), [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
                                [0xF0, 0x8F, 0xBF, 0xBF], [0xC0, 0xAF], [0xE6, 0x9D], [0xF0, 0x9F, 0x98, 0x80]]
        for _ in 0..<20_000 {
            cases.append((0..<Int(next() % 6)).map { _ in interesting[Int(next() % UInt64(interesting.count))] })
        }
        for bytes in cases {
            let expected = String(validating: bytes, as: UTF8.self) != nil
            XCTAssertEqual(bytes.withUnsafeBufferPointer(isValidUTF8), expected, "\(bytes)")
        }
    }

    /// The vector check takes sixteen bytes at a time and looks back three bytes
    /// into the block before: every kind of bad or cut sequence at every offset
    /// of a block and across blocks, in text long enough to span several, against
    /// the standard library and the byte-by-byte check.
    func testVectorUTF8CheckAgreesAcrossBlocks() throws {
        try XCTSkipUnless(cpuValidatesUTF8, "this CPU has no SSSE3: only the byte-by-byte check runs here")
        let pieces: [[UInt8]] = [
            Array("駅".utf8), Array("é".utf8), Array("😀".utf8), [0x41], [0x00], [0x7F],
            [0x80], [0xBF], [0xC0, 0xAF], [0xC1, 0xBF], [0xC2], [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0x9F, 0xBF], [0xE0, 0xA0, 0x80],
            [0xE3, 0x81], [0xED, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80],
            [0xF4, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF8], [0xFF], [0xE3, 0x81, 0x82, 0x82],
        ]
        func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
            let expected = String(validating: bytes, as: UTF8.self) != nil
            bytes.withUnsafeBufferPointer { b in
                XCTAssertEqual(isValidUTF8(b), expected, "\(bytes)", file: file, line: line)
                XCTAssertEqual(isValidUTF8Portably(b), expected, "\(bytes)", file: file, line: line)
            }
        }
        // One piece after 0...40 bytes of valid text (ASCII or three-byte), then more valid text.
        for piece in pieces {
            for lead in 0...40 {
                for filler in [Array("a".utf8), Array("駅".utf8)] {
                    var bytes: [UInt8] = []
                    while bytes.count < lead { bytes += filler }
                    bytes = Array(bytes.prefix(lead))
                    if filler.count == 3 { bytes = Array(repeating: 0x61, count: lead % 3) + Array(bytes.prefix(lead - lead % 3)) }
                    check(bytes + piece)
                    check(bytes + piece + Array("東京駅 and more text past the block".utf8))
                }
            }
        }
        // Seeded random mixes of the pieces, up to ~100 bytes.
        var state: UInt64 = 7
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<(next() % 30) { bytes += pieces[next() % pieces.count] }
            check(bytes)
        }
        // A long valid file, then each of its bytes damaged in turn.
        let text = Array(String(repeating: "1,東京,とうきょう,35.681236,139.767125,é😀\n", count: 8).utf8)
        check(text)
        for k in stride(from: 0, to: text.count, by: 1) {
            var damaged = text
            damaged[k] = damaged[k] < 0x80 ? 0x80 : 0x41
            check(damaged)
        }
    }

    /// Unquoted fields are scanned eight bytes at a time: a separator at every
    /// offset within and across those words, and at the very end of the file.
    func testFieldEndsAtEveryOffset() throws {
        for length in 0...20 {
            for end in ["\n", "\r\n", ""] {
                let field = String((0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
                let wide = String(repeating: "駅", count: length % 4)
                let text = "a,b,c\n\(field),\(wide)\(field),x\(field)\ny,\(field),z" + end
                let t = try CSVReader.parse(text, file: "t.csv")
                XCTAssertEqual(t.records.map(\.fields), [[field, wide + field, "x" + field], ["y", field, "z"]], "length \(length)")
                XCTAssertEqual(t.records.map(\.line), [2, 3])
            }
        }
    }
}
