import XCTest
@testable import StationModel

final class StationModelSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
