import Foundation
import XCTest
import StationCore

/// Every record's fields, as the file holds them.
func allFields(_ t: CSVTable) -> [[String]] { t.records.map { t.fields($0) } }

/// The line each record starts on.
func allLines(_ t: CSVTable) -> [Int] { t.records.map { t.line($0) } }

final class CSVTests: XCTestCase {
    func parse(_ text: String) throws -> CSVTable { try CSVReader.parse(text, file: "t.csv") }

    func messages(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            _ = try CSVReader.parse(bytes, file: "raw/t.csv")
            XCTFail("expected bad input", file: file, line: line)
        } catch let error as StationError where error.kind == .badInput {
            return error.diagnostics.map(\.description)
        } catch {
            XCTFail("expected bad input, got \(error)", file: file, line: line)
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
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(allFields(t), [["1", "2", "3"], ["4", "", "6"]])
        XCTAssertEqual(allLines(t), [2, 3])
        XCTAssertEqual(t.column("c").index, 2)
        XCTAssertEqual(t.column("c").name, "c")
        XCTAssertNil(t.column("d").index)
        XCTAssertTrue(t.has("a"))
        XCTAssertFalse(t.has("d"))
        XCTAssertEqual(t.string(1, "c"), "6")
        XCTAssertEqual(t.string(1, "b"), "")
    }

    func testQuotedFieldsWithCommasQuotesAndNewlines() throws {
        let t = try parse("id,name,note\n1,\"a, b\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",\"\"\n3,x,\"three\r\nmore\nlines\"\n4,y,z\n")
        XCTAssertEqual(allFields(t), [
            ["1", "a, b", "say \"hi\""],
            ["2", "two\nlines", ""],
            ["3", "x", "three\r\nmore\nlines"],
            ["4", "y", "z"],
        ])
        // Each record remembers the line it starts on, past the newlines inside quotes.
        XCTAssertEqual(allLines(t), [2, 3, 5, 8])
    }

    func testCRLFBOMAndMissingFinalNewline() throws {
        let t = try CSVReader.parse([0xEF, 0xBB, 0xBF] + Array("a,b\r\n1,\"x\"\r\n2,y".utf8), file: "t.csv")
        XCTAssertEqual(t.header, ["a", "b"])
        XCTAssertEqual(allFields(t), [["1", "x"], ["2", "y"]])
        XCTAssertEqual(allLines(t), [2, 3])
    }

    func testCarriageReturnAloneEndsARecord() throws {
        let t = try parse("a,b\r1,2\r3,\"4\"\r")
        XCTAssertEqual(allFields(t), [["1", "2"], ["3", "4"]])
        XCTAssertEqual(allLines(t), [2, 3])
    }

    func testTrailingEmptyFieldAndBlankLines() throws {
        let t = try parse("a,b\n1,\n\n2,\"\"\n\n")
        XCTAssertEqual(allFields(t), [["1", ""], ["2", ""]])
        XCTAssertEqual(allLines(t), [2, 4])
        let noNewline = try parse("a,b\n1,")
        XCTAssertEqual(allFields(noNewline), [["1", ""]])
    }

    func testHeaderIsTrimmedAndEmptyInputHasNoHeader() throws {
        XCTAssertEqual(try parse(" a ,b\n1,2\n").header, ["a", "b"])
        XCTAssertEqual(try parse("").header, [])
        XCTAssertEqual(try CSVReader.parse([0xEF, 0xBB, 0xBF], file: "t.csv").header, [])
        XCTAssertEqual(try parse("a,b\n").records.count, 0)
    }

