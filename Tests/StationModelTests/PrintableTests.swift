import StationIO
import XCTest

/// printable(_:), the one escaping of outside text for messages and logs.
final class PrintableTests: XCTestCase {
    func testControlCharactersAreShownNotPassed() {
        XCTAssertEqual(printable("東京\r\nerror: forged"), "東京\\u{d}\\u{a}error: forged")
        XCTAssertEqual(printable("\u{1B}[2Jx\u{7F}\u{85}\u{2028}\u{202E}"), "\\u{1b}[2Jx\\u{7f}\\u{85}\\u{2028}\\u{202e}")
        XCTAssertEqual(printable("品川 (JR東日本) ヶ"), "品川 (JR東日本) ヶ", "text without control characters is as it was")
        XCTAssertEqual(shown("a\nb"), "a\\u{a}b", "shown() quotes printably too")
    }
}
