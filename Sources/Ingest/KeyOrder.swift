// The native reader's keys are "o:<id>", "l:<id>", "s:<id>", and a
// SourceNetwork is kept in key (string) order. Ordering the integer IDs as
// their decimal text sorts, without making and comparing strings, lets the
// reader emit values already in key order, so that `sortByKey()` only has to
// confirm it (one pass). This matters on ~10,000 stations within the ingest's
// time budget.

/// Sorts like the decimal text of an integer: `TextOrderKey(a) < TextOrderKey(b)`
/// exactly when `String(a) < String(b)`. The digits are left-aligned into 19
/// places (so "19" < "2", as text has it), a proper prefix goes first ("1" <
/// "10"), and "-" sorts before every digit.
struct TextOrderKey: Comparable {
    let nonNegative: Bool
    let aligned: UInt64
    let digits: UInt8

    init(_ value: Int) {
        let magnitude = UInt64(value.magnitude)
        var digits: UInt8 = 1
        var scale: UInt64 = 1   // 10^(digits - 1)
        while digits < 19, magnitude / scale >= 10 { scale &*= 10; digits += 1 }
        var pad: UInt64 = 1
        for _ in Int(digits)..<19 { pad &*= 10 }
        nonNegative = value >= 0
        aligned = magnitude &* pad
        self.digits = digits
    }

    static func < (a: TextOrderKey, b: TextOrderKey) -> Bool {
        if a.nonNegative != b.nonNegative { return !a.nonNegative }
        if a.aligned != b.aligned { return a.aligned < b.aligned }
        return a.digits < b.digits
    }
}

/// Whether `String(a) < String(b)`, computed on the integers.
func decimalTextLess(_ a: Int, _ b: Int) -> Bool { TextOrderKey(a) < TextOrderKey(b) }

/// `items` in the decimal-text order of their IDs. Sorts (key, index) pairs
/// rather than the values, which would be copied, strings and all, at each step.
func inIDOrder<T>(_ items: [T], id: (T) -> Int) -> [T] {
    var order = items.indices.map { (key: TextOrderKey(id(items[$0])), index: $0) }
    order.sort { $0.key < $1.key }
    return order.map { items[$0.index] }
}

/// Builds an ASCII key such as "ekidata:station:1:1130101" in a stack buffer.
@inline(__always)
func buildKey(_ body: (inout KeyWriter) -> Void) -> String {
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buffer in
        var writer = KeyWriter(buffer: buffer)
        body(&writer)
        return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<writer.count]), as: UTF8.self)
    }
}

struct KeyWriter {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    var count = 0

    init(buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }

    @inline(__always)
    mutating func text(_ part: StaticString) {
        let n = part.utf8CodeUnitCount
        precondition(count + n <= buffer.count, "key too long")
        for k in 0..<n { buffer[count + k] = part.utf8Start[k] }
        count += n
    }

    @inline(__always)
    mutating func number(_ value: Int) {
        precondition(count + 20 <= buffer.count, "key too long")
        if value < 0 { buffer[count] = 0x2D; count += 1 }
        var rest = value.magnitude
        let start = count
        repeat { buffer[count] = 0x30 + UInt8(rest % 10); rest /= 10; count += 1 } while rest > 0
        // The digits went in last first.
        var lo = start, hi = count - 1
        while lo < hi { buffer.swapAt(lo, hi); lo += 1; hi -= 1 }
    }
}
