import BuildDB
import StationCore

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
/// StationError of the environment (exit 3) that says to install it.
///
/// Opened as `preview.html#lat=35.68&lng=139.76&span=0.2&pins=100` (optionally
/// `&side=baseline`), the page shows that view and, once drawn, sets
/// `document.body.dataset.pins` to the s_ids shown, in the query's order;
/// `&bench=N` pans N times and sets `data-bench-ms` to the mean milliseconds per
/// redraw. Panning or zooming rewrites the hash, so a reload shows the same view.
package enum PreviewPage {
    /// Where Debian's libjs-leaflet puts Leaflet.
    package static let debianLeaflet = "/usr/share/javascript/leaflet"

    /// The apps' max-pins setting, exactly the values they offer; 100 is their default.
    package static let pinChoices = [50, 100, 150, 200, 300, 500]
    package static let defaultPins = 100

    /// The phone's map, width / height (portrait).
    package static let aspect = 0.6

    /// Writes the page for `candidate` (a bundle's stations.sqlite), with what
    /// changed since `baseline` when one is given, atomically to `output`.
    /// `candidateLabel` and `baselineLabel` name the bundles on the page (default:
    /// their paths). `leafletFolder` holds leaflet.js and leaflet.css.
    /// `nothingChanged`, for a page of one bundle that is what a plan found unchanged, says so on the page.
    package static func write(candidate: String, baseline: String?, to output: String,
                             candidateLabel: String? = nil, baselineLabel: String? = nil, changes: ChangeList? = nil,
                             identity: IdentityReview? = nil, nothingChanged: String? = nil, leafletFolder: String = debianLeaflet,
                             baselineRead: PageData.Side? = nil) throws {
        let page = try html(candidate: candidate, baseline: baseline, candidateLabel: candidateLabel,
                            baselineLabel: baselineLabel, changes: changes, identity: identity, nothingChanged: nothingChanged,
                            leafletFolder: leafletFolder, baselineRead: baselineRead)
        try AtomicFile.write(page, to: output)
    }

    /// The page itself, as `write` would write it. `changes` is what changed from the
    /// baseline to the candidate, when the caller has it (a plan); else it is worked out here.
    /// `identity` (a plan's) rings the s_ids that wait for the maintainer's decision.
    /// `baselineRead` is the baseline's side when the caller has read it already (a plan reads
    /// the published version's while it ingests).
    package static func html(candidate: String, baseline: String?, candidateLabel: String? = nil, baselineLabel: String? = nil,
                            changes: ChangeList? = nil, identity: IdentityReview? = nil, nothingChanged: String? = nil,
                            leafletFolder: String = debianLeaflet, baselineRead: PageData.Side? = nil) throws -> String {
        // Leaflet first: a missing package should be said before any bundle is read.
        let leaflet = try Leaflet.read(from: leafletFolder)
        let marks = identity.map { review in
            (review.undecided + review.orphans).map {
                PageData.IdentityMark(id: $0.stationID, kind: $0.kind.rawValue, name: $0.name, reason: $0.reason ?? "", decision: $0.decision ?? "")
            }
        }
        let data = PageData(pinChoices: pinChoices, defaultPins: defaultPins, aspect: aspect,
                            candidate: try PageData.Side.read(path: candidate, label: candidateLabel ?? candidate),
                            baseline: try baseline.map { try baselineRead ?? PageData.Side.read(path: $0, label: baselineLabel ?? $0) },
                            changes: try baseline.map { path in try changes.map(PreviewChanges.init) ?? PreviewChanges.between(baseline: path, candidate: candidate) },
                            nothingChanged: nothingChanged, identity: marks?.isEmpty == false ? marks : nil)
        let title = "stationdb preview: " + (candidateLabel ?? candidate) + (baseline.map { " against " + (baselineLabel ?? $0) } ?? "")
        return PageAssets.page(title: title, leafletCSS: leaflet.css, leafletJS: leaflet.js, data: try data.json())
    }
}

/// Leaflet's script and style sheet as Debian installs them.
struct Leaflet {
    var js: String
    var css: String

    static func read(from folder: String) throws -> Leaflet {
        let jsPath = joinPath(folder, "leaflet.js"), cssPath = joinPath(folder, "leaflet.css")
        for path in [jsPath, cssPath] where !Files.exists(path) {
            throw StationError.environment("the preview inlines Leaflet from Debian's libjs-leaflet, and \(path) is missing; install it with: apt-get install libjs-leaflet")
        }
        let js = try Files.read(jsPath), css = try Files.read(cssPath)
        // Inlined, a "</script" or "</style" in either would end its element early.
        func closes(_ bytes: [UInt8], _ tag: String) -> Bool {
            let lower = bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            return lower.firstRange(of: Array(tag.utf8)) != nil
        }
        guard !closes(js, "</script"), !closes(css, "</style") else {
            throw StationError.environment("\(folder): leaflet.js or leaflet.css contains a closing tag and cannot be inlined")
        }
        return Leaflet(js: String(decoding: js, as: UTF8.self), css: String(decoding: css, as: UTF8.self))
    }
}
