import Foundation
import StationModel
import XCTest
@testable import Priority

/// Writes the stand-in national network as a staging file, for tuning with the
/// CLI in a release build: PRIORITY_WRITE_STAGING=/tmp/national.bin swift test --filter NationalTuningTests
final class NationalTuningTests: XCTestCase {
    func testWriteNationalStagingWhenAsked() throws {
        guard let path = ProcessInfo.processInfo.environment["PRIORITY_WRITE_STAGING"] else {
            throw XCTSkip("set PRIORITY_WRITE_STAGING=path to write the national staging file")
        }
        let network = try NationalData.network()
        try StagingFile.write(Staging(network: network), to: path)
        XCTAssertEqual(try StagingFile.read(from: path).network.stations.count, network.stations.count)
    }
}
