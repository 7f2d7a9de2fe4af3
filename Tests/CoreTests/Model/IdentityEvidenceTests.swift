import Foundation
import StationCore
import TestSupport
import XCTest

/// The one evidence model every identity goes through: the levels it reads off a pair, what
/// its estimated weights promise whatever their values (what a careless source can do never
/// links), and the table docs/maintaining.md shows, which must be the model's own.
final class IdentityEvidenceTests: XCTestCase {
    let model = IdentityModel.estimated

    func station(_ name: String, yomi: String = "", metresNorth: Double = 0, operatorID: Int = 1, shinkansen: Bool = false, enabled: Bool = true,
                 keys: [String] = []) -> IdentityStation {
        IdentityStation(name: name, yomi: yomi, lat: 35_681_000 + Int(metresNorth / 111_195 * 1_000_000), lng: 139_767_000, operatorID: operatorID,
                        shinkansen: shinkansen, enabled: enabled, keys: keys)
    }

    /// `a` (as registered) against `b` (as this run gives it), each on a line with two more
    /// stations: `continuing` keeps b's line a's (its stations by name and place), else b's line
    /// runs through others.
    func weigh(_ a: IdentityStation, _ b: IdentityStation, continuing: Bool = true) -> IdentityModel.Weight {
        var a = a, b = b
        (a.lines, b.lines) = ([0], [0])
        func on(_ s: IdentityStation) -> IdentityStation { var s = s; s.lines = [0]; return s }
        let old = IdentitySide([a, on(station("前", metresNorth: -1_500)), on(station("後", metresNorth: 1_500))])
        let new = IdentitySide([b, on(station(continuing ? "前" : "他", metresNorth: continuing ? -1_500 : -4_000)),
                                on(station(continuing ? "後" : "外", metresNorth: continuing ? 1_500 : 4_000))])
        return model.weigh(IdentitySides(old: old, new: new), 0, 0)
    }

    func level(_ w: IdentityModel.Weight, _ comparison: String) -> String? { w.terms.first { $0.comparison == comparison }?.level }

