import Glibc
import StationCore

// People judge a weighting by looking at it: an SVG of the live stations,
// coloured by weight (hand picks red, 11 orange, 12 blue, 13 grey), the
// smaller weights drawn last so they stay visible. With a viewport, the map
// frames that view and rings the pins the clients would show in it; with
// `country`, it rings the pins of the whole country's view. Several weightings
// of the same stations are drawn side by side, each with its title and legend.

package enum WeightMap {
    /// The band above the map (its title) and below it (the legend and the scale), in pixels.
    static let top = 40, bottom = 80

    /// Each panel's `label` names the stations it draws (a bundle's path, say) in its title.
    package static func svg(_ panels: [(label: String?, stations: [WeightedStation])], viewport: Viewport? = nil, country: Bool = false,
                           pins: Int = 100, width: Int = 1000) -> String {
        let drawn = panels.map { panel($0.stations, viewport: viewport ?? (country ? Region.countryView($0.stations) : nil), zoomed: viewport != nil,
                                      pins: pins, width: width, label: $0.label) }
        let height = drawn.map(\.height).max() ?? top + bottom, all = width * max(1, drawn.count)
        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(all)" height="\(height)" viewBox="0 0 \(all) \(height)">
        <title>\(escaped(drawn.map(\.title).joined(separator: " | ")))</title>
        <rect width="100%" height="100%" fill="#ffffff"/>

        """
        for (i, d) in drawn.enumerated() { out += i == 0 ? d.body : "<g transform=\"translate(\(i * width),0)\">\n\(d.body)</g>\n" }
        return out + "</svg>\n"
    }

    /// One weighting's map: its title, the map (clipped), the legend and the scale.
    static func panel(_ stations: [WeightedStation], viewport: Viewport?, zoomed: Bool, pins: Int, width: Int, label: String?)
        -> (body: String, height: Int, title: String) {
        let live = stations.filter(\.enabled)
        var shown = Set<Int>()
        // The frame: the whole country, or a zoomed viewport's queried region with a margin.
        var south: Double, north: Double, west: Double, east: Double
        if let v = viewport { shown = Set(ViewportReport.shown(stations: stations, viewport: v, pins: pins)) }
        if let v = viewport, zoomed {
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
        let mapHeight = Int(((north - south) * scale).rounded(.up))
        let height = top + mapHeight + bottom
        func x(_ lng: Int) -> String { fmt((MicroDegrees.degrees(lng) - west) * cosLat * scale) }
        func y(_ lat: Int) -> String { fmt(Double(top) + (north - MicroDegrees.degrees(lat)) * scale) }

        var counts = [Int](repeating: 0, count: 14)
        for s in live where (1...13).contains(s.weight) { counts[s.weight] += 1 }
        var title = "Station weights: \(live.count) live station\(live.count == 1 ? "" : "s")" + (label.map { " of \($0)" } ?? "")
        if viewport != nil, !zoomed {
            title += ", the \(shown.count) pins of the whole country's view"
        } else if let v = viewport {
            title += ", the view at \(MicroDegrees.format(v.lat)),\(MicroDegrees.format(v.lng)) (\(fmt(v.latSpanDegrees))° of latitude) and its \(shown.count) pins"
        }
        var out = """
        <text id="title" x="10" y="26" font-family="sans-serif" font-size="18" font-weight="bold">\(escaped(title))</text>
        <clipPath id="map-area"><rect x="0" y="\(top)" width="\(width)" height="\(mapHeight)"/></clipPath>
        <g id="map" clip-path="url(#map-area)">

        """
        // Largest weights first, so the picks are drawn on top; a viewport's neighbours beyond
        // the frame are clipped, not drawn over the title and the legend.
        let order = live.sorted { ($0.weight, $0.id) > ($1.weight, $1.id) }
        for s in order {
            let (colour, r) = style(weight: s.weight, zoomed: zoomed)
            out += "<circle cx=\"\(x(s.lng))\" cy=\"\(y(s.lat))\" r=\"\(r)\" fill=\"\(colour)\"/>\n"
        }
        if let v = viewport, zoomed {
            let sw = (lat: v.lat - v.halfLat, lng: v.lng - v.halfLng)
            let w = (MicroDegrees.degrees(2 * v.halfLng)) * cosLat * scale, h = MicroDegrees.degrees(2 * v.halfLat) * scale
            out += "<rect x=\"\(x(sw.lng))\" y=\"\(y(sw.lat + 2 * v.halfLat))\" width=\"\(fmt(w))\" height=\"\(fmt(h))\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n"
        }
        for s in live where shown.contains(s.id) {
            out += "<circle cx=\"\(x(s.lng))\" cy=\"\(y(s.lat))\" r=\"6\" fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n"
        }
        out += "</g>\n"
        // The legend: what each colour is, and how many live stations have it.
        let hand = counts[1...10].reduce(0, +)
        var legend = [("hand 1-10", hand, style(weight: 1, zoomed: false).0), ("11", counts[11], style(weight: 11, zoomed: false).0),
                      ("12", counts[12], style(weight: 12, zoomed: false).0), ("13", counts[13], style(weight: 13, zoomed: false).0)]
        if viewport != nil { legend.append(("shown (\(shown.count) pins)", shown.count, "none")) }
        let ly = top + mapHeight + 25
        out += "<g id=\"legend\">\n<text x=\"10\" y=\"\(ly + 5)\" font-family=\"sans-serif\" font-size=\"14\">weight:</text>\n"
        var lx = 70
        for (label, n, colour) in legend {
            out += "<circle cx=\"\(lx + 6)\" cy=\"\(ly)\" r=\"5\" fill=\"\(colour)\" stroke=\"#000\" stroke-width=\"\(colour == "none" ? 1.5 : 0)\"/>"
            let text = label.hasPrefix("shown") ? label : "\(label): \(n)"
            out += "<text x=\"\(lx + 16)\" y=\"\(ly + 5)\" font-family=\"sans-serif\" font-size=\"14\">\(text)</text>\n"
            lx += 40 + text.count * 8
        }
        out += "<text x=\"10\" y=\"\(ly + 25)\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#555\">"
            + "hand weights (1-10) are drawn largest and on top; the machine weights 11, 12, 13 smaller, 13 the smallest</text>\n</g>\n"
        // The scale: a round distance, as long as the map draws it at its middle latitude.
        let pxPerMetre = scale / MicroDegrees.metresPerDegree
        let (metres, text) = scaleLength(fitting: 200 / pxPerMetre)
        let sx = Double(width) - 20 - metres * pxPerMetre, sy = Double(ly + 40)
        out += "<g id=\"scale\" font-family=\"sans-serif\" font-size=\"12\">"
            + "<line x1=\"\(fmt(sx))\" y1=\"\(fmt(sy))\" x2=\"\(fmt(sx + metres * pxPerMetre))\" y2=\"\(fmt(sy))\" stroke=\"#000\" stroke-width=\"2\"/>"
            + "<line x1=\"\(fmt(sx))\" y1=\"\(fmt(sy - 5))\" x2=\"\(fmt(sx))\" y2=\"\(fmt(sy + 5))\" stroke=\"#000\" stroke-width=\"2\"/>"
            + "<line x1=\"\(fmt(sx + metres * pxPerMetre))\" y1=\"\(fmt(sy - 5))\" x2=\"\(fmt(sx + metres * pxPerMetre))\" y2=\"\(fmt(sy + 5))\" stroke=\"#000\" stroke-width=\"2\"/>"
            + "<text x=\"\(fmt(sx + metres * pxPerMetre / 2))\" y=\"\(fmt(sy - 8))\" text-anchor=\"middle\">\(text)</text></g>\n"
        return (out, height, title)
    }

    /// The longest round distance (1, 2 or 5 times a power of ten metres) no longer than
    /// `metres`, and how it reads: "200 km", "500 m".
    static func scaleLength(fitting metres: Double) -> (Double, String) {
        var best = 1.0
        var power = 1.0
        while power <= 10_000_000 {
            for step in [1.0, 2, 5] where step * power <= metres { best = step * power }
            power *= 10
        }
        return (best, best >= 1000 ? "\(fmt(best / 1000)) km" : "\(fmt(best)) m")
    }

    static func escaped(_ text: String) -> String {
        text.replacingScalars(["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;"])
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
