import Foundation
import StationCore
import XCTest

/// The readers `stationdb build` uses: the weights file (numbers with blanks, signs
/// and quotes read as integers, anything else refused naming file, line and column),
/// and the staging file, which must give back what was written.
final class InputReadTests: XCTestCase {
    private var folder: String!

    override func setUpWithError() throws {
        folder = (NSTemporaryDirectory() as NSString).appendingPathComponent("InputReadTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(atPath: folder) }

    private func weights(_ text: String) throws -> [Int: Int] {
        let path = (folder as NSString).appendingPathComponent("weights.csv")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try StationWeightsFile.read(from: path)
    }

    func testPlainWeightsRoundTrip() throws {
        let expected = [1110101: 1, 1110102: 13, 9999999: 7]
        let path = (folder as NSString).appendingPathComponent("w.csv")
        try StationWeightsFile.write(expected, to: path)
        XCTAssertEqual(try StationWeightsFile.read(from: path), expected)
        // Columns in the other order, a later duplicate winning, CRLF lines.
        XCTAssertEqual(try weights("weight,s_id\r\n3,10\r\n4,10\r\n5,011\r\n"), [10: 4, 11: 5])
    }

    func testFieldsThatAreNotPlainDigits() throws {
        // What Int() accepts after trimming is still accepted.
        XCTAssertEqual(try weights("s_id,weight\n 10 ,+3\n11,\"4\"\n"), [10: 3, 11: 4])
        for bad in ["s_id,weight\n10,14\n", "s_id,weight\n10,0\n", "s_id,weight\n10,x\n", "s_id,weight\n,3\n", "s_id\n10\n"] {
            XCTAssertThrowsError(try weights(bad), bad) { XCTAssertTrue($0.station(.badInput) != nil, "\(bad): \($0)") }
        }
        XCTAssertThrowsError(try weights("s_id,weight\n10,14\n")) { error in
            XCTAssertTrue(error.station(.badInput)?.description.contains("expected 1..13, found 14") == true, "\(error)")
        }
    }

    func testStagingReadGivesBackWhatWasWritten() throws {
        var network = RailNetwork()
        network.operators = [Operator(id: 1, name: "JR East", type: 1, enabled: true), Operator(id: 2, name: "Tokyu", type: 2, enabled: false)]
        network.lines = [Line(id: 11, name: "Yamanote", operatorID: 1, enabled: true, type: 2),
                         Line(id: 12, name: "Toyoko", operatorID: 2, enabled: false, type: nil)]
        network.stations = [
            Station(id: 101, name: "Tokyo", yomi: "とうきょう", wiki: "Tokyo_Station", pref: 13, address: "Chiyoda",
                    lat: 35_681_382, lng: 139_766_084, operatorID: 1, enabled: true),
            Station(id: 102, name: "Shibuya", yomi: "しぶや", wiki: "", pref: 13, address: "Shibuya",
                    lat: 35_658_034, lng: 139_701_636, operatorID: 2, enabled: false),
        ]
        network.stationLines = [StationLine(lineID: 11, stationID: 102, sort: 1), StationLine(lineID: 11, stationID: 101, sort: 2),
                                StationLine(lineID: 12, stationID: 102, sort: 1)]
        let path = (folder as NSString).appendingPathComponent("staging.bin")
        try StagingFile.write(Staging(network: network, meta: ["source:a.csv": "abc", "source:b.xml": "def"]), to: path)
        let read = try StagingFile.read(from: path)
        XCTAssertEqual(read.meta, ["source:a.csv": "abc", "source:b.xml": "def"])
        XCTAssertEqual(read.network.operators, network.operators)
        XCTAssertEqual(read.network.lines, network.lines)
        XCTAssertEqual(read.network.stations, network.stations)
        XCTAssertEqual(read.network.stationLines, network.stationLines)
        XCTAssertThrowsError(try StagingFile.read(from: (folder as NSString).appendingPathComponent("missing.sqlite"))) {
            XCTAssertTrue($0.station(.badInput) != nil, "a path that names nothing is what was given: \($0)")
        }
    }
}
