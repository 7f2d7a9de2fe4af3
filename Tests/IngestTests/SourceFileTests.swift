import Foundation
import Glibc
import XCTest
import Ingest
import StationCore
import TestSupport

/// What may stand where a source file belongs: nothing, a FIFO, a device; and a
/// sources.json that is not JSON. Each is bad input (exit 2), named, for every kind of source.
final class SourceFileTests: XCTestCase {

    /// A raw folder whose sources.json declares one source of `kind`, its files all there.
    func raw(_ kind: SourceKind) async throws -> String {
        let raw = try makeSourceFolder(self, [:])
        switch kind {
        case .native:
            try Files.createFolder(raw + "/native")
            for (name, text) in NativeCSVReaderTests.files { try Files.write(Array(text.utf8), to: raw + "/native/" + name) }
            try Files.write(Array(#"{ "sources": [ { "kind": "native", "path": "native" } ] }"#.utf8), to: raw + "/sources.json")
        case .ekidata:
            try Files.createFolder(raw + "/ekidata")
            for (name, text) in EkidataReaderTests.files { try Files.write(Array(text.utf8), to: raw + "/ekidata/" + name) }
            try Files.write(Array(#"{ "sources": [ { "kind": "ekidata", "path": "ekidata" } ] }"#.utf8), to: raw + "/sources.json")
        case .n02:
            try Files.write(Array(SmallN02.document.utf8), to: raw + "/N02.xml")
            try Files.write(Array(#"{ "sources": [ { "kind": "n02", "path": "N02.xml" } ] }"#.utf8), to: raw + "/sources.json")
        case .stationDatabase:
            try Files.createFolder(raw + "/station_database")
            for (name, text) in StationDatabaseReaderTests.files { try Files.write(Array(text.utf8), to: raw + "/station_database/" + name) }
            try Files.write(Array(#"{ "sources": [ { "kind": "station_database", "path": "station_database" } ] }"#.utf8), to: raw + "/sources.json")
        }
        _ = try await IngestPipeline.read(IngestOptions(rawFolder: raw, rawLabel: "raw"))
        return raw
    }

    /// Each kind's file that a test replaces.
    static let sourceFile: [SourceKind: String] = [.native: "native/stations.csv", .ekidata: "ekidata/station.csv", .n02: "N02.xml",
                                                   .stationDatabase: "station_database/station.csv"]

    /// The StationError of bad input of ingest's read of `raw`, as printed.
    func refusal(_ raw: String, file: StaticString = #filePath, line: UInt = #line) async -> [String] {
        do {
            _ = try await IngestPipeline.read(IngestOptions(rawFolder: raw, rawLabel: "raw"))
            XCTFail("expected bad input", file: file, line: line)
        } catch let error as StationError where error.kind == .badInput {
            return error.diagnostics.map(\.description)
        } catch {
            XCTFail("expected bad input (exit 2), got \(type(of: error)): \(error)", file: file, line: line)
        }
        return []
    }

    /// README: "a source file that is gone is bad input (exit 2)". A missing N02 file was an
    /// environment error (exit 3); now every kind agrees.
    func testAMissingSourceFileIsBadInputForEveryKind() async throws {
        let expected: [SourceKind: String] = [
            .native: "raw/native/stations.csv: file not found; expected stations.csv in the source folder raw/native",
            .ekidata: "raw/ekidata/station.csv: file not found; expected station.csv in the source folder raw/ekidata",
            .n02: "raw/N02.xml: file not found; expected the N02 XML file sources.json names",
            .stationDatabase: "raw/station_database/station.csv: file not found; expected station.csv in the source folder raw/station_database",
        ]
        for kind in SourceKind.allCases {
            let raw = try await raw(kind)
            unlink(raw + "/" + Self.sourceFile[kind]!)
            let messages = await refusal(raw)
            XCTAssertEqual(messages, [expected[kind]!], "\(kind)")
        }
    }

    /// A FIFO where a source file or sources.json belongs blocked the read forever (its
    /// open waits for a writer), with dist/.lock held. Refused at once, naming the file.
    func testAFIFOIsRefusedForEveryKindAndForSourcesJSON() async throws {
        for kind in SourceKind.allCases {
            for file in [Self.sourceFile[kind]!, "sources.json"] {
                let raw = try await raw(kind)
                unlink(raw + "/" + file)
                XCTAssertEqual(mkfifo(raw + "/" + file, 0o644), 0)
                let unblocker = FIFOUnblocker(raw + "/" + file)
                let messages = await refusal(raw)
                XCTAssertEqual(messages, ["raw/\(file): a FIFO (named pipe), not a file; expected a file here"], "\(kind) \(file)")
                XCTAssertFalse(unblocker.freedAReader, "\(kind) \(file): refused before anything waited for a writer")
            }
        }
    }

    /// A JSON syntax error named no line or column ("not valid JSON (The given data was not valid JSON.)").
    func testAJSONSyntaxErrorNamesItsLineAndColumn() throws {
        let raw = try makeSourceFolder(self, [:])
        func load(_ text: String) -> [String] {
            try? Files.write(Array(text.utf8), to: raw + "/sources.json")
            return inputErrorMessages { try SourcesConfig.load(rawFolder: raw) }
        }
        XCTAssertEqual(load("{ \"sources\": [\n  { \"kind\": \"ekidata\", \"path\": \"ekidata\" },\n  { \"kind\": \"n02\" \"path\": \"N02.xml\" }\n] }\n"),
                       ["\(raw)/sources.json:3: column 19: not valid JSON: expected ',' or '}' after an object's value, found '\"'"])
        XCTAssertEqual(load("{ \"sources\": [ { \"kind\": \"n02\", \"path\": \"N02.xml\" }, }\n}\n"),
                       ["\(raw)/sources.json:1: column 54: not valid JSON: expected a value, found '}'"])
        XCTAssertEqual(load("{ \"sources\": [\n  { \"kind\": \"東\u{3000}\", \"path\": x }"),
                       ["\(raw)/sources.json:2: column 27: not valid JSON: expected a value, found 'x'"])
        XCTAssertEqual(load("{ \"sources\": [ { \"kind\": \"n02\", \"path\": \"N02.xml"),
                       ["\(raw)/sources.json:1: column 41: not valid JSON: a string that never ends (its closing \" is missing)"])
        XCTAssertEqual(load("{ \"sources\": [] }\n}"),
                       ["\(raw)/sources.json:2: column 1: not valid JSON: expected nothing after the document, found '}'"])
        XCTAssertEqual(load(""), ["\(raw)/sources.json:1: column 1: not valid JSON: expected a value, found the end of the file"])
        // Valid JSON with a wrong value keeps naming the key.
        XCTAssertEqual(load(#"{ "sources": [ { "kind": "n03", "path": "x" } ] }"#),
                       ["\(raw)/sources.json:1: sources.0.kind: unknown kind \"n03\"; expected one of native, ekidata, n02, station_database"])
    }

    /// A source path `../escape.xml` made fetch write outside raw/ (exit 0), and publish read
    /// there. Every path that climbs out or is absolute is an error at its line of sources.json.
    func testASourcePathThatLeavesRawIsAnErrorAtItsLine() throws {
        let raw = try makeSourceFolder(self, ["sources.json": """
            { "sources": [
              { "kind": "ekidata", "path": "ekidata" },
              { "kind": "n02", "path": "../escape.xml", "url": "http://127.0.0.1:9/x.xml" },
              { "kind": "native",
                "path": "/tmp/outside" },
              { "kind": "ekidata", "path": "ok/../../../outside/dir" }
            ] }
            """])
        XCTAssertThrowsError(try SourcesConfig.load(rawFolder: raw, rawLabel: "raw")) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [
                SourceLocation(file: "raw/sources.json", line: 3, field: "sources.1.path"),
                SourceLocation(file: "raw/sources.json", line: 5, field: "sources.2.path"),
                SourceLocation(file: "raw/sources.json", line: 6, field: "sources.3.path"),
            ], "\(error)")
        }
    }

    /// `"path": "station_database\u0000x"` was another folder to the C library (it ends a path
    /// at the NUL) than to stationdb, and a failed fetch deleted raw/station_database whole.
    func testASourcePathWithAControlCharacterIsAnErrorAtItsLine() throws {
        let raw = try makeSourceFolder(self, ["sources.json": """
            { "sources": [
              { "kind": "station_database", "path": "station_database\\u0000x" },
              { "kind": "ekidata", "path": "eki\\ndata" }
            ] }
            """])
        XCTAssertThrowsError(try SourcesConfig.load(rawFolder: raw, rawLabel: "raw")) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics.map(\.location), [
                SourceLocation(file: "raw/sources.json", line: 2, field: "sources.0.path"),
                SourceLocation(file: "raw/sources.json", line: 3, field: "sources.1.path"),
            ], "\(error)")
        }
    }

    /// Foundation's decoder took `[ x, ]` and `{ "path": "a", "path": "b" }` (the first
    /// wins, silently): both are errors at their line and column.
    func testATrailingCommaOrANameGivenTwiceIsAnErrorAtItsLine() throws {
        let raw = try makeSourceFolder(self, [:])
        func location(_ text: String) -> SourceLocation? {
            try? Files.write(Array(text.utf8), to: raw + "/sources.json")
            do { _ = try SourcesConfig.load(rawFolder: raw, rawLabel: "raw") } catch let error as StationError where error.kind == .badInput {
                return error.diagnostics.count == 1 ? error.diagnostics[0].location : nil
            } catch { return nil }
            return nil
        }
        XCTAssertEqual(location("{ \"sources\": [\n  { \"kind\": \"ekidata\", \"path\": \"ekidata\" },\n] }\n"),
                       SourceLocation(file: "raw/sources.json", line: 3, field: "column 1"))
        XCTAssertEqual(location("{ \"sources\": [\n  { \"kind\": \"ekidata\", \"path\": \"ekidata\", }\n] }\n"),
                       SourceLocation(file: "raw/sources.json", line: 2, field: "column 43"))
        XCTAssertEqual(location("{ \"sources\": [\n  { \"kind\": \"ekidata\",\n    \"path\": \"ekidata\",\n    \"path\": \"../x\" }\n] }\n"),
                       SourceLocation(file: "raw/sources.json", line: 4, field: "column 5"))
    }

    /// `raw/fixes.csv -> /etc/shadow` was read, and the error quoted its first line. raw/ may
    /// hold no link that leaves it (or leads nowhere): each is named before anything is read.
    func testALinkThatLeavesRawIsRefusedBeforeAnythingIsRead() async throws {
        let raw = try await raw(.ekidata)
        let outside = try makeSourceFolder(self, ["secret.csv": "root:SECRET:19000\n"])
        XCTAssertEqual(symlink(outside + "/secret.csv", raw + "/fixes.csv"), 0)
        XCTAssertEqual(symlink(raw + "/nowhere.csv", raw + "/weights.csv"), 0)
        XCTAssertEqual(symlink(outside, raw + "/elsewhere"), 0)
        // A link within raw/ is fine.
        XCTAssertEqual(symlink(raw + "/ekidata/station.csv", raw + "/ekidata/station-link.csv"), 0)
        var messages = await refusal(raw)
        XCTAssertEqual(messages.count, 3, "\(messages)")
        XCTAssertEqual(messages.map { String($0.prefix { $0 != ":" }) }, ["raw/elsewhere", "raw/fixes.csv", "raw/weights.csv"])
        XCTAssertFalse(messages.contains { $0.contains("SECRET") }, "\(messages)")
        // A linked source folder, as the tests and the bench once made their raw/.
        for name in ["elsewhere", "fixes.csv", "weights.csv"] { unlink(raw + "/" + name) }
        _ = try await IngestPipeline.read(IngestOptions(rawFolder: raw, rawLabel: "raw"))
        try FileManager.default.removeItem(atPath: raw + "/ekidata")
        XCTAssertEqual(symlink(NationalData.ekidata, raw + "/ekidata"), 0)
        messages = await refusal(raw)
        XCTAssertEqual(messages.map { String($0.prefix { $0 != ":" }) }, ["raw/ekidata"])
    }

    /// `ab\0cd` in stations.csv was published as `ab` (SQLite's text binding stops at a NUL).
    func testANULInASourceIsAnErrorAtItsField() throws {
        var files = NativeCSVReaderTests.files
        files["stations.csv"] = files["stations.csv"]!.replacingOccurrences(of: "1130101,東京,", with: "1130101,東\u{0}京,")
        let folder = try makeSourceFolder(self, files)
        XCTAssertEqual(inputErrorMessages { try NativeCSVReader.read(folder: folder, label: "raw") },
                       ["raw/stations.csv:2: station: a NUL byte (0x00) in the field; text reaches the bundle byte for byte, and a NUL would cut it there: remove it"])
    }

    /// Whatever gave the network its text (a reader, a fix, a staging file), a NUL never
    /// reaches the bundle: the whole-network check refuses it by row and column.
    func testValidateRefusesANULInAnyText() {
        let network = RailNetwork(
            operators: [Operator(id: 1, name: "A\u{0}", type: 1)],
            lines: [Line(id: 10, name: "L", operatorID: 1)],
            stations: [Station(id: 5, name: "S", yomi: "え\u{0}き", pref: 13, address: "\u{0}", lat: 35_000_000, lng: 139_000_000, operatorID: 1)],
            stationLines: [StationLine(lineID: 10, stationID: 5, sort: 1)])
        var problems = DiagnosticCollector()
        network.validate(&problems, place: "build/staging.bin")
        XCTAssertEqual(problems.diagnostics.map(\.description), [
            "build/staging.bin: operator 1: operator holds a NUL byte (0x00), which would cut it in the bundle; expected text without one",
            "build/staging.bin: station 5: yomi holds a NUL byte (0x00), which would cut it in the bundle; expected text without one",
            "build/staging.bin: station 5: address holds a NUL byte (0x00), which would cut it in the bundle; expected text without one",
        ])
    }
}
