import Foundation
import XCTest

/// The programs the tests run as their users would: the stationdb built beside
/// the tests, and tools found on PATH (make, sqldiff).
package enum BuiltTools {
    /// The folder the build put the test bundle in, which holds the package's
    /// executables too: .build/release under `make test` (.build/debug for a plain `swift test`), <scratch>/release with
    /// --scratch-path (on Linux the test bundle is the running executable; on macOS
    /// it is a .xctest bundle inside that folder).
    package static var productsFolder: URL {
        if let xctest = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return xctest.bundleURL.deletingLastPathComponent()
        }
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0])
        return executable.deletingLastPathComponent()
    }

    /// The stationdb binary built alongside these tests; without it the test fails, saying how to build it.
    package static func stationdb() throws -> String {
        let path = productsFolder.appendingPathComponent("stationdb").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw FixtureFailure("\(path) absent: run `swift build` (with the same --scratch-path) before the tests, as `make test` does")
        }
        return path
    }

    /// sqldiff (Debian's sqlite3-tools), which the tests hold `stationdb diff` against.
    package static func sqldiff() throws -> String { try required("sqldiff", debianPackage: "sqlite3-tools") }

    /// A tool a test cannot do without, from PATH. Its absence fails the test and says how
    /// to install it: a skip would let `make test` pass without the check being made.
    package static func required(_ tool: String, debianPackage: String) throws -> String {
        guard let path = which(tool) else { throw MissingTool(tool: tool, debianPackage: debianPackage) }
        return path
    }

    /// A fixture the tests need that could not be made: the test fails, saying what to mend.
    package struct FixtureFailure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    package struct MissingTool: Error, CustomStringConvertible {
        package var tool: String
        package var debianPackage: String
        package var description: String {
            "\(tool) not found on PATH: install it with `apt-get install \(debianPackage)` (`make test` does, through scripts/setup)"
        }
    }

    /// A tool on PATH, or nil.
    package static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"] {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
