import XCTest
@testable import Priority

final class PrioritySmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
