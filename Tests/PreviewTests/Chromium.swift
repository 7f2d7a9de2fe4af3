import Foundation
import TestSupport
import XCTest

/// Debian's chromium, headless, as the tests' browser: each page is opened by a
/// process of its own with --dump-dom, which prints the DOM once the page has
/// loaded; the page's hooks leave what it drew in data- attributes of <body>.
enum Chromium {
    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "chromium is not installed: the preview's tests run the page in it; install it with: apt-get install chromium (make test does)"
        }
    }

    /// The browser, or a failure (never a skip: without it the page is untested).
    static func path(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        for candidate in [BuiltTools.which("chromium"), "/usr/bin/chromium"].compactMap({ $0 })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        XCTFail(Missing().description, file: file, line: line)
        throw Missing()
    }

    /// The attributes of <body> after each URL loaded, in the order given. Two
    /// browsers at a time: the machine has two cores and a start costs about a second.
    static func bodies(of urls: [String], scratch: String, parallel: Int = 2) throws -> [[String: String]] {
        let browser = try path()
        var outputs = [String](repeating: "", count: urls.count)
        var running: [(index: Int, process: Process, started: Date)] = []
        var next = 0
        func start(_ i: Int) throws {
            let out = "\(scratch)/dom-\(i).html"
            guard FileManager.default.createFile(atPath: out, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: browser)
            p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                           "--user-data-dir=\(scratch)/profile-\(i)", "--window-size=800,900",
                           // Nothing may come from the network: any name lookup fails.
                           "--host-resolver-rules=MAP * ~NOTFOUND",
                           "--dump-dom", urls[i]]
            p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            p.standardError = FileHandle.nullDevice
            try p.run()
            outputs[i] = out
            running.append((i, p, Date()))
        }
        while next < urls.count || !running.isEmpty {
            while next < urls.count && running.count < parallel {
                try start(next)
                next += 1
            }
            usleep(20_000)
            for r in running where r.process.isRunning && Date().timeIntervalSince(r.started) > 60 {
                r.process.terminate()
            }
            running.removeAll { !$0.process.isRunning }
        }
        return try outputs.enumerated().map { i, out in
            let dom = try String(contentsOfFile: out, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: "\(scratch)/profile-\(i)")
            return bodyAttributes(dom)
        }
    }

    /// `name="value"` pairs of the first <body ...> tag, entities decoded.
    static func bodyAttributes(_ dom: String) -> [String: String] {
        guard let open = dom.range(of: "<body"), let close = dom[open.upperBound...].firstIndex(of: ">") else { return [:] }
        var attributes: [String: String] = [:]
        var rest = dom[open.upperBound..<close]
        while let eq = rest.firstIndex(of: "=") {
            let name = rest[..<eq].trimmingCharacters(in: .whitespaces)
            let afterEq = rest.index(after: eq)
            guard afterEq < rest.endIndex, rest[afterEq] == "\"",
                  let end = rest[rest.index(after: afterEq)...].firstIndex(of: "\"") else { break }
            attributes[name] = String(rest[rest.index(after: afterEq)..<end])
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
                .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
            rest = rest[rest.index(after: end)...]
        }
        return attributes
    }
}
