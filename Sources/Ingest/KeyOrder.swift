// The native reader's keys are "o:<id>", "l:<id>", "s:<id>", and a
// SourceNetwork is kept in key (string) order. Ordering the integer IDs as
// their decimal text sorts, without making and comparing strings, lets the
// reader emit values already in key order, so that `sortByKey()` only has to
// confirm it (one pass). This matters on ~10,000 stations within the ingest's
// time budget.

/// Whether `String(a) < String(b)`, computed on the integers.
@inline(__always)
func decimalTextLess(_ a: Int, _ b: Int) -> Bool {
    // "-" (0x2D) sorts before every digit; after it, magnitudes compare as text.
    if (a < 0) != (b < 0) { return a < 0 }
    return digitsLess(a.magnitude, b.magnitude)
}

/// Whether the decimal digits of `x` sort before those of `y` as text.
@inline(__always)
func digitsLess(_ x: UInt, _ y: UInt) -> Bool {
    if x == y { return false }
    let dx = digitCount(x), dy = digitCount(y)
    if dx == dy { return x < y }
    // Compare x with y's first dx digits; a proper prefix sorts first.
    if dx < dy { return x <= y / powerOfTen(dy - dx) }
    return x / powerOfTen(dx - dy) < y
}

@inline(__always)
func digitCount(_ x: UInt) -> Int {
    var n = 1
    var v = x
    while v >= 10 { v /= 10; n += 1 }
    return n
}

@inline(__always)
func powerOfTen(_ k: Int) -> UInt {
    var p: UInt = 1
    for _ in 0..<k { p &*= 10 }
    return p
}

/// "<prefix>:<id>" (e.g. "s:1130101"), made from bytes: string interpolation
/// costs several times more, and every station needs two such keys.
@inline(__always)
func idKey(_ prefix: UInt8, _ id: Int) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buf in
        var end = 24
        var rest = id.magnitude
        repeat {
            end -= 1
            buf[end] = 0x30 + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        if id < 0 { end -= 1; buf[end] = 0x2D }
        end -= 1; buf[end] = 0x3A
        end -= 1; buf[end] = prefix
        return String(decoding: UnsafeBufferPointer(rebasing: buf[end..<24]), as: UTF8.self)
    }
}