    /// Values are read exactly as the file holds them: spaces around a name are data.
    func testValuesAreKeptVerbatim() throws {
        let t = try parse("id,name\n1, 東京 \n2,\" quoted \"\n")
        XCTAssertEqual(allFields(t), [["1", " 東京 "], ["2", " quoted "]])
        var problems = DiagnosticCollector()
        XCTAssertEqual(t.name(0, t.column("name"), &problems), " 東京 ")
        XCTAssertEqual(t.optionalText(1, t.column("name")), " quoted ")
        XCTAssertTrue(problems.isEmpty)
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

    /// Whatever bytes a field holds, a file is refused exactly when it is not
    /// UTF-8 (as the standard library judges it), and each message names a bad byte.
    func testEveryFileThatIsNotUTF8IsRefused() {
        let pieces: [[UInt8]] = [
            Array("駅".utf8), Array("é".utf8), Array("😀".utf8), [0x41], [0x2C], [0x0A], [0x22],
            [0x80], [0xBF], [0xC0, 0xAF], [0xC2], [0xC2, 0x80], [0xE0, 0x9F, 0xBF], [0xE3, 0x81], [0xED, 0xA0, 0x80],
            [0xEF, 0xBF, 0xBF], [0xF0, 0x8F, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF],
        ]
        var state: UInt64 = 7
        func next() -> Int { state = state &* 6364136223846793005 &+ 1442695040888963407; return Int(state >> 33) }
        var refused = 0
        for _ in 0..<3_000 {
            var body: [UInt8] = []
            for _ in 0..<(next() % 12) { body += pieces[next() % pieces.count] }
            // Quoted, so commas, quotes and line breaks stay inside one field ("" for a quote).
            let quoted = body.flatMap { $0 == 0x22 ? [0x22, 0x22] : [$0] }
            let bytes = Array("id,name\n1,\"".utf8) + quoted + Array("\"\n".utf8)
            let valid = String(validating: bytes, as: UTF8.self) != nil
            do {
                let t = try CSVReader.parse(bytes, file: "t.csv")
                XCTAssertTrue(valid, "accepted \(body)")
                XCTAssertEqual(t.string(0, "name"), String(decoding: body, as: UTF8.self))
            } catch let error as StationError where error.kind == .badInput {
                refused += 1
                XCTAssertFalse(valid, "refused \(body): \(error)")
                XCTAssertFalse(error.diagnostics.isEmpty)
                XCTAssertTrue(error.diagnostics.allSatisfy { $0.message.hasPrefix("invalid UTF-8 (byte 0x") }, "\(error)")
            } catch {
                XCTFail("expected bad input, got \(error)")
            }
        }
        XCTAssertGreaterThan(refused, 100)
        XCTAssertLessThan(refused, 3_000)
    }

    func testWrongFieldCountAndTextAfterQuote() {
        XCTAssertEqual(messages("a,b,c\n1,2,3\n1,2\n1,2,3,4\n"), [
            "raw/t.csv:3: expected 3 fields as in the header, found 2",
            "raw/t.csv:4: c: expected 3 fields as in the header, found 4: the row runs past its last column, c, with '4'; a value that holds a comma must be in double quotes (if it is c's: \"3,4\")",
        ])
        XCTAssertEqual(messages("a,b\n\"x\"y,2\n"),
                       ["raw/t.csv:2: a: unexpected text after a closing quote (write a quote inside a quoted field as \"\")"])
    }

    /// A comma in a value that was not quoted said only "expected 3 fields as in the header,
    /// found 4": the row is named at the column it runs past, with what ran over, and the
    /// value quoted as it should have been, which reads back as the value meant.
    func testAnUnquotedCommaNamesTheColumnTheRowRunsPastAndTheQuotedValue() throws {
        let file = "s_id,weight,note\n5,1,\"the \"\"main\"\" one\"\n6,2,junction,\"big \"\"now\"\"\"\n"
        do {
            _ = try CSVReader.parse(Array(file.utf8), file: "raw/weights.csv")
            XCTFail("expected bad input")
        } catch let error as StationError where error.kind == .badInput {
            XCTAssertEqual(error.diagnostics.map(\.location), [SourceLocation(file: "raw/weights.csv", line: 3, field: "note")])
            XCTAssertEqual(error.diagnostics.first?.message,
                           #"expected 3 fields as in the header, found 4: the row runs past its last column, note, with 'big "now"'; "#
                           + #"a value that holds a comma must be in double quotes (if it is note's: "junction,big ""now""")"#)
            // The value as the message quotes it is one field again, the text that ran over.
            let quoted = try XCTUnwrap(error.diagnostics.first?.message.firstMatch(of: /note's: (".*")\)$/)?.1)
            let table = try CSVReader.parse(Array("s_id,weight,note\n6,2,\(quoted)\n".utf8), file: "t.csv")
            XCTAssertEqual(table.string(0, "note"), "junction,big \"now\"")
        }
    }

    /// A NUL cannot reach the bundle as written (SQLite takes text up to its first NUL:
    /// `ab\0cd` was published as `ab`), so it is refused at its line and field, quoted or
    /// not, never cut; the other control characters are kept (lint names them).
    func testNULIsAnErrorAtItsLineAndField() throws {
        XCTAssertEqual(messages(Array("s_id,station\n1,ok\n2,ab".utf8) + [0] + Array("cd\n".utf8)),
                       ["raw/t.csv:3: station: a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it"])
        XCTAssertEqual(messages(Array("s_id,station\n1,\"two\nlines".utf8) + [0] + Array("\"\n3,x".utf8) + [0] + Array("\n".utf8)), [
            "raw/t.csv:3: station: a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it",
            "raw/t.csv:4: station: a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it",
        ])
        XCTAssertEqual(messages([0x61, 0, 0x62] + Array("\n1\n".utf8)),
                       ["raw/t.csv:1: column 1: a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it"])
        let t = try parse("s_id,station\n1,a\u{1}b\tc\u{7F}\n")
        XCTAssertEqual(t.string(0, "station"), "a\u{1}b\tc\u{7F}")
    }

    /// RFC 4180 allows a quote only inside a quoted field. `東"中野` was published as
    /// written and lint said nothing; whether the writer meant a quote or lost the one
    /// that opened the field cannot be told, so it is an error with the way to write it.
    func testAQuoteInsideAnUnquotedFieldIsAnError() {
        let advice = "a quote inside a field that does not start with one; RFC 4180 allows quotes only in a quoted field: "
            + "quote the whole field and double the quote (\"東\"\"中野\"), or remove it"
        XCTAssertEqual(messages("s_id,station\n1,東\"中野\n"), ["raw/t.csv:2: station: \(advice)"])
        XCTAssertEqual(messages("s_id,station\n1,x\n2,\"\"\"ok\"\"\"\n3,a\"b\"c\n"), ["raw/t.csv:4: station: \(advice)"])
        XCTAssertEqual(messages("s_id,sta\"tion\n1,x\n"), ["raw/t.csv:1: column 2: \(advice)"])
    }

    func testDuplicateColumnName() {
        XCTAssertEqual(messages("id,name,id\n1,a,2\n"),
                       ["raw/t.csv:1: id: column named twice in the header (columns 1 and 3); expected each name once"])
    }

    func testRequireNamesMissingColumns() throws {
        let t = try parse("a,b\n1,2\n")
        XCTAssertNoThrow(try t.require(["a", "b"]))
        XCTAssertThrowsError(try t.require(["a", "c", "d"])) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.description),
                           ["t.csv:1: c, d: missing columns c, d; expected the columns a, c, d (other columns are ignored)"])
        }
    }

    /// A misspelled `expect` turned the check off, and `notes` passed: a closed set of
    /// columns refuses every column it does not know, at the header, naming it.
    func testAClosedSetOfColumnsRefusesAnUnknownOneAtTheHeader() throws {
        let fixes = CSVColumns(required: ["action", "table", "match", "field", "value"], optional: ["expect", "note"])
        for (header, unknown) in [("action,table,match,field,value,expects,note", "expects"), ("action,table,match,field,value,expect,notes", "notes")] {
            let t = try parse(header + "\nset,stations,s_id=1,yomi,x,station=a,b\n")
            XCTAssertThrowsError(try t.require(fixes), header) { error in
                XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [SourceLocation(file: "t.csv", line: 1, field: unknown)])
            }
        }
        XCTAssertNoThrow(try parse("value,field,match,table,action\n").require(fixes), "order is free, optional columns may be absent")
        XCTAssertNoThrow(try parse("a,b,c\n").require(["a"]), "an open set takes other columns")
    }

