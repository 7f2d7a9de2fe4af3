import XCTest
@testable import BundleDiff

final class BundleDiffSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
