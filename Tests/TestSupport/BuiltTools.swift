import Foundation
import XCTest

/// The programs the tests run as their users would: the stationdb built beside
/// the tests, and tools found on PATH (make, sqldiff).
public enum BuiltTools {
    /// The folder the build put the test bundle in, which holds the package's
    /// executables too: .build/debug for a plain `swift test`, <scratch>/debug with
    /// --scratch-path (on Linux the test bundle is the running executable; on macOS
    /// it is a .xctest bundle inside that folder).
    public static var productsFolder: URL {
        if let xctest = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return xctest.bundleURL.deletingLastPathComponent()
        }
        let executable = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0])
        return executable.deletingLastPathComponent()
    }

    /// The stationdb binary built alongside these tests; the test is skipped without it.
    public static func stationdb() throws -> String {
        let path = productsFolder.appendingPathComponent("stationdb").path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw XCTSkip("\(path) absent: run swift build (with the same --scratch-path) first")
        }
        return path
    }

    /// A tool on PATH, or nil.
    public static func which(_ tool: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") + ["/usr/bin"] {
            let path = "\(dir)/\(tool)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}
