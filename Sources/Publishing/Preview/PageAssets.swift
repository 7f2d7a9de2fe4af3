// The page's markup, style and script are files beside this one (Page/), which an
// editor, a linter and a browser's devtools work with: preview.html links
// leaflet.css, preview.css, leaflet.js and preview.js, and opens from the source
// folder as it is. SwiftPM compiles them into the module (embedInCode), so a
// binary writes the page it was built with and needs no Bundle to find them.
// Writing a page puts each linked file in its place inline, and the data.

enum PageAssets {
    static func page(title: String, leafletCSS: String, leafletJS: String, data: String) -> String {
        let css = String(decoding: PackageResources.preview_css, as: UTF8.self)
        let js = String(decoding: PackageResources.preview_js, as: UTF8.self)
        // In the order the template holds them, each once; what is put in is never searched again.
        let parts = [
            ("<title>stationdb preview</title>", "<title>\(title.markupEscaped)</title>"),
            (#"<link rel="stylesheet" href="leaflet.css">"#, "<style>\n\(leafletCSS)\n</style>"),
            (#"<link rel="stylesheet" href="preview.css">"#, "<style>\n\(css)</style>"),
            (#"<script type="application/json" id="preview-data"></script>"#, #"<script type="application/json" id="preview-data">"# + data + "</script>"),
            (#"<script src="leaflet.js"></script>"#, "<script>\n\(leafletJS)\n</script>"),
            (#"<script src="preview.js"></script>"#, "<script>\n\(js)</script>"),
        ]
        var rest = Substring(String(decoding: PackageResources.preview_html, as: UTF8.self)), page = ""
        for (placeholder, value) in parts {
            guard let found = rest.firstRange(of: placeholder) else { preconditionFailure("Page/preview.html lacks \(placeholder)") }
            page += rest[..<found.lowerBound] + value
            rest = rest[found.upperBound...]
        }
        return page + rest
    }
}
