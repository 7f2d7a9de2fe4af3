import Foundation
import XCTest
import StationModel
@testable import Ingest

final class EkidataNationalTests: XCTestCase {
    func testNationalDataReadsClean() throws {
        let folder = sharedDataFolder("ekidata")
        guard FileManager.default.fileExists(atPath: folder + "/station.csv") else {
            throw XCTSkip("national ekidata data absent at \(folder)")
        }
        let network = try EkidataReader.read(folder: folder, label: "ekidata")
        print("national ekidata:", network.operators.count, network.lines.count, network.stations.count,
              network.stationLines.count, network.stations.filter { $0.enabled == true }.count)
    }
}
