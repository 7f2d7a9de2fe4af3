import ArgumentParser
import Publishing
import StationCore

struct PreviewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "preview",
        abstract: "Write one HTML page that shows the pins the apps would show for a bundle.",
        discussion: Help.text(PackageResources.preview_txt))

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
