// A map from integer IDs (or pairs of them) to an integer, for the readers'
// reference and duplicate checks. Swift's Dictionary hashes with seeded
// SipHash, which is most of the cost of ~50,000 lookups per national file;
// IDs need no protection from crafted collisions, so a multiplicative hash
// with open addressing does the same work several times faster. Nothing
// iterates it, so its order never reaches any output.

struct IDTable {
    /// Key and value side by side: at 100 times national a lookup is a cache
    /// miss, and one slot in one place is one miss where four parallel arrays
    /// were four. `stored` is the value + 1, and 0 in a free slot (24 bytes a slot).
    private struct Slot {
        var a = 0, b = 0, stored = 0
        var used: Bool { stored != 0 }
        var value: Int { stored - 1 }
    }
    private var slots: [Slot]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = [Slot](repeating: Slot(), count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ a: Int, _ b: Int) -> Int {
        let h = (UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(bitPattern: Int64(b)) &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: (h ^ (h >> 29)) & UInt64(mask))
    }

    /// The value stored for (a, b), if any.
    func value(_ a: Int, _ b: Int = 0) -> Int? {
        slots.withUnsafeBufferPointer { s in
            var i = slot(a, b)
            while s[i].used {
                if s[i].a == a && s[i].b == b { return s[i].value }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    func contains(_ a: Int, _ b: Int = 0) -> Bool { value(a, b) != nil }

    /// Stores `value` for (a, b) unless a value is there already; returns the earlier value, if any.
    mutating func insertIfAbsent(_ a: Int, _ b: Int = 0, value: Int) -> Int? {
        if (count + 1) * 2 > slots.count { grow() }
        let start = slot(a, b), mask = mask
        let earlier: Int? = slots.withUnsafeMutableBufferPointer { s in
            var i = start
            while s[i].used {
                if s[i].a == a && s[i].b == b { return s[i].value }
                i = (i + 1) & mask
            }
            s[i] = Slot(a: a, b: b, stored: value + 1)
            return nil
        }
        if earlier == nil { count += 1 }
        return earlier
    }

    private mutating func grow() {
        var bigger = IDTable(capacity: slots.count)
        for s in slots where s.used { _ = bigger.insertIfAbsent(s.a, s.b, value: s.value) }
        self = bigger
    }
}

extension IDTable {
    /// The set of `ids` (each mapped to its first position).
    init(set ids: [Int]) {
        self.init(capacity: ids.count)
        for (i, id) in ids.enumerated() { _ = insertIfAbsent(id, value: i) }
    }
}
