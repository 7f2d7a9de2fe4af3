import Glibc
import StationCore

// The bench's inputs: the national network, or K times it, written as native
// master CSV and as an N02 document, deterministically (same network, scale
// and seed, same bytes).
//
// Copy 0 is the national network itself. Copy k >= 1 adds, for every station,
// one infill station on the same stretch of track: a fixed fraction of the way
// (k times the golden ratio, modulo 1) towards the station's neighbour on its
// first line, pushed up to ~250 m sideways. So new stations follow the lines
// and crowd where the lines crowd (the cities), as real density does, and they
// stay inside Japan's box because they lie between two stations that are.
// Each copy has its own lines (the stretch's "branch" k, same operator and
// station order); operators are shared, as a larger network of the same
// country would mostly keep its operators.

package struct SynthConfig: Sendable {
    package var scale: Int
    package var seed: UInt64

    package init(scale: Int, seed: UInt64 = 1) {
        self.scale = scale; self.seed = seed
    }
}

package struct SynthCounts: Sendable, Equatable {
    package var operators = 0, lines = 0, stations = 0, stationLines = 0
    package init() {}
}

package struct Synth {
    package let national: RailNetwork
    package let config: SynthConfig
    /// Copy k's IDs are the national ID plus k times these (powers of ten above the largest ID).
    package let stationStride: Int
    package let lineStride: Int
    /// Per national station (by index): the point its infill copies move towards.
    private let neighbour: [(lat: Int, lng: Int)?]
    private let stationIndex: [Int: Int]
    private let operatorsByID: [Int: Operator]
    private let linesByID: [Int: Line]

    package init(national: RailNetwork, config: SynthConfig) {
        var n = national
        n.sortByKey()
        self.national = n
        self.config = config
        func stride(above maxID: Int) -> Int {
            var s = 10
            while s <= maxID { s *= 10 }
            return s
        }
        stationStride = stride(above: n.stations.map(\.id).max() ?? 0)
        lineStride = stride(above: n.lines.map(\.id).max() ?? 0)
        var index: [Int: Int] = [:]
        for (i, s) in n.stations.enumerated() { index[s.id] = i }
        stationIndex = index
        operatorsByID = Dictionary(n.operators.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        linesByID = Dictionary(n.lines.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })

        // stationLines are in (l_id, s_sort, s_id) order: neighbours along a line are adjacent.
        var next: [(lat: Int, lng: Int)?] = Array(repeating: nil, count: n.stations.count)
        let rows = n.stationLines
        for (r, row) in rows.enumerated() {
            guard let i = index[row.stationID], next[i] == nil else { continue }
            var other: Int?
            if r + 1 < rows.count, rows[r + 1].lineID == row.lineID { other = index[rows[r + 1].stationID] }
            else if r > 0, rows[r - 1].lineID == row.lineID { other = index[rows[r - 1].stationID] }
            if let o = other, o != i { next[i] = (n.stations[o].lat, n.stations[o].lng) }
        }
        neighbour = next
    }

    // MARK: The copies

    private static let nameSuffixes = ["東", "西", "南", "北", "中央", "本町", "台", "口", "公園", "新町"]
    private static let yomiSuffixes = ["ひがし", "にし", "みなみ", "きた", "ちゅうおう", "ほんまち", "だい", "ぐち", "こうえん", "しんまち"]

    /// Copy k's suffix: one word per decimal digit of k, so names stay kana/kanji.
    static func suffix(_ k: Int, _ words: [String]) -> String {
        guard k > 0 else { return "" }
        var digits: [Int] = []
        var v = k
        while v > 0 { digits.append(v % 10); v /= 10 }
        return digits.reversed().map { words[$0] }.joined()
    }

    /// splitmix64 of (seed, station, copy): the sideways push, reproducible.
    private func mix(_ a: Int, _ b: Int) -> UInt64 {
        SplitMix64.finalize(config.seed &+ UInt64(truncatingIfNeeded: a) &* SplitMix64.increment &+ UInt64(truncatingIfNeeded: b) &* 0xBF58_476D_1CE4_E5B9)
    }

    /// Copy k of the national station at index i.
    package func station(_ i: Int, copy k: Int) -> Station {
        var s = national.stations[i]
        guard k > 0 else { return s }
        s.id += k * stationStride
        s.name += Synth.suffix(k, Synth.nameSuffixes)
        if !s.yomi.isEmpty { s.yomi += Synth.suffix(k, Synth.yomiSuffixes) }
        s.wiki = ""
        let h = mix(s.id, k)
        // Sideways (or, without a neighbour, any way) up to 0.0025 degrees (~250 m).
        let pushLat = Int(h & 0x1FFF) % 5001 - 2500
        let pushLng = Int((h >> 16) & 0x1FFF) % 5001 - 2500
        if let to = neighbour[i] {
            let phi = 0.6180339887498949
            let f = 0.1 + 0.8 * (Double(k) * phi).truncatingRemainder(dividingBy: 1)
            s.lat += Int((Double(to.lat - s.lat) * f).rounded())
            s.lng += Int((Double(to.lng - s.lng) * f).rounded())
            s.lat += pushLat; s.lng += pushLng
        } else {
            s.lat += pushLat * 4; s.lng += pushLng * 4
        }
        s.lat = min(max(s.lat, 20_000_000), 46_000_000)
        s.lng = min(max(s.lng, 122_000_000), 154_000_000)
        return s
    }

    package func line(_ l: Line, copy k: Int) -> Line {
        guard k > 0 else { return l }
        var c = l
        c.id += k * lineStride
        c.name += "(" + Synth.suffix(k, Synth.nameSuffixes) + "支線)"
        return c
    }

    package func stationLine(_ r: StationLine, copy k: Int) -> StationLine {
        StationLine(lineID: r.lineID + k * lineStride, stationID: r.stationID + k * stationStride, sort: r.sort)
    }

    // MARK: Native master CSV

    /// Writes operators.csv, lines.csv, stations.csv and stations_lines.csv into `folder`.
    @discardableResult
    package func writeNative(folder: String) throws -> SynthCounts {
        try Files.createFolder(folder)
        var counts = SynthCounts()
        let scale = config.scale
        var out = Array(CSVWriter.line(BundleSchema.masterColumns(Operator.schema)).utf8)
        for o in national.operators {
            CSVWriter.append(o.masterFields, to: &out)
            counts.operators += 1
        }
        try AtomicFile.write(out, to: joinPath(folder, NativeCSVReader.operatorsFile))
        out = Array(CSVWriter.line(BundleSchema.masterColumns(Line.schema)).utf8)
        for k in 0..<scale {
            for l0 in national.lines {
                CSVWriter.append(line(l0, copy: k).masterFields, to: &out)
                counts.lines += 1
            }
        }
        try AtomicFile.write(out, to: joinPath(folder, NativeCSVReader.linesFile))
        out = Array(CSVWriter.line(BundleSchema.masterColumns(Station.schema)).utf8)
        for k in 0..<scale {
            for i in national.stations.indices {
                CSVWriter.append(station(i, copy: k).masterFields, to: &out)
                counts.stations += 1
            }
        }
        try AtomicFile.write(out, to: joinPath(folder, NativeCSVReader.stationsFile))
        out = Array(CSVWriter.line(BundleSchema.masterColumns(StationLine.schema)).utf8)
        for k in 0..<scale {
            for r0 in national.stationLines {
                CSVWriter.append(stationLine(r0, copy: k).masterFields, to: &out)
                counts.stationLines += 1
            }
        }
        try AtomicFile.write(out, to: joinPath(folder, NativeCSVReader.stationLinesFile))
        return counts
    }

    // MARK: N02 (JPGIS 2.1 GML, sources.md §3)

    /// railwayType and serviceProviderType that N02Classification maps back to the operator's type.
    static func n02Codes(operatorType: Int, shinkansen: Bool) -> (railway: Int, provider: Int) {
        switch operatorType {
        case 1: return (11, shinkansen ? 1 : 2)
        case 4: return (12, 3)
        case 6: return (23, 4)
        case 7: return (16, 4)
        case 8: return (13, 4)
        case 10: return (25, 4)
        case 5: return (12, 5)
        default: return (12, 4)
        }
    }

    /// Writes the N02 document: every curve first (one short platform curve per
    /// station-on-line, one track curve per pair of neighbours on a line), then
    /// the track sections, then the stations. Station codes number the
    /// station-on-line features; group codes are our s_ids.
    @discardableResult
    package func writeN02(path: String) throws -> Int {
        let rows = national.stationLines
        // Track sections: consecutive rows of one line.
        let sectionRows = rows.indices.filter { $0 + 1 < rows.count && rows[$0 + 1].lineID == rows[$0].lineID }
        var features = 0
        var xml = ""
        do {
            func text(_ s: String) { xml += s }
            text("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ksj:Dataset gml:id="N02Dataset" xmlns:ksj="http://nlftp.mlit.go.jp/ksj/schemas/ksj-app" xmlns:gml="http://www.opengis.net/gml/3.2" xmlns:xlink="http://www.w3.org/1999/xlink">
            <gml:description>synthetic railway data in the N02 layout: stationdb synth --scale \(config.scale) --seed \(config.seed)</gml:description>
            <!--図形-->

            """)
            func point(_ lat: Int, _ lng: Int) -> String { MicroDegrees.format(lat) + " " + MicroDegrees.format(lng) + "\n" }
            func curve(_ id: String, _ points: [(Int, Int)]) {
                text("<gml:Curve gml:id=\"\(id)\">\n<gml:segments>\n<gml:LineStringSegment>\n<gml:posList>\n")
                for p in points { text(point(p.0, p.1)) }
                text("</gml:posList>\n</gml:LineStringSegment>\n</gml:segments>\n</gml:Curve>\n")
            }
            func position(_ sid: Int, _ k: Int) -> (Int, Int) {
                let s = station(stationIndex[sid]!, copy: k)
                return (s.lat, s.lng)
            }
            for k in 0..<config.scale {
                for (r, row) in rows.enumerated() {
                    let (lat, lng) = position(row.stationID, k)
                    // Symmetric about the station, so the curve's middle is the station's point.
                    curve("cv_stn\(k)_\(r)", [(lat - 300, lng - 400), (lat, lng), (lat + 300, lng + 400)])
                }
                for r in sectionRows {
                    curve("cv_rss\(k)_\(r)", [position(rows[r].stationID, k), position(rows[r + 1].stationID, k)])
                }
            }
            func attributes(_ row: StationLine, _ k: Int) {
                let l = line(linesByID[row.lineID]!, copy: k)
                let op = operatorsByID[l.operatorID]
                let codes = Synth.n02Codes(operatorType: op?.type ?? 5, shinkansen: l.isShinkansen)
                text("<ksj:railwayType>\(codes.railway)</ksj:railwayType>\n<ksj:serviceProviderType>\(codes.provider)</ksj:serviceProviderType>\n")
                text("<ksj:railwayLineName>" + l.name.markupEscaped + "</ksj:railwayLineName>\n<ksj:operationCompany>"
                         + (op?.name ?? "?").markupEscaped + "</ksj:operationCompany>\n")
            }
            for k in 0..<config.scale {
                for r in sectionRows {
                    text("<ksj:RailroadSection gml:id=\"eb02_\(k)_\(r)\">\n<ksj:location xlink:href=\"#cv_rss\(k)_\(r)\"/>\n")
                    attributes(rows[r], k)
                    text("</ksj:RailroadSection>\n")
                }
            }
            for k in 0..<config.scale {
                for (r, row0) in rows.enumerated() {
                    let row = stationLine(row0, copy: k)
                    let s = station(stationIndex[row0.stationID]!, copy: k)
                    text("<ksj:Station gml:id=\"eb03_\(k)_\(r)\">\n<ksj:location xlink:href=\"#cv_stn\(k)_\(r)\"/>\n")
                    attributes(row0, k)
                    text("<ksj:stationName>" + s.name.markupEscaped + "</ksj:stationName>\n")
                    text("<ksj:stationCode>\(k * rows.count + r + 1)</ksj:stationCode>\n<ksj:groupCode>\(row.stationID)</ksj:groupCode>\n")
                    text("</ksj:Station>\n")
                    features += 1
                }
            }
            text("</ksj:Dataset>\n")
        }
        try AtomicFile.write(xml, to: path)
        return features
    }
}
