// Readings: the bundle's `yomi` is hiragana (bundle.md), while ekidata gives
// station readings in katakana. Clients search by the first one or two
// characters of yomi, so the conversion must be exact, not approximate.

package enum Kana {
    /// Katakana -> hiragana, one scalar at a time: ァ..ヶ become ぁ..ゖ and the
    /// iteration marks ヽヾ become ゝゞ. Everything else is kept: the long-vowel
    /// mark ー (used in hiragana readings too), the middle dot, ヷ..ヺ (which have
    /// no single hiragana form), half-width katakana, Latin letters and digits.
    package static func hiragana(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        var changed = false
        for u in text.unicodeScalars {
            switch u.value {
            case 0x30A1...0x30F6, 0x30FD...0x30FE:
                scalars.append(Unicode.Scalar(u.value - 0x60)!)
                changed = true
            default:
                scalars.append(u)
            }
        }
        return changed ? String(scalars) : text
    }
}
