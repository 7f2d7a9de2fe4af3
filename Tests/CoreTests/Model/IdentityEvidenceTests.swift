import Foundation
import StationCore
import TestSupport
import XCTest

/// The one evidence model every identity goes through, on the pairs its table is about, and
/// the table docs/maintaining.md shows, which must be the model's own.
final class IdentityEvidenceTests: XCTestCase {
    func station(_ name: String, metresNorth: Double = 0, operatorID: Int = 1, shinkansen: Bool = false, enabled: Bool = true) -> StationRecord {
        StationRecord(name: name, lat: 35_681_000 + Int(metresNorth / 111_195 * 1_000_000), lng: 139_767_000, operatorID: operatorID,
                      shinkansen: shinkansen, enabled: enabled)
    }

    func testNamesAgreeTheSameAsAVariantOrNot() {
        func N(_ a: String, _ b: String) -> IdentityEvidence.NameAgreement {
            IdentityEvidence.NameAgreement(base: StationName.base(a), StationName.base(b))
        }
        XCTAssertEqual(N("東京駅", "東京"), .same)
        XCTAssertEqual(N("四ツ谷", "四ツ谷(四ッ谷)"), .same)
        XCTAssertEqual(N("観光通", "観光通り"), .variant)
        XCTAssertEqual(N("霞ケ関", "霞ヶ関"), .same)
        XCTAssertEqual(N("赤迫", "新赤迫"), .other, "a first character added makes another name")
        XCTAssertEqual(N("上野", "上野広小路"), .other)
        XCTAssertEqual(N("新橋", "田町"), .other)
        XCTAssertEqual(N("白石", "白井"), .other, "one character changed is another station as often as not")
        XCTAssertEqual(N("駅60", "駅61"), .other)
    }

    /// The scalar walk a plain name takes gives what walking its Characters gives (the
    /// definition, below, as the function was first written), plain or not: spacing sound
    /// marks NFKC turns into a space and a combining mark, a CR LF, full-width letters,
    /// brackets, a trailing 駅 alone or after a space.
    func testNormalisingByScalarsIsNormalisingByCharacters() {
        func byCharacters(_ name: String) -> String {
            var s = NFKC.normalize(name)
            s.removeAll { $0.isWhitespace }
            if s.hasSuffix("駅"), s.count > 1 { s.removeLast() }
            return String(s.map { ["ヶ", "ヵ", "が", "ガ", "ケ"].contains($0) ? "ケ" : $0 })
        }
        let names = ["東京駅", "駅", " 駅", "霞ヶ関", "霞が関", "霞か\u{3099}関", "霞か゛関", "霞ケ関 駅", "ＪＲ難波", "ｶﾞｰﾃﾞﾝ",
                     "A\r\nB", "が\u{301}", "とうきょう", "トウキョウ", "Tokyo Sta.", "四ツ谷(四ッ谷)", "押上〈スカイツリー前〉", "〆切", "ヿ"]
        for name in names {
            XCTAssertEqual(StationName.normalized(name), byCharacters(name), name.debugDescription)
        }
        XCTAssertEqual(StationName.base("四ツ谷(四ッ谷)"), "四ツ谷")
        XCTAssertEqual(StationName.base("近鉄四日市（あすなろう四日市）駅"), "近鉄四日市")
        XCTAssertEqual(StationName.base("(仮)"), "(仮)", "a name that is all brackets keeps them")
    }

    func testTheTableCasesWeighAsDocumented() {
        let noContext = PairContext()
        // A nightly: everything agrees.
        let same = IdentityEvidence.weigh(station("新橋"), station("新橋", metresNorth: 20), PairContext(key: .id, continuity: 1))
        XCTAssertEqual(same.total, 6 + 5 + 2 + 4 + 6)
        XCTAssertTrue(same.links)
        // A line passed to another operator, its stations with it, reopened after years closed.
        let reopened = IdentityEvidence.weigh(station("磯鶏", operatorID: 3, enabled: false), station("磯鶏", operatorID: 10), PairContext(continuity: 1))
        XCTAssertTrue(reopened.transferred)
        XCTAssertTrue(reopened.links, "\(reopened.terms)")
        // The same place and name under another operator, its line left behind: a contradiction.
        let leftBehind = IdentityEvidence.weigh(station("東京", operatorID: 3, shinkansen: true), station("東京", operatorID: 4, shinkansen: true),
                                                PairContext(continuity: 1, ownOperatorStaysThere: true))
        XCTAssertEqual(leftBehind.contradiction, .lineLeftBehind)
        XCTAssertFalse(leftBehind.links)
        // A lone station of another operator where a closed one stood: no line continues it.
        XCTAssertFalse(IdentityEvidence.weigh(station("奥飛騨温泉口", operatorID: 68, enabled: false), station("奥飛騨温泉口", operatorID: 200), noContext).links)
        // A flip between Shinkansen and conventional, and another name far away, are contradictions whatever else agrees.
        XCTAssertEqual(IdentityEvidence.weigh(station("庭坂"), station("庭坂", shinkansen: true), PairContext(key: .id, continuity: 1)).contradiction, .kind)
        XCTAssertEqual(IdentityEvidence.weigh(station("新橋"), station("田町", metresNorth: 2_483), PairContext(key: .id, continuity: 1)).contradiction, .farName)
        // Renamed where it stands on its line: linked; with nothing but its place: not.
        XCTAssertTrue(IdentityEvidence.weigh(station("仲木戸"), station("京急東神奈川", metresNorth: 60), PairContext(continuity: 1)).links)
        XCTAssertFalse(IdentityEvidence.weigh(station("仲木戸"), station("京急東神奈川", metresNorth: 60), noContext).links)
    }

    /// docs/maintaining.md shows the model's table as the model states it.
    func testTheMaintainersGuideShowsTheModelsTable() throws {
        let guide = String(decoding: try Files.read(RepositoryData.root + "/docs/maintaining.md"), as: UTF8.self)
        XCTAssertTrue(guide.contains(IdentityEvidence.table), "docs/maintaining.md's evidence table differs from the model's; put this there:\n\(IdentityEvidence.table)")
    }
}
