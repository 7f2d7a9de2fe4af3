import StationIO
import StationModel

/// A preview of what the map apps will show: one HTML file, readable from disk
/// with no network, that draws a bundle's rail network in a phone-shaped map and
/// on it the pins the apps' own query returns for the view, at the pins setting
/// the user picks; with a baseline, what changed between the two bundles too.
///
///   PreviewPage.write(candidate: "dist/5/stations.sqlite", baseline: "dist/4/stations.sqlite",
///                     to: "preview.html")
///
/// The same bundles give the same bytes. Leaflet (Debian's libjs-leaflet) is read
/// when the page is written and inlined; without it the call throws an
/// EnvironmentError (exit 3) that says to install it.
///
/// Opened as `preview.html#lat=35.68&lng=139.76&span=0.2&pins=100` (optionally
/// `&side=baseline`), the page shows that view and, once drawn, sets
/// `document.body.dataset.pins` to the s_ids shown, in the query's order;
/// `&bench=N` pans N times and sets `data-bench-ms` to the mean milliseconds per
/// redraw. Panning or zooming rewrites the hash, so a reload shows the same view.
public enum PreviewPage {
    /// Where Debian's libjs-leaflet puts Leaflet.
    public static let debianLeaflet = "/usr/share/javascript/leaflet"

    /// The apps' max-pins setting, exactly the values they offer; 100 is their default.
    public static let pinChoices = [50, 100, 150, 200, 300, 500]
    public static let defaultPins = 100

    /// The phone's map, width / height (portrait).
    public static let aspect = 0.6

    /// Writes the page for `candidate` (a bundle's stations.sqlite), with what
    /// changed since `baseline` when one is given, atomically to `output`.
    /// `candidateLabel` and `baselineLabel` name the bundles on the page (default:
    /// their paths). `leafletFolder` holds leaflet.js and leaflet.css.
    public static func write(candidate: String, baseline: String?, to output: String,
                             candidateLabel: String? = nil, baselineLabel: String? = nil,
                             leafletFolder: String = debianLeaflet) throws {
        let page = try html(candidate: candidate, baseline: baseline, candidateLabel: candidateLabel,
                            baselineLabel: baselineLabel, leafletFolder: leafletFolder)
        try AtomicFile.write(page, to: output)
    }

    /// The page itself, as `write` would write it.
    public static func html(candidate: String, baseline: String?, candidateLabel: String? = nil, baselineLabel: String? = nil,
                            leafletFolder: String = debianLeaflet) throws -> String {
        // Leaflet first: a missing package should be said before any bundle is read.
        let leaflet = try Leaflet.read(from: leafletFolder)
        let candidateJSON = try BundleTables.read(path: candidate).json(label: candidateLabel ?? candidate)
        let baselineJSON = try baseline.map { path in
            (tables: try BundleTables.read(path: path).json(label: baselineLabel ?? path),
             changes: try PreviewChanges.between(baseline: path, candidate: candidate).json())
        }
        let data = JSONText()
        data.object {
            data.member("pinChoices") { data.ints(pinChoices) }
            data.member("defaultPins") { data.int(defaultPins) }
            data.member("aspect") { data.double(aspect, decimals: 2) }
            data.member("candidate") { data.raw(candidateJSON) }
            if let baselineJSON {
                data.member("baseline") { data.raw(baselineJSON.tables) }
                data.member("changes") { data.raw(baselineJSON.changes) }
            }
        }
        let title = "stationdb preview: " + (candidateLabel ?? candidate) + (baseline.map { " against " + (baselineLabel ?? $0) } ?? "")
        return PageAssets.page(title: title, leafletCSS: leaflet.css, leafletJS: leaflet.js, data: data.text)
    }
}

/// Leaflet's script and style sheet as Debian installs them.
struct Leaflet {
    var js: String
    var css: String

    static func read(from folder: String) throws -> Leaflet {
        let jsPath = joinPath(folder, "leaflet.js"), cssPath = joinPath(folder, "leaflet.css")
        for path in [jsPath, cssPath] where !Files.exists(path) {
            throw EnvironmentError("the preview inlines Leaflet from Debian's libjs-leaflet, and \(path) is missing; install it with: apt-get install libjs-leaflet")
        }
        let js = String(decoding: try Files.read(jsPath), as: UTF8.self)
        let css = String(decoding: try Files.read(cssPath), as: UTF8.self)
        // Inlined, a "</script" or "</style" in either would end its element early.
        guard !js.lowercased().contains("</script"), !css.lowercased().contains("</style") else {
            throw EnvironmentError("\(folder): leaflet.js or leaflet.css contains a closing tag and cannot be inlined")
        }
        return Leaflet(js: js, css: css)
    }
}
