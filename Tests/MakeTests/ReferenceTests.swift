import Foundation
import StationCore
import TestSupport
import XCTest

/// docs/cli.md is generated from the commands (`stationdb reference`): it never drifts.
final class ReferenceTests: XCTestCase {
    func testTheCommittedCLIReferenceIsWhatTheCommandsSay() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try BuiltTools.stationdb())
        p.arguments = ["reference"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let printed = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let committed = try Files.read(RepositoryData.root + "/docs/cli.md")
        XCTAssertTrue(Array(printed) == committed,
                      "docs/cli.md differs from what the commands say; regenerate it: .build/release/stationdb reference > docs/cli.md")
    }
}
