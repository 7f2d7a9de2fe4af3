import ArgumentParser
import BuildDB
import Publishing

/// Whether a command's help speaks of publishing, or of planning what a publish would do.
protocol Wording { static var plans: Bool { get } }
enum Publishes: Wording { static let plans = false }
enum Plans: Wording { static let plans = true }

/// The publish guards, shared by `build`, `publish` and `plan`.
struct GuardOptions<Say: Wording>: ParsableArguments {
    @Option(name: .customLong("max-removed"), help: ArgumentHelp("Refuse when more than PCT % of the published stations are removed.", valueName: "PCT"))
    var maxRemoved = DiffGuards.nightly.maxRemovedPercent!

    @Option(name: .customLong("max-disabled"), help: ArgumentHelp("Refuse when more than PCT % of the published enabled stations, lines or operators are disabled.", valueName: "PCT"))
    var maxDisabled = DiffGuards.nightly.maxDisabledPercent!

    @Option(name: .customLong("max-line-rows-removed"), help: ArgumentHelp("Refuse when more than PCT % of the published stations_lines rows are removed.", valueName: "PCT"))
    var maxLineRowsRemoved = DiffGuards.nightly.maxLineRowsRemovedPercent!

    @Option(name: .customLong("max-moved-m"), help: ArgumentHelp("Refuse when a station moved further than METRES.", valueName: "METRES"))
    var maxMovedMetres = DiffGuards.nightly.maxMovedMetres!

    @Option(name: .customLong("max-weight-churn"), help: ArgumentHelp("Refuse when more than PCT % of the stations enabled in both changed weight.", valueName: "PCT"))
    var maxWeightChurn = DiffGuards.nightly.maxWeightChurnPercent!

    @Option(name: .customLong("max-renamed"), help: ArgumentHelp("Refuse when more than PCT % of the published stations are renamed.", valueName: "PCT"))
    var maxRenamed = DiffGuards.nightly.maxRenamedPercent!

    @Option(name: .customLong("max-moved-far"), help: ArgumentHelp("Refuse when more than PCT % of the published stations moved more than 300 m.", valueName: "PCT"))
    var maxMovedFar = DiffGuards.nightly.maxMovedFarPercent!

    @Flag(help: ArgumentHelp(Say.plans ? "Plan what a forced publish would do when a guard is exceeded: the report says it would be published (make plan FORCE_PUBLISH=1)."
                                       : "Publish even when a guard is exceeded (make FORCE_PUBLISH=1)."))
    var force = false

    @Option(name: .customLong("as-version"), help: ArgumentHelp((Say.plans ? "Plan version N, as a publish with --as-version N would make it (make plan VERSION=N)" : "Publish as version N (make VERSION=N)")
                                                                    + "; it must be larger than every version in dist.", valueName: "N"))
    var requestedVersion: Int?

    var guards: DiffGuards {
        DiffGuards(maxRemovedPercent: maxRemoved, maxDisabledPercent: maxDisabled, maxLineRowsRemovedPercent: maxLineRowsRemoved,
                   maxMovedMetres: maxMovedMetres, maxWeightChurnPercent: maxWeightChurn, maxRenamedPercent: maxRenamed, maxMovedFarPercent: maxMovedFar)
    }

    func validate() throws {
        for (name, value) in [("--max-removed", maxRemoved), ("--max-disabled", maxDisabled), ("--max-line-rows-removed", maxLineRowsRemoved),
                              ("--max-moved-m", maxMovedMetres), ("--max-weight-churn", maxWeightChurn), ("--max-renamed", maxRenamed),
                              ("--max-moved-far", maxMovedFar)] where !(value >= 0) {
            throw ValidationError("\(name) must be a number of 0 or more")
        }
    }
}
