import Priority
import StationCore
import XCTest

final class MeshCodeTests: XCTestCase {
    private func micro(_ s: String) -> Int { MicroDegrees.parse(s)! }

    private func codes(_ lat: String, _ lng: String) -> [Int] {
        [MeshLevel.first, .second, .third, .half, .quarter, .fiveKilometre].map {
            MeshCode(lat: micro(lat), lng: micro(lng), level: $0).code
        }
    }

    func testSpecWorkedExampleTokyoStation() {
        XCTAssertEqual(MeshCode(lat: 35_681_236, lng: 139_767_125, level: .first).code, 5339)
        XCTAssertEqual(MeshCode(lat: 35_681_236, lng: 139_767_125, level: .second).code, 533946)
        XCTAssertEqual(MeshCode(lat: 35_681_236, lng: 139_767_125, level: .third).code, 53394611)
        XCTAssertEqual(MeshCode(lat: 35_681_236, lng: 139_767_125, level: 3)?.description, "53394611")
        XCTAssertNil(MeshCode(lat: 35_681_236, lng: 139_767_125, level: 6))
    }

    /// Values from the jismesh package (levels 1, 2, 3, 4, 5 and 5000, the 5 km mesh),
    /// for points well inside their cells, where floating point cannot go wrong.
    func testAgreesWithJismeshAwayFromEdges() {
        XCTAssertEqual(codes("35.681236", "139.767125"), [5339, 533946, 53394611, 533946113, 5339461132, 5339461])
        XCTAssertEqual(codes("35.658581", "139.745433"), [5339, 533935, 53393599, 533935992, 5339359921, 5339354])
        XCTAssertEqual(codes("26.212401", "127.679221"), [3927, 392725, 39272554, 392725541, 3927255414, 3927253])
        XCTAssertEqual(codes("43.068661", "141.350755"), [6441, 644142, 64414288, 644142881, 6441428811, 6441424])
        XCTAssertEqual(codes("35.249999", "139.124999"), [5239, 523960, 52396099, 523960994, 5239609944, 5239604])
    }

    /// A point exactly on an edge belongs to the cell north / east of it.
    func testPointOnEdgeBelongsNorthEast() {
        // 35.25 N is a 2nd-mesh edge (35.25 * 1.5 = 52.875 = 52 + 7/8); 139.125 E likewise.
        XCTAssertEqual(codes("35.25", "139.125"), [5239, 523971, 52397100, 523971001, 5239710011, 5239711])
        // A micro-degree south-west of it is in the cells below.
        XCTAssertEqual(MeshCode(lat: 35_249_999, lng: 139_124_999, level: .second).code, 523960)
        // 36 N is a 1st-mesh edge: 36 * 1.5 = 54.
        XCTAssertEqual(MeshCode(lat: 36_000_000, lng: 139_500_000, level: .first).code, 5439)
        XCTAssertEqual(MeshCode(lat: 35_999_999, lng: 139_500_000, level: .first).code, 5339)
        // 139.7625 E is a 3rd-mesh edge (39 + 6/8 + 1/80). Floating point
        // (0.7625 * 8 - 6) * 10 = 0.99999... puts it west; jismesh says 53394600.
        XCTAssertEqual(MeshCode(lat: 35_666_667, lng: 139_762_500, level: .third).code, 53394601)
        XCTAssertEqual(MeshCode(lat: 35_666_667, lng: 139_762_499, level: .third).code, 53394600)
        // 35 deg 40' N (35.6666...) lies between two micro-degrees: 35.666667 is north of it, 35.666666 south.
        XCTAssertEqual(MeshCode(lat: 35_666_667, lng: 139_762_500, level: .second).code, 533946)
        XCTAssertEqual(MeshCode(lat: 35_666_666, lng: 139_762_500, level: .second).code, 533936)
        // The half mesh's middle: 3rd cell 53394611 spans 35.675..35.683333 N, 139.7625..139.775 E.
        XCTAssertEqual(MeshCode(lat: 35_679_167, lng: 139_768_750, level: .half).code, 533946114)
        XCTAssertEqual(MeshCode(lat: 35_679_166, lng: 139_768_749, level: .half).code, 533946111)
    }

    func testSouthWestCornerLiesInItsOwnCell() {
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let lat = 24_000_000 + rng.below(22_000_000), lng = 123_000_000 + rng.below(23_000_000)
            for level in MeshLevel.allCases {
                let cell = MeshCode(lat: lat, lng: lng, level: level)
                let sw = cell.southWestDegrees
                // Round the corner up to the next micro-degree: it is then inside (edges belong north/east).
                let a = Int((sw.lat * 1e6).rounded(.up)), b = Int((sw.lng * 1e6).rounded(.up))
                XCTAssertEqual(MeshCode(lat: a, lng: b, level: level), cell, "\(level) \(lat),\(lng)")
                XCTAssertLessThanOrEqual(a, lat); XCTAssertLessThanOrEqual(b, lng)
                XCTAssertEqual(String(cell.code).count, level.digits)
            }
        }
    }

    func testCellsNestInTheirParents() {
        var rng = SeededGenerator(seed: 8)
        for _ in 0..<500 {
            let lat = 24_000_000 + rng.below(22_000_000), lng = 123_000_000 + rng.below(23_000_000)
            let c = { (l: MeshLevel) in MeshCode(lat: lat, lng: lng, level: l).code }
            XCTAssertEqual(c(.second) / 100, c(.first))
            XCTAssertEqual(c(.fiveKilometre) / 10, c(.second))
            XCTAssertEqual(c(.third) / 100, c(.second))
            XCTAssertEqual(c(.half) / 10, c(.third))
            XCTAssertEqual(c(.quarter) / 10, c(.half))
        }
    }
}