    /// A file that is no table at all (raw/fixes.csv linked to /etc/shadow) had its first
    /// line quoted into the error, and so into a CI log: the error names only the columns.
    func testAMissingColumnQuotesNothingOfTheHeader() throws {
        let shadow = "root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n"
        let reads: [() throws -> Void] = [{ _ = try HandWeights.parse(shadow, label: "raw/weights.csv", network: RailNetwork()) },
                                          { try CSVReader.parse(shadow, file: "raw/weights.csv").require(["s_id"]) }]
        for (i, read) in reads.enumerated() {
            XCTAssertThrowsError(try read(), "\(i)") { error in
                let diagnostics = error.station(.badInput)?.diagnostics ?? []
                XCTAssertEqual(diagnostics.map(\.location.line), [1])
                XCTAssertFalse(diagnostics.contains { $0.description.contains("root") || $0.description.contains("19000") }, "\(diagnostics)")
            }
        }
    }

    /// A UTF-16 file gave 50 errors echoing NUL bytes: one error at line 1 now, naming UTF-16.
    func testUTF16IsOneErrorAtTheFirstLine() {
        let text = "s_id,station\n1,東京\n2,神田\n"
        let littleEndian = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let bigEndian = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        for bytes in [[0xFF, 0xFE] + littleEndian, [0xFE, 0xFF] + bigEndian, littleEndian, bigEndian] {
            let found = messages(bytes)
            XCTAssertEqual(found.count, 1, "\(found)")
            XCTAssertTrue(found.allSatisfy { $0.hasPrefix("raw/t.csv:1: ") && $0.contains("UTF-16") && !$0.contains("\0") }, "\(found)")
        }
    }

