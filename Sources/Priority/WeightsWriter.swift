import FoundationEssentials
import Glibc
import StationModel

// weights.csv for BuildDB, byte for byte what StationWeightsFile.write makes
// from the [s_id: weight] dictionary ("s_id,weight", rows by ascending s_id),
// but from parallel arrays, formatted into a fixed byte buffer that is
// flushed to the temporary file as it fills: no dictionary, no String per
// row, no whole-file copy. Committed like every output (AtomicFile).

public enum WeightsWriter {
    /// The file's bytes. `ids` need not be sorted; rows come out by s_id.
    public static func csv(ids: [Int], weights: [Int]) -> [UInt8] {
        var out: [UInt8] = []
        format(ids: ids, weights: weights) { out.append(contentsOf: $0) }
        return out
    }

    /// Writes weights.csv atomically: a temporary file beside it, fsync, rename.
    public static func write(ids: [Int], weights: [Int], to path: String) throws {
        try AtomicFile.write(to: path) { file in
            format(ids: ids, weights: weights) { file.append(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Formats the rows into a 64 KiB buffer, handing each full buffer to `emit`.
    static func format(ids: [Int], weights: [Int], emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        precondition(ids.count == weights.count)
        var order: [Int]? = nil
        if !ids.indices.dropFirst().allSatisfy({ ids[$0 - 1] < ids[$0] }) {
            order = ids.indices.sorted { ids[$0] < ids[$1] }
        }
        let capacity = 1 << 16, row = 48   // a row is at most 20 + 1 + 20 + 1 bytes
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var used = 0
        @inline(__always) func put(_ value: Int) {
            if value < 0 { buffer[used] = UInt8(ascii: "-"); used += 1 }
            var v = value.magnitude, digits = 1
            while v >= 10 { v /= 10; digits += 1 }
            v = value.magnitude
            var at = used + digits
            used = at
            repeat { at -= 1; buffer[at] = UInt8(truncatingIfNeeded: 48 + v % 10); v /= 10 } while v > 0
        }
        for b in "s_id,weight\n".utf8 { buffer[used] = b; used += 1 }
        ids.withUnsafeBufferPointer { ids in
            weights.withUnsafeBufferPointer { weights in
                for k in 0..<ids.count {
                    if used > capacity - row { emit(UnsafeBufferPointer(start: buffer, count: used)); used = 0 }
                    let i = order?[k] ?? k
                    put(ids[i]); buffer[used] = UInt8(ascii: ","); used += 1
                    put(weights[i]); buffer[used] = UInt8(ascii: "\n"); used += 1
                }
            }
        }
        if used > 0 { emit(UnsafeBufferPointer(start: buffer, count: used)) }
    }
}
