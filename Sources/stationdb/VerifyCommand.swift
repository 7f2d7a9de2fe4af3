import ArgumentParser
import BuildDB
import StationCore

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a published bundle: integrity, schema, checksums, version, references, weights, coordinates.",
        discussion: Help.text(PackageResources.verify_txt))

    @Argument(help: "A dist folder, a version folder or a .sqlite file.")
    var distOrDB = "dist"

    func run() throws {
        let report = try BundleVerifier.verify(path: distOrDB)
        let count = report.warnings.count, listed = 10
        print(report.line + (count == 0 ? "" : " (\(count) warning\(count == 1 ? "" : "s"))"))
        // The first few of each kind, and how many more: together, the count above.
        for field in ["stations", "lines"] {
            let some = report.warnings.filter { $0.location.field == field }
            for w in some.prefix(listed) { note("warning: \(w)") }
            if some.count > listed { note("warning: ... and \(some.count - listed) more \(field)") }
        }
    }
}