    func testTypedFieldAccess() throws {
        let t = try parse("n,p,f,d,o\n 12 ,52,yes,35.6812345,\nx,3,0,abc,7\n")
        let n = t.column("n"), p = t.column("p"), f = t.column("f"), d = t.column("d"), o = t.column("o")
        var problems = DiagnosticCollector()
        XCTAssertEqual(t.int(0, n, &problems), 12)
        XCTAssertNil(t.int(0, p, range: 1...47, &problems))
        XCTAssertNil(t.bool(0, f, default: true, &problems))
        XCTAssertEqual(t.microDegrees(0, d, &problems), 35_681_235)
        XCTAssertEqual(t.optionalInt(0, o, &problems), .some(nil), "an empty field is no value, without a problem")
        XCTAssertNil(t.int(1, n, &problems))
        XCTAssertEqual(t.bool(1, f, default: true, &problems), false)
        XCTAssertNil(t.microDegrees(1, d, &problems))
        XCTAssertEqual(t.optionalInt(1, o, &problems), .some(7))
        XCTAssertEqual(t.string(1, "missing"), "")
        XCTAssertEqual(t.lenientInt(0, n), 12)
        XCTAssertNil(t.lenientInt(1, n))
        XCTAssertEqual(problems.diagnostics.map(\.description), [
            "t.csv:2: p: expected 1..47, found 52",
            "t.csv:2: f: expected 0 or 1, found 'yes'",
            "t.csv:3: n: expected an integer, found 'x'",
            "t.csv:3: d: expected decimal degrees, found 'abc'",
        ])
    }

    func testOptionalValuesDefaultsAndMissingColumns() throws {
        let t = try parse("a,b,c\n,x,\n 5 ,,TRUE\n")
        let a = t.column("a"), b = t.column("b"), c = t.column("c"), absent = t.column("absent")
        var problems = DiagnosticCollector()
        XCTAssertEqual(t.optionalInt(0, absent, &problems), .some(nil), "an absent column is no value")
        XCTAssertEqual(t.optionalInt(1, a, &problems), .some(5))
        XCTAssertEqual(t.optionalInt(0, b, &problems), Int??.none, "text that is not a number is a problem")
        XCTAssertEqual(t.bool(0, c, default: true, &problems), true, "empty gives the default")
        XCTAssertEqual(t.bool(0, absent, default: false, &problems), false)
        XCTAssertEqual(t.bool(1, c, default: false, &problems), true)
        XCTAssertNil(t.int(0, a, &problems))
        XCTAssertNil(t.name(1, b, &problems))
        XCTAssertNil(t.optionalText(1, b))
        XCTAssertEqual(t.optionalText(0, b), "x")
        XCTAssertEqual(Array(t.bytes(0, b)), [0x78])
        XCTAssertEqual(t.location(1, b), SourceLocation(file: "t.csv", line: 3, field: "b"))
        XCTAssertEqual(problems.diagnostics.map(\.description), [
            "t.csv:2: b: expected an integer or nothing, found 'x'",
            "t.csv:2: a: expected an integer, found nothing",
            "t.csv:3: b: expected a name, found nothing",
        ])
    }

