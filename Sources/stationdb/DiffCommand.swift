import ArgumentParser
import BuildDB
import StationCore

extension DiffFormat: ExpressibleByArgument {}

struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Show what changed between two station bundles, and check the nightly's guards.",
        discussion: Help.text(PackageResources.diff_txt))

    @Argument(help: "The old side: a bundle .sqlite, a dist folder or a version folder.")
    var old: String

    @Argument(help: "The new side, likewise.")
    var new: String

    @Option(help: "Output format: text, markdown, json or sql.")
    var format: DiffFormat = .text

    @Option(help: "Rows listed per table and kind (added, removed, changed) in text and markdown.")
    var limit = 50

    @Option(name: .customLong("max-removed"), help: ArgumentHelp("Refuse (exit 4) when more than PCT % of OLD's stations, lines or operators are removed.", valueName: "PCT"))
    var maxRemoved: Double?

    @Option(name: .customLong("max-disabled"), help: ArgumentHelp("Refuse when more than PCT % of OLD's enabled stations, lines or operators are disabled.", valueName: "PCT"))
    var maxDisabled: Double?

    @Option(name: .customLong("max-line-rows-removed"), help: ArgumentHelp("Refuse when more than PCT % of OLD's stations_lines rows are removed.", valueName: "PCT"))
    var maxLineRowsRemoved: Double?

    @Option(name: .customLong("max-moved-m"), help: ArgumentHelp("Refuse when a station moved further than METRES.", valueName: "METRES"))
    var maxMovedMetres: Double?

    @Option(name: .customLong("max-weight-churn"), help: ArgumentHelp("Refuse when more than PCT % of live stations changed weight.", valueName: "PCT"))
    var maxWeightChurn: Double?

    @Option(name: .customLong("max-renamed"), help: ArgumentHelp("Refuse when more than PCT % of OLD's stations are renamed.", valueName: "PCT"))
    var maxRenamed: Double?

    @Option(name: .customLong("max-moved-far"), help: ArgumentHelp("Refuse when more than PCT % of OLD's stations moved more than 300 m.", valueName: "PCT"))
    var maxMovedFar: Double?

    func validate() throws {
        guard limit >= 0 else { throw ValidationError("--limit must be 0 or more") }
        for (name, value) in [("--max-removed", maxRemoved), ("--max-disabled", maxDisabled), ("--max-line-rows-removed", maxLineRowsRemoved),
                              ("--max-moved-m", maxMovedMetres), ("--max-weight-churn", maxWeightChurn), ("--max-renamed", maxRenamed),
                              ("--max-moved-far", maxMovedFar)] {
            if let value, !(value >= 0) { throw ValidationError("\(name) must be a number of 0 or more") }
        }
    }

    func run() throws {
        let oldSide = try BundleLocation.resolve(old)
        let newSide = try BundleLocation.resolve(new)
        let report = try DiffReport.make(old: oldSide, new: newSide)
        let guards = DiffGuards(maxRemovedPercent: maxRemoved, maxDisabledPercent: maxDisabled, maxLineRowsRemovedPercent: maxLineRowsRemoved,
                                maxMovedMetres: maxMovedMetres, maxWeightChurnPercent: maxWeightChurn, maxRenamedPercent: maxRenamed,
                                maxMovedFarPercent: maxMovedFar)
        let violations = guards.violations(of: report.summary)
        StandardStream.output.write(report.render(format, limit: limit, guardViolations: violations))
        if !violations.isEmpty { throw StationError.refused(violations) }
        if !report.difference.isEmpty { throw ExitCode(ExitStatus.differences.rawValue) }
    }
}
