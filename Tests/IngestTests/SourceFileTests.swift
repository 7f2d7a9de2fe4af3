import Foundation
import Glibc
import XCTest
import StationIO
import StationModel
import TestSupport
@testable import Ingest

/// What may stand where a source file belongs: nothing, a FIFO, a device; and a
/// sources.json that is not JSON. Each is bad input (exit 2), named, for every kind of source.
final class SourceFileTests: XCTestCase {
    static let n02 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ksj:Dataset gml:id="D" xmlns:ksj="http://nlftp.mlit.go.jp/ksj/schemas/ksj-app" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink">
        <gml:Curve gml:id="c1"><gml:segments><gml:LineStringSegment><gml:posList>35.0 135.0 35.0 135.001</gml:posList></gml:LineStringSegment></gml:segments></gml:Curve>
        <ksj:Station gml:id="s1"><ksj:location xlink:href="#c1"/><ksj:railwayType>12</ksj:railwayType><ksj:serviceProviderType>4</ksj:serviceProviderType><ksj:railwayLineName>L</ksj:railwayLineName><ksj:operationCompany>A</ksj:operationCompany><ksj:stationName>X</ksj:stationName></ksj:Station>
        </ksj:Dataset>

        """

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
            try Files.write(Array(Self.n02.utf8), to: raw + "/N02.xml")
            try Files.write(Array(#"{ "sources": [ { "kind": "n02", "path": "N02.xml" } ] }"#.utf8), to: raw + "/sources.json")
        }
        _ = try await IngestPipeline.read(IngestOptions(rawFolder: raw, rawLabel: "raw"))
        return raw
    }

    /// Each kind's file that a test replaces.
    static let sourceFile: [SourceKind: String] = [.native: "native/stations.csv", .ekidata: "ekidata/station.csv", .n02: "N02.xml"]

    /// The InputError of ingest's read of `raw`, as printed, and how long it took.
    func refusal(_ raw: String, file: StaticString = #filePath, line: UInt = #line) async -> (messages: [String], seconds: Double) {
        let started = Date()
        do {
            _ = try await IngestPipeline.read(IngestOptions(rawFolder: raw, rawLabel: "raw"))
            XCTFail("expected an InputError", file: file, line: line)
        } catch let error as InputError {
            return (error.diagnostics.map(\.description), Date().timeIntervalSince(started))
        } catch {
            XCTFail("expected an InputError (exit 2), got \(type(of: error)): \(error)", file: file, line: line)
        }
        return ([], Date().timeIntervalSince(started))
    }

    /// README: "a source file that is gone is bad input (exit 2)". A missing N02 file was an
    /// environment error (exit 3); now every kind agrees.
    func testAMissingSourceFileIsBadInputForEveryKind() async throws {
        let expected: [SourceKind: String] = [
            .native: "raw/native/stations.csv: file not found; expected stations.csv in the source folder raw/native",
            .ekidata: "raw/ekidata/station.csv: file not found; expected station.csv in the source folder raw/ekidata",
            .n02: "raw/N02.xml: file not found; expected the N02 XML file sources.json names",
        ]
        for kind in SourceKind.allCases {
            let raw = try await raw(kind)
            unlink(raw + "/" + Self.sourceFile[kind]!)
            let messages = await refusal(raw).messages
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
                let (messages, seconds) = await refusal(raw)
                unblocker.stop()
                XCTAssertEqual(messages, ["raw/\(file): a FIFO (named pipe), not a file; expected a file here"], "\(kind) \(file)")
                XCTAssertLessThan(seconds, 1.5, "\(kind) \(file): refused before anything waited for a writer")
            }
        }
    }
}
