// A map from integer IDs (or pairs of them) to an integer, for the readers'
// reference and duplicate checks. Swift's Dictionary hashes with seeded
// SipHash, which is most of the cost of ~50,000 lookups per national file;
// IDs need no protection from crafted collisions, so a multiplicative hash
// with open addressing does the same work several times faster. Nothing
// iterates it, so its order never reaches any output.

public struct IDTable: Sendable {
    /// Key and value side by side: at 100 times national a lookup is a cache
    /// miss, and one slot in one place is one miss where four parallel arrays
    /// were four. `stored` is the value + 1, and 0 in a free slot (24 bytes a slot).
    private struct Slot {
        var a = 0, b = 0, stored = 0
        var used: Bool { stored != 0 }
        var value: Int { stored - 1 }
    }
    /// While every key is (a, 0) with a small non-negative a, values are kept at
    /// index a (value + 1, 0 when absent): native and registry IDs count up from 1,
    /// so that is 4 to 16 bytes an ID where the hash slots were 48, and no probing.
    /// Emptied for good at the first key that does not fit (`hash()`).
    private var direct: [UInt32]
    private var slots: [Slot] = []
    private var mask = 0
    /// The capacity asked for, which bounds how far `direct` may grow.
    private let expected: Int
    public private(set) var count = 0

    public init(capacity: Int = 16) {
        expected = max(capacity, 16)
        direct = [UInt32](repeating: 0, count: 2 * expected)
    }

    private var isDirect: Bool { slots.isEmpty }

    @inline(__always)
    private func slot(_ a: Int, _ b: Int) -> Int {
        let h = (UInt64(bitPattern: Int64(a)) &* 0x9E37_79B9_7F4A_7C15) ^ (UInt64(bitPattern: Int64(b)) &* 0xC2B2_AE3D_27D4_EB4F)
        return Int(truncatingIfNeeded: (h ^ (h >> 29)) & UInt64(mask))
    }

    /// The value stored for (a, b), if any.
    public func value(_ a: Int, _ b: Int = 0) -> Int? {
        if isDirect {
            guard b == 0, a >= 0, a < direct.count else { return nil }
            let stored = direct.withUnsafeBufferPointer { $0[a] }
            return stored == 0 ? nil : Int(stored) - 1
        }
        return slots.withUnsafeBufferPointer { s in
            var i = slot(a, b)
            while s[i].used {
                if s[i].a == a && s[i].b == b { return s[i].value }
                i = (i + 1) & mask
            }
            return nil
        }
    }

    public func contains(_ a: Int, _ b: Int = 0) -> Bool { value(a, b) != nil }

    /// Stores `value` for (a, b) unless a value is there already; returns the earlier value, if any.
    public mutating func insertIfAbsent(_ a: Int, _ b: Int = 0, value: Int) -> Int? {
        if isDirect {
            if b == 0, a >= 0, value >= 0, value < Int(UInt32.max) - 1, fitsDirect(a) {
                let earlier: Int? = direct.withUnsafeMutableBufferPointer { d in
                    if d[a] != 0 { return Int(d[a]) - 1 }
                    d[a] = UInt32(value + 1)
                    return nil
                }
                if earlier == nil { count += 1 }
                return earlier
            }
            hash()
        }
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

    /// Whether `direct` holds index a, after growing it if that keeps it within
    /// four times the larger of the capacity asked for and the count.
    private mutating func fitsDirect(_ a: Int) -> Bool {
        if a < direct.count { return true }
        let limit = 4 * max(expected, count + 1)
        guard a < limit else { return false }
        direct.append(contentsOf: repeatElement(0, count: min(limit, max(a + 1, 2 * direct.count)) - direct.count))
        return true
    }

    /// Moves the values into hash slots, for a key `direct` cannot hold.
    private mutating func hash() {
        var size = 16
        while size < max(expected, count + 1) * 2 { size <<= 1 }
        slots = [Slot](repeating: Slot(), count: size)
        mask = size - 1
        let values = direct
        direct = []
        count = 0
        for (a, stored) in values.enumerated() where stored != 0 { _ = insertIfAbsent(a, value: Int(stored) - 1) }
    }

    private mutating func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        count = 0
        for s in old where s.used { _ = insertIfAbsent(s.a, s.b, value: s.value) }
    }
}

extension IDTable {
    /// The set of `ids` (each mapped to its first position).
    public init(set ids: [Int]) {
        self.init(capacity: ids.count)
        for (i, id) in ids.enumerated() { _ = insertIfAbsent(id, value: i) }
    }
}

/// Finds a (line, station) pair given twice. Nearly every station is on one
/// line, so each station's first pair is kept by station ID (IDTable's direct
/// array, for IDs that count up) and only its further pairs go to a pair table:
/// at 100 times national a pair table of every row was 96 MB of fresh pages.
public struct StationLinePairs: Sendable {
    private var firstOfStation: IDTable
    private var first: [(line: Int, value: Int)] = []
    private var more = IDTable()

    public init(stations: Int) {
        firstOfStation = IDTable(capacity: stations)
        first.reserveCapacity(stations)
    }

    /// Records (line, station) with `value` unless the pair is there already; returns the earlier value, if any.
    public mutating func insertIfAbsent(line: Int, station: Int, value: Int) -> Int? {
        if let i = firstOfStation.value(station) {
            if first[i].line == line { return first[i].value }
            return more.insertIfAbsent(line, station, value: value)
        }
        _ = firstOfStation.insertIfAbsent(station, value: first.count)
        first.append((line, value))
        return nil
    }
}
