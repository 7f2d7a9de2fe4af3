import Foundation
import StationModel

// weights.csv for BuildDB, byte for byte what StationWeightsFile.write makes
// from the [s_id: weight] dictionary ("s_id,weight", rows by ascending s_id),
// but from parallel arrays and into one byte buffer: no dictionary, no
// String per row.

public enum WeightsWriter {
    /// The file's bytes. `ids` need not be sorted; rows come out by s_id.
    public static func csv(ids: [Int], weights: [Int]) -> [UInt8] {
        precondition(ids.count == weights.count)
        var order: [Int]? = nil
        if !ids.indices.dropFirst().allSatisfy({ ids[$0 - 1] < ids[$0] }) {
            order = ids.indices.sorted { ids[$0] < ids[$1] }
        }
        var out: [UInt8] = []
        out.reserveCapacity(12 + ids.count * 12)
        out.append(contentsOf: "s_id,weight\n".utf8)
        var digits = [UInt8](repeating: 0, count: 24)
        func put(_ value: Int) {
            if value < 0 { out.append(UInt8(ascii: "-")) }
            var v = value.magnitude, at = digits.count
            repeat { at -= 1; digits[at] = UInt8(ascii: "0") + UInt8(v % 10); v /= 10 } while v > 0
            out.append(contentsOf: digits[at...])
        }
        for k in ids.indices {
            let i = order?[k] ?? k
            put(ids[i]); out.append(UInt8(ascii: ",")); put(weights[i]); out.append(UInt8(ascii: "\n"))
        }
        return out
    }

    /// Writes weights.csv atomically (AtomicFile: temporary, fsync, rename).
    public static func write(ids: [Int], weights: [Int], to path: String) throws {
        let bytes = csv(ids: ids, weights: weights)
        try AtomicFile.write(bytes.withUnsafeBufferPointer { Data(buffer: $0) }, to: path)
    }
}
