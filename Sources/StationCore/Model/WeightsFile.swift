
/// Every station's final weight (1...13), as Priority writes it for BuildDB:
/// a CSV `s_id,weight` by ascending s_id.
package enum StationWeightsFile {
    package static let defaultName = "weights.csv"

    package static func text(_ weights: [Int: Int]) -> [UInt8] {
        var out = Array("s_id,weight\n".utf8)
        out.reserveCapacity(weights.count * 12)
        for id in weights.keys.sorted() {
            out.append(contentsOf: String(id).utf8)
            out.append(0x2C)
            out.append(contentsOf: String(weights[id]!).utf8)
            out.append(0x0A)
        }
        return out
    }

    @discardableResult
    package static func write(_ weights: [Int: Int], to path: String) throws -> WrittenFile {
        try AtomicFile.write(text(weights), to: path)
    }

    package static func read(from path: String) throws -> [Int: Int] {
        let table = try CSVReader.read(path: path)
        try table.require(["s_id", "weight"])
        let id = table.column("s_id"), weight = table.column("weight")
        var problems = DiagnosticCollector()
        var weights: [Int: Int] = [:]
        weights.reserveCapacity(table.count)
        for r in table.records {
            if let s = table.int(r, id, &problems), let w = table.int(r, weight, range: 1...13, &problems) { weights[s] = w }
        }
        try problems.check()
        return weights
    }
}
