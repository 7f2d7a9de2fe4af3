import Foundation
import StationCore
import XCTest

final class HandWeightsTests: XCTestCase {
    let network = RailNetwork(operators: [Operator(id: 1, name: "Op", type: 1)], stations: [
        Station(id: 10, name: "A", pref: 13, lat: 35_000_000, lng: 139_000_000, operatorID: 1),
        Station(id: 20, name: "B", pref: 13, lat: 35_100_000, lng: 139_100_000, operatorID: 1),
        Station(id: 30, name: "C", pref: 13, lat: 35_200_000, lng: 139_200_000, operatorID: 1, enabled: false),
    ])

    func testReadsWeightsAndNotes() throws {
        let r = try HandWeights.parse("s_id,weight,note\n20,4,\"junction, big\"\n10,1,\n", label: "raw/weights.csv", network: network)
        XCTAssertEqual(r.weights.map(\.stationID), [10, 20])
        XCTAssertEqual(r.weights.map(\.weight), [1, 4])
        XCTAssertEqual(r.weights[1].note, "junction, big")
        XCTAssertEqual(r.weights[1].location, SourceLocation(file: "raw/weights.csv", line: 2))
        XCTAssertEqual(r.warnings, [])
    }

    func testNoteColumnIsOptional() throws {
        let r = try HandWeights.parse("weight,s_id\n7,10\n", label: "w.csv", network: network)
        XCTAssertEqual(r.weights, [HandWeight(stationID: 10, weight: 7, location: SourceLocation(file: "w.csv", line: 2))])
    }

    func testEveryBadRowIsReportedWithFileAndLine() {
        let text = "s_id,weight,note\n10,3,\n99,2,ghost\n20,12,\n10,4,again\nx,1,\n20,0,\n"
        XCTAssertThrowsError(try HandWeights.parse(text, label: "raw/weights.csv", network: network)) { error in
            guard let e = error.station(.badInput) else { return XCTFail("expected bad input (exit 2), got \(error)") }
            let lines = e.description.split(separator: "\n").map(String.init)
            XCTAssertEqual(lines, [
                "error: raw/weights.csv:3: s_id: no station with s_id 99 in the network",
                "error: raw/weights.csv:4: weight: expected 1..10, found 12",
                "error: raw/weights.csv:5: s_id: station 10 is listed twice (first on line 2)",
                "error: raw/weights.csv:6: s_id: expected an integer, found 'x'",
                "error: raw/weights.csv:7: weight: expected 1..10, found 0",
                "error: raw/weights.csv:7: s_id: station 20 is listed twice (first on line 4)",
            ])
        }
    }

    func testMissingColumnIsAnInputError() {
        XCTAssertThrowsError(try HandWeights.parse("s_id,note\n10,x\n", label: "raw/weights.csv", network: network)) { error in
            XCTAssertTrue(error.station(.badInput)?.description.contains("missing column weight") == true, "\(error)")
        }
    }

    func testDisabledStationIsAWarningNotAnError() throws {
        let r = try HandWeights.parse("s_id,weight\n30,2\n", label: "raw/weights.csv", network: network)
        XCTAssertEqual(r.weights.map(\.stationID), [30])
        XCTAssertEqual(r.warnings.count, 1)
        XCTAssertEqual(r.warnings.first?.location, SourceLocation(file: "raw/weights.csv", line: 2, field: "s_id"))
        XCTAssertEqual(r.warnings.first?.description, "raw/weights.csv:2: s_id: station 30 is disabled; its hand weight 2 is kept but not shown")
    }

    func testEmptyFileMeansNoHandWeights() throws {
        XCTAssertEqual(try HandWeights.parse("", label: "raw/weights.csv", network: network).weights, [])
        XCTAssertEqual(try HandWeights.parse("s_id,weight,note\n", label: "raw/weights.csv", network: network).weights, [])
    }

    func testResolveReadsTheFileNamed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hand-\(UUID().uuidString)").path
        try Files.createFolder(folder)
        defer { Files.remove(folder) }
        let path = joinPath(folder, "weights.csv")
        try Files.write(Array("s_id,weight\n20,4\n30,2\n".utf8), to: path)
        let r = try HandWeights.resolve(path, raw: folder, network: network)
        XCTAssertEqual(r.weights.map(\.stationID), [20, 30])
        XCTAssertEqual(r.weights.first?.location, SourceLocation(file: path, line: 2))
        XCTAssertEqual(r.warnings.map(\.location), [SourceLocation(file: path, line: 3, field: "s_id")])
        XCTAssertEqual(try HandWeights.read(path: path, label: "raw/weights.csv", network: network).weights.first?.location,
                       SourceLocation(file: "raw/weights.csv", line: 2))
        // A file named but missing is bad input (a path that names nothing, exit 2), not "no hand weights".
        XCTAssertThrowsError(try HandWeights.resolve(joinPath(folder, "missing.csv"), raw: folder, network: network)) { error in
            XCTAssertEqual(error.station(.badInput)?.diagnostics, [Diagnostic(SourceLocation(file: joinPath(folder, "missing.csv")), "no such file or folder")])
        }
    }
}
