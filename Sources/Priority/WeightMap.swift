import Glibc
import StationIO
import StationModel

// People judge a weighting by looking at it: an SVG of the live stations,
// coloured by weight (hand picks red, 11 orange, 12 blue, 13 grey), the
// smaller weights drawn last so they stay visible. With a viewport, the map
// frames that view and rings the pins the clients would show in it.

public enum WeightMap {
    public static func svg(stations: [WeightedStation], viewport: Viewport? = nil, pins: Int = 100, width: Int = 1000) -> String {
        let live = stations.filter(\.enabled)
        var shown = Set<Int>()
        // The frame: the whole country, or the viewport's queried region with a margin.
        var south: Double, north: Double, west: Double, east: Double
        if let v = viewport {
            shown = Set(ViewportReport.shown(stations: stations, viewport: v, pins: pins))
            let q = v.scaled(1.4)
            south = MicroDegrees.degrees(q.lat - q.halfLat); north = MicroDegrees.degrees(q.lat + q.halfLat)
            west = MicroDegrees.degrees(q.lng - q.halfLng); east = MicroDegrees.degrees(q.lng + q.halfLng)
        } else if !live.isEmpty {
            south = MicroDegrees.degrees(live.map(\.lat).min()!) - 0.3; north = MicroDegrees.degrees(live.map(\.lat).max()!) + 0.3
            west = MicroDegrees.degrees(live.map(\.lng).min()!) - 0.3; east = MicroDegrees.degrees(live.map(\.lng).max()!) + 0.3
        } else {
            south = 24; north = 46; west = 122; east = 154
        }
        let cosLat = cos((south + north) / 2 * .pi / 180)
        let scale = Double(width) / ((east - west) * cosLat)
        let height = Int(((north - south) * scale).rounded(.up)) + 60
        func x(_ lng: Int) -> String { fmt((MicroDegrees.degrees(lng) - west) * cosLat * scale) }
        func y(_ lat: Int) -> String { fmt((north - MicroDegrees.degrees(lat)) * scale) }

        let zoomed = viewport != nil
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">
        <rect width="100%" height="100%" fill="#ffffff"/>

        """
        var counts = [Int](repeating: 0, count: 14)
        for s in live where (1...13).contains(s.weight) { counts[s.weight] += 1 }
        // Largest weights first, so the picks are drawn on top.
        let order = live.sorted { ($0.weight, $0.id) > ($1.weight, $1.id) }
        for s in order {
            let (colour, r) = style(weight: s.weight, zoomed: zoomed)
            out += "<circle cx=\"\(x(s.lng))\" cy=\"\(y(s.lat))\" r=\"\(r)\" fill=\"\(colour)\"/>\n"
        }
        if let v = viewport {
            let sw = (lat: v.lat - v.halfLat, lng: v.lng - v.halfLng)
            let w = (MicroDegrees.degrees(2 * v.halfLng)) * cosLat * scale, h = MicroDegrees.degrees(2 * v.halfLat) * scale
            out += "<rect x=\"\(x(sw.lng))\" y=\"\(fmt((north - MicroDegrees.degrees(sw.lat + 2 * v.halfLat)) * scale))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n"
            for s in live where shown.contains(s.id) {
                out += "<circle cx=\"\(x(s.lng))\" cy=\"\(y(s.lat))\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n"
            }
        }
        // Legend.
        let hand = counts[1...10].reduce(0, +)
        var legend = [("hand 1-10", hand, style(weight: 1, zoomed: false).0), ("11", counts[11], style(weight: 11, zoomed: false).0),
                      ("12", counts[12], style(weight: 12, zoomed: false).0), ("13", counts[13], style(weight: 13, zoomed: false).0)]
        if viewport != nil { legend.append(("shown (\(shown.count) pins)", shown.count, "none")) }
        var lx = 10
        let ly = height - 25
        for (label, n, colour) in legend {
            out += "<circle cx=\"\(lx + 6)\" cy=\"\(ly)\" r=\"5\" fill=\"\(colour)\" stroke=\"#000\" stroke-width=\"\(colour == "none" ? 1.5 : 0)\"/>"
            let text = label.hasPrefix("shown") ? label : "\(label): \(n)"
            out += "<text x=\"\(lx + 16)\" y=\"\(ly + 5)\" font-family=\"sans-serif\" font-size=\"14\">\(text)</text>\n"
            lx += 40 + text.count * 8
        }
        out += "</svg>\n"
        return out
    }

    static func style(weight: Int, zoomed: Bool) -> (String, String) {
        let k = zoomed ? 2.0 : 1.0
        switch weight {
        case ...10: return ("#d62728", fmt(2.2 * k))
        case 11: return ("#ff7f0e", fmt(1.8 * k))
        case 12: return ("#1f77b4", fmt(1.3 * k))
        default: return ("#b0b0b0", fmt(0.9 * k))
        }
    }

    static func fmt(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}
