// A map from integer IDs (or pairs of them) to an integer, for the readers'
// reference and duplicate checks. Swift's Dictionary hashes with seeded
// SipHash, which is most of the cost of ~50,000 lookups per national file;
// IDs need no protection from crafted collisions, so a multiplicative hash
// with open addressing does the same work several times faster. Nothing
// iterates it, so its order never reaches any output.

struct IDTable {
    private var keysA: [Int]
    private var keysB: [Int]
    private var values: [Int]
    private var used: [Bool]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 16) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        keysA = [Int](repeating: 0, count: size)
        keysB = [Int](repeating: 0, count: size)
        values = [Int](repeating: 0, count: size)
        used = [Bool](repeating: false, count: size)
        mask = size - 1
    }

    @inline(__always)
    private func slot(_ a: Int, _ b: Int) -> Int {
        let h = (UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(bitPattern: Int64(b)) &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: (h ^ (h >> 29)) & UInt64(mask))
    }

    /// The value stored for (a, b), if any.
    func value(_ a: Int, _ b: Int = 0) -> Int? {
        var i = slot(a, b)
        while used[i] {
            if keysA[i] == a && keysB[i] == b { return values[i] }
            i = (i + 1) & mask
        }
        return nil
    }

    func contains(_ a: Int, _ b: Int = 0) -> Bool { value(a, b) != nil }

    /// Stores `value` for (a, b) unless a value is there already; returns the earlier value, if any.
    mutating func insertIfAbsent(_ a: Int, _ b: Int = 0, value: Int) -> Int? {
        if (count + 1) * 2 > used.count { grow() }
        var i = slot(a, b)
        while used[i] {
            if keysA[i] == a && keysB[i] == b { return values[i] }
            i = (i + 1) & mask
        }
        used[i] = true; keysA[i] = a; keysB[i] = b; values[i] = value
        count += 1
        return nil
    }

    private mutating func grow() {
        var bigger = IDTable(capacity: used.count)
        for i in 0..<used.count where used[i] { _ = bigger.insertIfAbsent(keysA[i], keysB[i], value: values[i]) }
        self = bigger
    }
}
