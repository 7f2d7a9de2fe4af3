import XCTest
@testable import Transfer

final class TransferSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
