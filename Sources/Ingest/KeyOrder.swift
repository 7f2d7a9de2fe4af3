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
    if dx < dy { return x <= y / powersOfTen[dy - dx] }
    return x / powersOfTen[dx - dy] < y
}

@inline(__always)
func digitCount(_ x: UInt) -> Int {
    var n = 1
    while n < powersOfTen.count, x >= powersOfTen[n] { n += 1 }
    return n
}

let powersOfTen: [UInt] = (0..<20).map { k in (0..<k).reduce(UInt(1)) { p, _ in p * 10 } }
