import ArgumentParser
import BundleDiff
import Preview
import StationIO
import StationModel

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write one HTML page that shows the pins the apps would show for a bundle.",
        discussion: """
        The page is a phone-shaped map (portrait, width 0.6 of the height) of
        the bundle's rail network, every line drawn through its stations in
        s_sort order, and on it the pins the apps' own query returns for the
        view: the enabled stations in the view enlarged 1.1x, ORDER BY weight,
        distance, LIMIT the pins setting (50, 100, 150, 200, 300 or 500, as
        in the apps). Pan and zoom with mouse, wheel or touch; pins are
        coloured by weight; a pin's popup gives its s_id, name, reading, lines
        and weight; the search box finds a station by name or reading.

        With --baseline (usually the published bundle) the page also lists
        what changed from it to BUNDLE (moved, renamed, weight changed, added,
        disabled, re-enabled), highlights those stations on the map, and a
        switch shows either bundle's pins.

        BUNDLE and the baseline are each a bundle .sqlite file, a dist folder
        (its latest.json names the published version) or a version folder
        (dist/<v>). The page is one file that needs no network: Leaflet is
        inlined from Debian's libjs-leaflet (exit 3 when it is missing), and
        the lines are the base map (OpenStreetMap tiles are an opt-in switch).
        The same bundles give the same bytes.

        Open it in a browser; the address ends in the view, which panning
        keeps up to date and a link can set:
          file:///tmp/preview.html#lat=35.68&lng=139.76&span=0.2&pins=100
        (span: the map's height in degrees of latitude; add &side=baseline for
        the baseline). The page then sets document.body.dataset.pins to the
        s_ids shown, in the query's order, which is what the tests read.

        Examples:
          stationdb preview dist --out /tmp/preview.html
          stationdb preview dist/5 --baseline dist/4 --out /tmp/v5.html
          stationdb preview build/staging.bin.candidate --baseline dist \\
            --out /tmp/plan.html      # after `stationdb plan` (make plan)
          chromium '/tmp/v5.html#lat=34.70&lng=135.50&span=0.4&pins=150'

        Exit status: 0 written, 2 a path is not a bundle (or --out is not a
        file or a new path), 3 a damaged dist, libjs-leaflet is missing or the
        page cannot be written.
        """)

    @Argument(help: ArgumentHelp("The bundle to show: a .sqlite file, a dist folder or a version folder.", valueName: "BUNDLE_OR_DIST"))
    var bundle: String

    @Option(help: ArgumentHelp("Compare with this bundle (e.g. the published one): list and highlight what changed, and switch between the two.",
                               valueName: "BUNDLE_OR_DIST"))
    var baseline: String?

    @Option(help: ArgumentHelp("The HTML file to write.", valueName: "FILE"))
    var out: String

    func run() throws {
        let candidate = try BundleLocation.resolve(bundle)
        let base = try baseline.map(BundleLocation.resolve)
        try PreviewPage.write(candidate: candidate.databasePath, baseline: base?.databasePath, to: out,
                              candidateLabel: candidate.label, baselineLabel: base?.label)
        note("preview: wrote \(out)" + (base.map { " (\(candidate.label) against \($0.label))" } ?? " (\(candidate.label))"))
    }
}
