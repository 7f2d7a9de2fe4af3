import Glibc

// The few string operations stationdb took from Foundation, reproducing what
// Foundation printed so that reports, CSV and XML stay byte-identical.

extension String {
    /// `value` with `decimals` digits after the point, as printf's "%.Nf" (or
    /// "%+.Nf" when `alwaysSigned`) prints it: C's own rounding, "-0.000" included.
    public init(fixed value: Double, decimals: Int, alwaysSigned: Bool = false) {
        if let exact = String.exactFixed(value, decimals: decimals, alwaysSigned: alwaysSigned) { self = exact; return }
        let format = alwaysSigned ? "%+.*f" : "%.*f"
        var buffer = [CChar](repeating: 0, count: 64)
        let needed = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        if Int(needed) >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(needed) + 1)
            _ = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) }
        }
        self = String(cString: buffer)
    }

    /// printf's "%.Nf" worked out in integers, for the values a report prints
    /// (finite, below 2^53, at most 9 decimals); nil for the rest. printf rounds the
    /// double's exact binary value half to even, and so does this: `value` is
    /// m * 2^e exactly, so value * 10^N is m * 10^N / 2^-e, whose quotient and
    /// remainder say which way to round. Going through vsnprintf cast each argument
    /// to find how to pass it, ~14,000 instructions a number.
    static func exactFixed(_ value: Double, decimals: Int, alwaysSigned: Bool) -> String? {
        guard value.isFinite, abs(value) < 0x1p53, (0...9).contains(decimals) else { return nil }
        let magnitude = abs(value)
        var scale: UInt128 = 1
        for _ in 0..<decimals { scale *= 10 }
        var units: UInt128
        if magnitude == 0 {
            units = 0
        } else {
            let e = Int(magnitude.exponent) - 52
            let m = UInt128(magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0))
            if e >= 0 {
                units = (m << e) * scale
            } else if -e >= 120 {
                units = 0   // below 2^-67 * 10^9: far under half a unit
            } else {
                let shift = -e
                let scaled = m * scale
                units = scaled >> shift
                let rest = scaled & ((1 << shift) - 1), half: UInt128 = 1 << (shift - 1)
                if rest > half || (rest == half && units & 1 == 1) { units += 1 }
            }
        }
        var digits = String(units)
        if digits.count <= decimals { digits = String(repeating: "0", count: decimals - digits.count + 1) + digits }
        if decimals > 0 { digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -decimals)) }
        let sign = value.sign == .minus ? "-" : alwaysSigned ? "+" : ""
        return sign + digits
    }

    /// Every `target` (an ASCII character) replaced by `replacement`, matched as
    /// Foundation's replacingOccurrences(of:with:) matched it: not where a
    /// combining mark follows and makes it part of another character
    /// ("&\u{301}" is not an ampersand), but also where a character canonically
    /// equal to it stands (U+1FEF GREEK VARIA is a grave accent).
    public func replacingEvery(_ target: Unicode.Scalar, with replacement: String) -> String {
        let alias = asciiSingletons.first { $0.value == target }?.key
        guard unicodeScalars.contains(where: { $0 == target || $0 == alias }) else { return self }
        var out = String.UnicodeScalarView()
        let scalars = Array(unicodeScalars)
        for (i, scalar) in scalars.enumerated() {
            if scalar == target || scalar == alias, i + 1 == scalars.count || !continuesCharacter(scalars[i + 1]) {
                out.append(contentsOf: replacement.unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}

/// The characters whose canonical decomposition is a single ASCII character.
private let asciiSingletons: [Unicode.Scalar: Unicode.Scalar] = ["\u{037E}": ";", "\u{1FEF}": "`", "\u{212A}": "K"]

/// Whether `scalar` joins the one before it into one character as
/// CoreFoundation (under Foundation's search) saw it: Unicode's Grapheme_Extend
/// as of CoreFoundation's older Unicode data, plus emoji skin tones and one Ahom
/// sign. The scalars Unicode has added to Grapheme_Extend since (newer scripts,
/// Indic vowel signs reclassified) did not count, so they are left out here.
private func continuesCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0..<0x300: return false
    case 0x1171E, 0x1F3FB...0x1F3FF: return true
    case 0x897, 0xCC0, 0xCC7...0xCC8, 0xCCA...0xCCB, 0x1715, 0x1734, 0x1ACF...0x1ADD, 0x1AE0...0x1AEB,
         0x1B3B, 0x1B3D, 0x1B43...0x1B44, 0x1BAA, 0x1BF2...0x1BF3, 0xA953, 0xA9C0, 0x10D69...0x10D6D,
         0x10EFA...0x10EFC, 0x111C0, 0x11235, 0x1134D, 0x113B8, 0x113BB...0x113C0, 0x113C2, 0x113C5,
         0x113C7...0x113C9, 0x113CE...0x113D0, 0x113D2, 0x113E1...0x113E2, 0x116B6, 0x1193D, 0x11B60,
         0x11B62...0x11B64, 0x11B66, 0x11F41, 0x11F5A, 0x1611E...0x16129, 0x1612D...0x1612F,
         0x16FF0...0x16FF1, 0x1D166, 0x1D16D, 0x1E5EE...0x1E5EF, 0x1E6E3, 0x1E6E6, 0x1E6EE...0x1E6EF, 0x1E6F5:
        return false
    default: return scalar.properties.isGraphemeExtend
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs: the scalars of
    /// Foundation's CharacterSet.whitespaces (Unicode Zs, tab and U+200B).
    public func trimmingWhitespace() -> String {
        trimmingScalars { isWhitespace($0) }
    }

    /// Also without line breaks: CharacterSet.whitespacesAndNewlines.
    public func trimmingWhitespaceAndNewlines() -> String {
        trimmingScalars { isWhitespace($0) || (0x0A...0x0D).contains($0.value) || $0.value == 0x85 || $0.value == 0x2028 || $0.value == 0x2029 }
    }

    private func trimmingScalars(_ trim: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !trim($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !trim($0) })!
        return String(scalars[first...last])
    }
}

private func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x09, 0x20, 0xA0, 0x1680, 0x2000...0x200B, 0x202F, 0x205F, 0x3000: return true
    default: return false
    }
}
