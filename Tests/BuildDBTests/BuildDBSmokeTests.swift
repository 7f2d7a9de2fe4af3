import XCTest
@testable import BuildDB

final class BuildDBSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
