import Glibc

/// Bytes written one field at a time into memory of its own, for the writers
/// that produce whole files row by row (the staging file, the registry): an
/// array's append checks uniqueness and capacity at every byte, which was most
/// of their time. Not copyable, so the memory has exactly one owner to free it.
public struct ByteWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline var written = 0
    public var count: Int { written }

    public init(capacity: Int = 1 << 16) {
        self.capacity = max(capacity, 64)
        base = allocateTrivial(UInt8.self, capacity: self.capacity)
    }

    deinit { free(base) }

    /// Room for `n` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ n: Int) {
        if written + n > capacity { grow(n) }
    }

    @usableFromInline
    mutating func grow(_ n: Int) {
        let next = max(capacity * 2, written + n)
        base = reallocateTrivial(base, capacity: next)
        capacity = next
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        reserve(1)
        base[written] = byte
        written += 1
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        UnsafeMutableRawPointer(base + written).copyMemory(from: source, byteCount: bytes.count)
        written += bytes.count
    }

    @inlinable @inline(__always)
    public mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) { append(UnsafeRawBufferPointer(bytes)) }

    /// The string's UTF-8 bytes.
    @inlinable @inline(__always)
    public mutating func append(utf8 s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    /// The number in decimal, with a minus sign when negative.
    @inlinable
    public mutating func append(decimal v: Int) {
        reserve(20)
        var m = v.magnitude, digits = 1
        while m >= 10 { m /= 10; digits += 1 }
        if v < 0 { base[written] = 0x2D; written += 1 }
        m = v.magnitude
        var i = written + digits
        repeat { i -= 1; base[i] = UInt8(truncatingIfNeeded: m % 10) &+ 0x30; m /= 10 } while m > 0
        written += digits
    }

    /// The number as a LEB128 varint of its zigzag form (small magnitudes, either sign, in few bytes).
    @inlinable @inline(__always)
    public mutating func append(varint v: Int) {
        reserve(10)
        var z = UInt64(bitPattern: Int64(v) << 1 ^ Int64(v) >> 63)
        while z >= 0x80 { base[written] = UInt8(truncatingIfNeeded: z) | 0x80; written += 1; z >>= 7 }
        base[written] = UInt8(z)
        written += 1
    }

    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// A copy of the bytes written.
    public var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: written)) }

    public mutating func removeAll() { written = 0 }
}

// Growing buffers of plain values go through realloc: for large blocks glibc
// moves the pages (mremap) rather than copying them into fresh ones, and every
// fresh page costs a fault, which at 100x was a third of ingest's time.
@usableFromInline
func allocateTrivial<T>(_ type: T.Type, capacity: Int) -> UnsafeMutablePointer<T> {
    guard let raw = malloc(max(capacity, 1) * MemoryLayout<T>.stride) else { fatalError("out of memory") }
    return raw.bindMemory(to: T.self, capacity: capacity)
}

@usableFromInline
func reallocateTrivial<T>(_ p: UnsafeMutablePointer<T>, capacity: Int) -> UnsafeMutablePointer<T> {
    precondition(_isPOD(T.self))
    guard let raw = realloc(p, max(capacity, 1) * MemoryLayout<T>.stride) else { fatalError("out of memory") }
    return raw.bindMemory(to: T.self, capacity: capacity)
}
