import Glibc

/// `value` with `decimals` digits after the point, as printf's "%.Nf" prints it
/// ("%+.Nf" when `alwaysSigned`): reports, guards and diffs show numbers this way.
public func fixed(_ value: Double, decimals: Int, alwaysSigned: Bool = false) -> String {
    let format = alwaysSigned ? "%+.*f" : "%.*f"
    var buffer = [CChar](repeating: 0, count: 64)
    let needed = Int(withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) })
    if needed >= buffer.count {
        buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList([Int32(decimals), value]) { vsnprintf(&buffer, buffer.count, format, $0) }
    }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
