import Glibc

/// `value` with `decimals` digits after the point, as printf's "%.Nf" prints it
/// ("%+.Nf" when `alwaysSigned`): reports, guards and diffs show numbers this way.
package func fixed(_ value: Double, decimals: Int, alwaysSigned: Bool = false) -> String {
    let format = alwaysSigned ? "%+.*f" : "%.*f"
    var buffer = [CChar](repeating: 0, count: 64)
    let needed = Int(withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) })
    if needed >= buffer.count {
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

extension String {
    /// Padded with spaces to `width` characters: after the text (left-aligned) or,
    /// with `right`, before it. Text as long or longer is returned as it is.
    package func padded(to width: Int, right: Bool = false) -> String {
        let fill = String(repeating: " ", count: max(0, width - count))
        return right ? fill + self : self + fill
    }
}

extension StringProtocol {
    /// Without blanks at either end: spaces and tabs, as around a CSV number or a key,
    /// or whatever `isBlank` says (HTTP headers count line breaks too). Values are never trimmed.
    package func trimmed(where isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }) -> String {
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension StringProtocol {
    /// Every occurrence of each key (one scalar) replaced by its value: the escaping of
    /// markdown cells, XML text and attributes.
    package func replacingScalars(_ replacements: [Unicode.Scalar: String]) -> String {
        var out = ""
        for c in unicodeScalars {
            if let r = replacements[c] { out += r } else { out.unicodeScalars.append(c) }
        }
        return out
    }

    /// Safe as XML or HTML text or a quoted attribute.
    package var markupEscaped: String { replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"]) }

    /// Safe as text in markdown, in a table's cell or a list item (a pull request's
    /// comment): one line (control characters as `printable` shows them), no column break,
    /// and nothing a renderer takes for markup or acts on: no link or image (`![x](url)`),
    /// no HTML (`<details>`), entity, `*` emphasis or code, and no mention (`@everyone`, broken
    /// by a zero-width space, as Dependabot does).
    package var markdownCell: String {
        printable(String(self)).replacingScalars(["\\": "\\\\", "|": "\\|", "[": "\\[", "]": "\\]", "`": "\\`", "*": "\\*",
                                                  "~": "\\~", "<": "&lt;", "&": "&amp;", "@": "@&#8203;"])
    }
}