    func testWriterRoundTrip() throws {
        let values = [["id", "text"], ["1", "plain"], ["2", "a, \"b\"\nc"], ["3", " padded "], ["4", ""], ["5", "cr\rinside"]]
        let text = values.map(CSVWriter.line).joined()
        XCTAssertTrue(CSVWriter.needsQuotes("a,b"))
        XCTAssertTrue(CSVWriter.needsQuotes(" padded"))
        XCTAssertTrue(CSVWriter.needsQuotes("say \"hi\""))
        XCTAssertFalse(CSVWriter.needsQuotes("plain"))
        XCTAssertFalse(CSVWriter.needsQuotes(""))
        XCTAssertEqual(CSVWriter.line(["a,b", "plain", "q\"q"]), "\"a,b\",plain,\"q\"\"q\"\n")
        var bytes: [UInt8] = []
        for v in values { CSVWriter.append(v, to: &bytes) }
        XCTAssertEqual(bytes, Array(text.utf8))
        let t = try parse(text)
        XCTAssertEqual([t.header] + allFields(t), values)
    }

    func testFieldsOfATableAcrossQuotesBOMAndBlankLines() throws {
        let text = "\u{FEFF}id, name ,note\r\n1,\"a \"\"b\"\"\",\"x\ny\"\n\n2,東京,\n3,,\"\"\"\"\n"
        let table = try CSVReader.parse(text, file: "t.csv")
        XCTAssertEqual(table.header, ["id", "name", "note"])
        XCTAssertEqual(table.count, 3)
        XCTAssertEqual(allLines(table), [2, 5, 6])
        XCTAssertEqual(table.column("note").index, 2)
        XCTAssertNil(table.column("other").index)
        XCTAssertEqual(allFields(table), [["1", "a \"b\"", "x\ny"], ["2", "東京", ""], ["3", "", "\""]])
        XCTAssertEqual(Array(table.bytes(1, table.column("name"))), Array("東京".utf8))
        XCTAssertEqual(table.string(0, CSVColumn(name: "past", index: 7)), "")          // past the last column
        XCTAssertNoThrow(try table.require(["id", "note"]))
        XCTAssertThrowsError(try table.require(["pref"])) { error in
            XCTAssertEqual(error.station(.badInput)?.description, "error: t.csv:1: pref: missing column pref; expected the column pref (other columns are ignored)")
        }
    }

    func testReadNamesTheFileAsAsked() throws {
        let folder = try temporaryFolder("CSVTests")
        defer { Files.remove(folder) }
        let path = joinPath(folder, "t.csv")
        try Files.write(Array("a,b\n1,x\n2\n".utf8), to: path)
        XCTAssertThrowsError(try CSVReader.read(path: path, displayName: "raw/t.csv")) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.description), ["raw/t.csv:3: expected 2 fields as in the header, found 1"])
        }
        try Files.write(Array("a,b\n1,x\n".utf8), to: path)
        XCTAssertEqual(try CSVReader.read(path: path).file, path)
        XCTAssertThrowsError(try CSVReader.read(path: joinPath(folder, "missing.csv"))) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics, [Diagnostic(SourceLocation(file: joinPath(folder, "missing.csv")), "no such file or folder")])
        }
    }

    /// A separator at every offset of a field and at the very end of the file.
    func testFieldEndsAtEveryOffset() throws {
        for length in 0...20 {
            for end in ["\n", "\r\n", ""] {
                let field = String((0..<length).map { Character(UnicodeScalar(UInt8(0x61 + $0 % 26))) })
                let wide = String(repeating: "駅", count: length % 4)
                let text = "a,b,c\n\(field),\(wide)\(field),x\(field)\ny,\(field),z" + end
                let t = try CSVReader.parse(text, file: "t.csv")
                XCTAssertEqual(allFields(t), [[field, wide + field, "x" + field], ["y", field, "z"]], "length \(length)")
                XCTAssertEqual(allLines(t), [2, 3])
            }
        }
    }
}

/// A new, empty folder under the system's temporary folder.
func temporaryFolder(_ label: String) throws -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    let path = joinPath(base, "\(label)-\(UUID().uuidString)")
    try Files.createFolder(path)
    return path
}
