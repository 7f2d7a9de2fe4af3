import Foundation
import XCTest
import StationCore

/// Station names are matched after NFKC, done by the system's ICU since the
/// pipeline stopped linking Foundation; it must agree with what Foundation gave.
final class NFKCTests: XCTestCase {
    func testCompatibilityFormsBecomePlain() {
        XCTAssertEqual(NFKC.normalize("ＡＢＣ１２３"), "ABC123", "full-width Latin letters and digits")
        XCTAssertEqual(NFKC.normalize("ｶﾞ"), "ガ", "half-width katakana and its voiced mark compose")
        XCTAssertEqual(NFKC.normalize("①"), "1", "circled digit")
        XCTAssertEqual(NFKC.normalize("㍻"), "平成", "square era name")
        XCTAssertEqual(NFKC.normalize("ＪＲ東日本ﾃﾞｨｽﾞﾆｰﾗﾝﾄﾞ"), "JR東日本ディズニーランド")
    }

    func testPlainNamesAreUnchanged() {
        XCTAssertEqual(NFKC.normalize("Shin-Osaka (JR West) 1"), "Shin-Osaka (JR West) 1")
        XCTAssertEqual(NFKC.normalize(""), "")
        XCTAssertEqual(NFKC.normalize("霞ヶ関"), "霞ヶ関")
    }

    func testAgreesWithFoundation() {
        let names = ["ＡＢＣ１２３", "ｶﾞ", "ﾊﾟﾋﾟﾌﾟ", "①②⑩", "㍻", "霞ヶ関", "ＪＲ東京", "東京駅", "e\u{301}", "ﬁ", "Å",
                     "\u{1100}\u{1161}\u{11A8}", "ド\u{3099}", "～〜", "　全角空白　", "Ⅻ", "㈱", "½", "™"]
        for name in names {
            XCTAssertEqual(NFKC.normalize(name), name.precomposedStringWithCompatibilityMapping, name)
        }
    }
}
