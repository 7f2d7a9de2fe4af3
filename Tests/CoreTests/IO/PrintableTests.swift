import StationCore
import XCTest

/// printable(_:), the one escaping of outside text for messages and logs.
final class PrintableTests: XCTestCase {
    func testControlCharactersAreShownNotPassed() {
        XCTAssertEqual(printable("東京\r\nerror: forged"), "東京\\u{D}\\u{A}error: forged")
        XCTAssertEqual(printable("\u{1B}[2Jx\u{7F}\u{85}"), "\\u{1B}[2Jx\\u{7F}\\u{85}")
        XCTAssertEqual(printable("品川 (JR東日本) ヶ"), "品川 (JR東日本) ヶ", "text without control characters is as it was")
        XCTAssertEqual(shown("a\nb"), "a\\u{A}b", "shown() quotes printably too")
    }
}
