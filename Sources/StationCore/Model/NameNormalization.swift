import CICU

// Station names from different sources spell the same place differently:
// full-width vs half-width (NFKC), a trailing 駅, and the small ヶ that is also
// written ケ, が or ガ (霞ヶ関, 霞が関, 霞ケ関).

package enum StationName {
    package static func normalized(_ name: String) -> String {
        // A name of scalars NFKC leaves alone has nothing a mark could join: its scalars are its
        // Characters, and walking them skips grapheme breaking, most of the time here otherwise.
        let plain = NFKC.isPlain(name)
        // Most names are already their own base: returned as they are, they share the name's
        // storage (a million stations' bases at 100 times national were 65 MB of copies).
        if plain, !name.unicodeScalars.contains(where: { u in u.value <= 0x20 && u.properties.isWhitespace || folded(u) }),
           name.unicodeScalars.last != "駅" || name.unicodeScalars.dropLast().isEmpty {
            return name
        }
        var s = plain ? name : NFKC.normalize(name)
        if plain || NFKC.isPlain(s) {
            var out = String.UnicodeScalarView()
            for u in s.unicodeScalars where !u.properties.isWhitespace { out.append(fold(u)) }
            if out.last == "駅", out.count > 1 { out.removeLast() }
            return String(out)
        }
        s.removeAll { $0.isWhitespace }
        if s.hasSuffix("駅"), s.count > 1 { s.removeLast() }
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s { out.append(c.unicodeScalars.count == 1 ? Character(fold(c.unicodeScalars.first!)) : c) }
        return out
    }

    private static func fold(_ u: Unicode.Scalar) -> Unicode.Scalar { folded(u) ? "ケ" : u }

    /// Whether `fold` changes the scalar.
    private static func folded(_ u: Unicode.Scalar) -> Bool {
        switch u {
        case "ヶ", "ヵ", "が", "ガ": true
        default: false
        }
    }

    // Switches, not sets: a set's hash of every scalar of every name was most of a base's cost.
    private static func opens(_ u: Unicode.Scalar) -> Bool {
        switch u {
        case "(", "（", "〈", "「", "【", "［": true
        default: false
        }
    }

    private static func closes(_ u: Unicode.Scalar) -> Bool {
        switch u {
        case ")", "）", "〉", "」", "】", "］": true
        default: false
        }
    }

    /// The normalised name without what brackets add: a sub-name or another
    /// spelling (四ツ谷(四ッ谷), 押上〈スカイツリー前〉, 近鉄四日市（あすなろう四日市）).
    package static func base(_ name: String) -> String {
        // A bracket is one scalar, and only it equals itself: a name without one keeps all.
        guard name.unicodeScalars.contains(where: { opens($0) || closes($0) }) else { return normalized(name) }
        var depth = 0, kept = ""
        for c in name {
            if c.unicodeScalars.count == 1, let u = c.unicodeScalars.first {
                if opens(u) { depth += 1; continue }
                if closes(u) { depth = max(0, depth - 1); continue }
            }
            if depth == 0 { kept.append(c) }
        }
        return normalized(kept.isEmpty ? name : kept)
    }
}

/// Operator and line names across sources ("JR東日本" / "東日本旅客鉄道") rarely
/// match as text; they are matched through the stations they share instead.
package enum OperatorName {
    package static func normalized(_ name: String) -> String {
        var s = NFKC.normalize(name)
        s.removeAll { $0.isWhitespace }
        return s
    }
}

/// Unicode NFKC through the system's ICU, which libxml2 loads anyway (FoundationEssentials has none).
package enum NFKC {
    package static func normalize(_ s: String) -> String {
        // NFKC leaves these as they are: ASCII, kana without a combining sound mark, and the
        // unified ideographs (most station names are nothing else; ICU is the rest).
        if isPlain(s) { return s }
        let source = Array(s.utf16)
        var capacity = source.count * 3 + 16
        while true {
            var status: Int32 = 0
            var out = [UInt16](repeating: 0, count: capacity)
            let n = cicu_normalize(normalizer, source, Int32(source.count), &out, Int32(capacity), &status)
            if status == Int32(CICU_BUFFER_OVERFLOW_ERROR) { capacity = Int(n); continue }
            guard status <= Int32(CICU_ZERO_ERROR) else {
                preconditionFailure("ICU could not normalise \(s.debugDescription): error \(status)")
            }
            return String(decoding: out[0..<Int(n)], as: UTF16.self)
        }
    }

    /// Whether NFKC leaves every scalar of `s` as it is: ASCII, kana without a combining mark, the unified ideographs.
    package static func isPlain(_ s: String) -> Bool {
        s.unicodeScalars.allSatisfy { u in
            switch u.value {
            case 0x00...0x7F, 0x3005...0x3007, 0x3041...0x3096, 0x309D...0x309E, 0x30A1...0x30FA, 0x30FC...0x30FE, 0x4E00...0x9FFF: true
            default: false
            }
        }
    }

    /// ICU's NFKC normaliser, a process-wide instance that ICU makes once and keeps.
    private static var normalizer: UnsafeRawPointer {
        var status: Int32 = 0
        guard let n = cicu_nfkc_instance(&status), status <= Int32(CICU_ZERO_ERROR) else {
            preconditionFailure("ICU has no NFKC normaliser: error \(status)")
        }
        return n
    }
}
