import Foundation
import StationCore
import TestSupport
import XCTest

/// `make` as the nightly job and a maintainer run it: the project's Makefile, the
/// stationdb built with these tests (BIN=), and RAW, BUILD and DIST in a
/// temporary folder of the test's own.
struct MakeFixture {
    let folder: String
    /// The stationdb make runs: the debug one built with these tests unless a test names another.
    var binary: String?
    var raw: String { folder + "/raw" }
    var build: String { folder + "/build" }
    var dist: String { folder + "/dist" }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    static func stationdb() throws -> String { try BuiltTools.stationdb() }

    static func make() throws -> String {
        try BuiltTools.required("make", debianPackage: "make")
    }

    /// A fresh folder; `raw` is the small network below unless `copyingRaw` names another raw folder to copy.
    init(copyingRaw source: String? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("make-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if let source {
            try FileManager.default.copyItem(atPath: source, toPath: raw)
        } else {
            try Self.writeSmallNetwork(to: raw)
        }
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }

    struct Run {
        var status: Int32
        var out: String
        var err: String
        /// The last line make or stationdb wrote on stderr before make's own "***" line.
        var lastMessage: String {
            err.split(separator: "\n").last { !Self.isMakesOwnLine($0) }.map(String.init) ?? ""
        }

        /// make's own "*** [Makefile:47: all] Error 4" and, under another make, "make[1]: Leaving directory".
        static func isMakesOwnLine(_ line: Substring) -> Bool {
            line.wholeMatch(of: /make(\[\d+\])?: (\*\*\*|Entering directory|Leaving directory).*/) != nil
        }
    }

    /// `make -f <project>/Makefile BIN=... RAW=... BUILD=... DIST=... <arguments>` in the fixture's folder.
    func make(_ arguments: String...) throws -> Run {
        let process = try start(arguments)
        return Self.finish(process)
    }

    /// Starts make and returns without waiting (for two runs at once).
    func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.make())
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        // Run as a user's make would, even when the tests themselves run under `make test`.
        p.environment = ProcessInfo.processInfo.environment.filter { !["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES"].contains($0.key) }
        p.arguments = ["-f", Self.root + "/Makefile", "BIN=\(try binary ?? Self.stationdb())", "RAW=\(raw)", "BUILD=\(build)", "DIST=\(dist)"] + arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        return (p, out, err)
    }

    static func finish(_ started: (Process, Pipe, Pipe)) -> Run {
        let (p, out, err) = started
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Run(status: p.terminationStatus, out: String(decoding: outData, as: UTF8.self), err: String(decoding: errData, as: UTF8.self))
    }

    /// Runs stationdb itself in the fixture's folder.
    func stationdb(_ arguments: String...) throws -> Run { try stationdb(arguments) }

    func stationdb(_ arguments: [String]) throws -> Run {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try binary ?? Self.stationdb())
        p.currentDirectoryURL = URL(fileURLWithPath: folder)
        p.arguments = arguments
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        try p.run()
        return Self.finish((p, out, err))
    }

    func latestVersion() throws -> Int? {
        let path = dist + "/latest.json"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return json?["version"] as? Int
    }

    static func snapshot(_ folder: String) throws -> [String: String] { try folderDigests(folder) }

    func write(_ text: String, to relative: String) throws {
        try text.write(toFile: folder + "/" + relative, atomically: true, encoding: .utf8)
    }

    static func writeSmallNetwork(to raw: String, stations count: Int = 100) throws {
        try SmallNetwork.write(to: raw, stations: count)
    }
}

/// A test of make: each fixture it makes is removed when the test ends.
class MakeTestCase: XCTestCase {
    private var fixtures: [MakeFixture] = []

    /// A fresh fixture (MakeFixture(copyingRaw:)), removed with the test.
    func fixture(copyingRaw source: String? = nil) throws -> MakeFixture {
        let f = try MakeFixture(copyingRaw: source)
        fixtures.append(f)
        return f
    }

    override func tearDown() {
        for f in fixtures { f.remove() }
        fixtures = []
        super.tearDown()
    }
}
