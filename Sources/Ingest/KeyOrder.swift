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

/// "<prefix>:<id>" (e.g. "s:1130101"), made from bytes.
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

/// `items` in the decimal-text order of their IDs. Sorts (key, index) pairs
/// rather than the values, which would be copied, strings and all, at each step.
func inIDOrder<T>(_ items: [T], id: (T) -> Int) -> [T] {
    var order = items.indices.map { (key: TextOrderKey(id(items[$0])), index: $0) }
    order.sort { $0.key < $1.key }
    return order.map { items[$0.index] }
}