    func testNamesAgreeTheSameByReadingAsAVariantOrNot() {
        func N(_ a: String, _ b: String, yomi: (String, String) = ("", "")) -> IdentityModel.NameAgreement {
            IdentityModel.NameAgreement(station(a, yomi: yomi.0), station(b, yomi: yomi.1))
        }
        XCTAssertEqual(N("東京駅", "東京"), .same)
        XCTAssertEqual(N("四ツ谷", "四ツ谷(四ッ谷)"), .same)
        XCTAssertEqual(N("霞ケ関", "霞ヶ関"), .same)
        XCTAssertEqual(N("髙田馬場", "高田馬場", yomi: ("たかだのばば", "たかだのばば")), .reading, "an old character form, read the same")
        XCTAssertEqual(N("観光通", "観光通り"), .variant)
        XCTAssertEqual(N("赤迫", "新赤迫"), .other, "a first character added makes another name")
        XCTAssertEqual(N("上野", "上野広小路"), .other)
        XCTAssertEqual(N("白石", "白井", yomi: ("しろいし", "しらい")), .other, "one character changed is another station as often as not")
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

    /// Each comparison's level as the scorer reads it off a pair, every pair with a term of each
    /// comparison, and the running total the sum of the terms.
    func testEachComparisonFallsInOneLevel() {
        let nightly = weigh(station("新橋", keys: ["k"]), station("新橋", metresNorth: 20, keys: ["k"]))
        XCTAssertEqual(nightly.terms.map(\.comparison), ["name and place", "line", "status", "kind", "key"])
        XCTAssertEqual(nightly.terms.map(\.level), ["the same name, up to 100 m", "continues, the same operator", "as it was", "the same", "the source's id for it"])
        XCTAssertEqual(nightly.total, nightly.terms.reduce(0) { $0 + $1.weight })
        let flipped = weigh(station("新橋", operatorID: 3, enabled: false), station("田町", metresNorth: 2_483, operatorID: 4, shinkansen: true), continuing: false)
        XCTAssertEqual(flipped.terms.map(\.level), ["another name, farther", "breaks, another operator", "reopened", "Shinkansen and conventional", "none"])
        let place = "name and place"
        XCTAssertEqual(level(weigh(station("a"), station("a", metresNorth: 250)), place), "the same name, up to 300 m")
        XCTAssertEqual(level(weigh(station("a"), station("a", metresNorth: 900)), place), "the same name, up to 1 km")
        XCTAssertEqual(level(weigh(station("a"), station("a", metresNorth: 4_000)), place), "the same name, farther than 1 km")
        XCTAssertEqual(level(weigh(station("a"), station("b", metresNorth: 250)), place), "another name, up to 300 m")
        XCTAssertEqual(level(weigh(station("観光通"), station("観光通り", metresNorth: 250)), place), "another spelling, up to 300 m")
        XCTAssertEqual(level(weigh(station("観光通"), station("観光通り", metresNorth: 2_500)), place), "another name, farther")
        XCTAssertEqual(level(model.weigh(IdentitySides(old: IdentitySide([station("a")]), new: IdentitySide([station("a")])), 0, 0), "line"),
                       "no line to compare")
    }

    /// A name many stations share weighs less than a rare one (term frequency), as far as the pair reaches.
    func testAFrequentNameSaysLess() {
        let rare = IdentitySide([station("本町"), station("中央", metresNorth: 3_000)])
        let frequent = IdentitySide([station("本町"), station("本町", metresNorth: 30, operatorID: 2), station("本町", metresNorth: 3_000),
                                     station("本町", metresNorth: 4_500), station("本町", metresNorth: 60_000)])
        let now = IdentitySide([station("本町", metresNorth: 4_600)])
        let w = model.weigh(IdentitySides(old: frequent, new: now), 0, 0)
        XCTAssertLessThan(w.total, model.weigh(IdentitySides(old: rare, new: now), 0, 0).total)
        XCTAssertEqual(w.terms.first { $0.level.hasPrefix("shared by") }?.level, "shared by 3 places as near", "two operators' rows at one place are one place")
        // At its place, a name other places share a few kilometres off says as much as a rare one.
        let here = IdentitySide([station("本町", metresNorth: 10)])
        XCTAssertEqual(model.weigh(IdentitySides(old: frequent, new: here), 0, 0).total, model.weigh(IdentitySides(old: rare, new: here), 0, 0).total)
    }

    /// What the estimated weights promise, whatever their values: a nightly and a line handed
    /// on link; what a careless source does (an id given to a Shinkansen station, another name
    /// far away, a lone station of another operator) does not, its key included.
    func testTheWeightsKeepTheirPromises() {
        XCTAssertTrue(model.links(weigh(station("新橋", keys: ["k"]), station("新橋", metresNorth: 20, keys: ["k"]))), "a nightly")
        XCTAssertTrue(model.links(weigh(station("磯鶏", operatorID: 3), station("磯鶏", operatorID: 10))), "a line handed to another operator")
        XCTAssertTrue(model.links(weigh(station("仲木戸", keys: ["k"]), station("京急東神奈川", metresNorth: 60, keys: ["k"]))), "renamed where it stands")
        // (A source's key tells a Shinkansen row from a conventional one: `:shinkansen`, so it never joins the two.)
        XCTAssertFalse(model.links(weigh(station("庭坂"), station("庭坂", shinkansen: true))), "a Shinkansen station and a conventional one")
        XCTAssertFalse(model.links(weigh(station("新橋", keys: ["k"]), station("田町", metresNorth: 2_483, keys: ["k"]))), "another name far away, its key given on")
        XCTAssertFalse(model.links(weigh(station("奥飛騨温泉口", operatorID: 68, enabled: false), station("奥飛騨温泉口", operatorID: 200), continuing: false)),
                       "a lone station of another operator where a closed one stood")
        XCTAssertFalse(model.links(weigh(station("仲木戸"), station("京急東神奈川", metresNorth: 60), continuing: false)), "another name, nothing but its place")
        XCTAssertLessThan(model.possible, model.link)
    }

    /// The table lists every level the scorer weighs, in order; one that lacks a level is refused.
    func testTheTableHoldsEveryLevel() throws {
        XCTAssertEqual(model.levels.map { "\($0.comparison): \($0.level)" },
                       IdentityModel.vocabulary.filter { $0.comparison != "threshold" }.flatMap { c in c.levels.map { "\(c.comparison): \($0)" } })
        let short = Array(String(decoding: IdentityModel.csv, as: UTF8.self).split(separator: "\n").dropLast(4).joined(separator: "\n").utf8)
        XCTAssertThrowsError(try IdentityModel(csv: short + Array("\n".utf8)))
    }

    /// docs/maintaining.md shows the model's table as the model states it.
    func testTheMaintainersGuideShowsTheModelsTable() throws {
        let guide = String(decoding: try Files.read(RepositoryData.root + "/docs/maintaining.md"), as: UTF8.self)
        XCTAssertTrue(guide.contains(model.table), "docs/maintaining.md's evidence table differs from the model's; put this there:\n\(model.table)")
    }
}
