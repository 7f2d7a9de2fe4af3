import XCTest
@testable import Ingest

final class IngestSmokeTests: XCTestCase {
    func testModuleLoads() throws {
        XCTAssertTrue(true)
    }
}
