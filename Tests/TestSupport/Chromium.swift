import Foundation
import XCTest

/// Debian's chromium, headless, as the tests' browser: each page is opened by a
/// process of its own with --dump-dom, which prints the DOM once the page has
/// loaded; the page's hooks leave what it drew in data- attributes of <body>.
package enum Chromium {
    package struct Missing: Error, CustomStringConvertible {
        package var description: String {
            "chromium is not installed: the preview's tests run the page in it; install it with: apt-get install chromium (make test does)"
        }
    }

    package struct NoJapaneseFont: Error, CustomStringConvertible {
        package var description: String {
            "no font for Japanese (fc-list :lang=ja lists none): chromium would draw every station name as empty boxes; install one with: apt-get install fonts-noto-cjk (make test does)"
        }
    }

    /// The browser, or a failure (never a skip: without it the page is untested), and
    /// a failure too without a font that draws Japanese.
    package static func path(file: StaticString = #filePath, line: UInt = #line) throws -> String {
        guard hasJapaneseFont else {
            XCTFail(NoJapaneseFont().description, file: file, line: line)
            throw NoJapaneseFont()
        }
        for candidate in [BuiltTools.which("chromium"), "/usr/bin/chromium"].compactMap({ $0 })
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        XCTFail(Missing().description, file: file, line: line)
        throw Missing()
    }

    /// Whether fontconfig, which chromium draws text through, knows a font for Japanese.
    package static let hasJapaneseFont: Bool = {
        let p = Process(), out = Pipe()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["fc-list", ":lang=ja", "family"]
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return false }
        let listed = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return p.terminationStatus == 0 && !listed.isEmpty
    }()

    /// The DOM of each URL once its page has loaded, in the order given (see `bodies`).
    package static func doms(of urls: [String], scratch: String, parallel: Int = 2, fileAccess: Bool = false) throws -> [String] {
        try dumps(of: urls, scratch: scratch, parallel: parallel, fileAccess: fileAccess).map { try String(contentsOfFile: $0, encoding: .utf8) }
    }

    /// The attributes of <body> after each URL loaded, in the order given. The pages load
    /// side by side as frames of a few pages of the test's own (one per browser, two
    /// browsers at a time), each frame the window's size: a browser's start costs about a
    /// second, a frame a tenth of that. Each frame's page is its own; the outer page only
    /// copies what each frame's <body> says once it is ready (or failed) into its own <body>.
    package static func bodies(of urls: [String], scratch: String, parallel: Int = 2) throws -> [[String: String]] {
        let perPage = max(1, (urls.count + parallel - 1) / parallel)
        var pages: [String] = []
        for (k, start) in stride(from: 0, to: urls.count, by: perPage).enumerated() {
            let frames = urls[start..<min(start + perPage, urls.count)].map { "<iframe src=\"\($0)\" width=\"800\" height=\"900\"></iframe>" }.joined()
            let path = "\(scratch)/frames-\(k).html"
            try Data((framesPage.replacingOccurrences(of: "FRAMES", with: frames)).utf8).write(to: URL(fileURLWithPath: path))
            pages.append("file://" + path)
        }
        var out: [[String: String]] = []
        for (k, dom) in try doms(of: pages, scratch: scratch, parallel: parallel, fileAccess: true).enumerated() {
            let outer = bodyAttributes(dom), count = min(perPage, urls.count - k * perPage)
            for i in 0..<count {
                let prefix = "data-f\(i)-"
                out.append(Dictionary(uniqueKeysWithValues: outer.filter { $0.key.hasPrefix(prefix) }.map { (String($0.key.dropFirst(prefix.count)), $0.value) }))
            }
        }
        return out
    }

    /// The outer page of `bodies`: polls its frames until each one's <body> says it is ready
    /// or failed, then copies that <body>'s attributes as data-f<frame>-<name>.
    static let framesPage = """
        <!doctype html><html><body>FRAMES<script>
        function poll() {
          var frames = document.querySelectorAll('iframe'), done = 0;
          for (var i = 0; i < frames.length; i++) {
            var body = frames[i].contentDocument && frames[i].contentDocument.body;
            if (!body || (body.dataset.ready !== '1' && body.dataset.error === undefined)) continue;
            done++;
            for (var a = 0; a < body.attributes.length; a++) document.body.setAttribute('data-f' + i + '-' + body.attributes[a].name, body.attributes[a].value);
          }
          if (done < frames.length) setTimeout(poll, 20);
        }
        poll();
        </script></body></html>
        """

    /// Each page's DOM dumped into a file of `scratch`, the files' paths in the order given.
    static func dumps(of urls: [String], scratch: String, parallel: Int, fileAccess: Bool = false) throws -> [String] {
        let browser = try path()
        var outputs = [String](repeating: "", count: urls.count)
        var running: [(index: Int, process: Process, started: Date, profile: Int)] = []
        // A profile per browser running at once, reused by the next: a fresh one costs a start 0.15 s more.
        var freeProfiles = Array(0..<parallel)
        var next = 0
        func start(_ i: Int) throws {
            let profile = freeProfiles.removeLast()
            let out = "\(scratch)/dom-\(i).html"
            guard FileManager.default.createFile(atPath: out, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: browser)
            p.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
                           "--user-data-dir=\(scratch)/profile-\(profile)", "--window-size=800,900",
                           // Nothing may come from the network: any name lookup fails.
                           "--host-resolver-rules=MAP * ~NOTFOUND",
                           // A frames page reads its frames' pages, files beside it.
                           // It dumps once every frame has drawn: virtual time runs on while its polls wait.
                           ] + (fileAccess ? ["--allow-file-access-from-files", "--virtual-time-budget=60000"] : []) + ["--dump-dom", urls[i]]
            p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            p.standardError = FileHandle.nullDevice
            try p.run()
            outputs[i] = out
            running.append((i, p, Date(), profile))
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
            // Looked at once: a browser that ends between two looks would keep its profile.
            let finished = Set(running.filter { !$0.process.isRunning }.map(\.index))
            freeProfiles += running.filter { finished.contains($0.index) }.map(\.profile)
            running.removeAll { finished.contains($0.index) }
        }
        return outputs
    }

    /// An element of a dumped DOM: its attributes and its text (tags dropped, entities decoded).
    package struct Element: Sendable {
        package var attributes: [String: String]
        package var text: String
        package var id: String? { attributes["id"] }
    }

    /// Every `<tag ...>...</tag>` of `dom` (not nested in one of its own kind), in document order.
    package static func elements(_ tag: String, in dom: String) -> [Element] {
        var out: [Element] = []
        var rest = dom[...]
        // The tag itself, not a longer name that starts with it (<p, not <pre).
        let start = try! Regex("<\(tag)(?=[\\s>])")
        while let open = rest.firstMatch(of: start)?.range, let close = rest[open.upperBound...].firstIndex(of: ">"),
              let end = rest[close...].range(of: "</\(tag)>") {
            let inner = rest[rest.index(after: close)..<end.lowerBound]
            let text = decoded(inner.replacing(/<[^>]*>/, with: ""))
            out.append(Element(attributes: attributes(rest[open.upperBound..<close]), text: text))
            rest = rest[end.upperBound...]
        }
        return out
    }

    static func decoded(_ text: some StringProtocol) -> String {
        String(text).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&nbsp;", with: "\u{A0}").replacingOccurrences(of: "&amp;", with: "&")
    }

    /// `name="value"` pairs of the first <body ...> tag, entities decoded.
    package static func bodyAttributes(_ dom: String) -> [String: String] {
        guard let open = dom.range(of: "<body"), let close = dom[open.upperBound...].firstIndex(of: ">") else { return [:] }
        return attributes(dom[open.upperBound..<close])
    }

    /// The `name="value"` pairs of a tag's inside, entities decoded.
    static func attributes(_ tag: Substring) -> [String: String] {
        var attributes: [String: String] = [:]
        var rest = tag
        while let eq = rest.firstIndex(of: "=") {
            let name = rest[..<eq].trimmingCharacters(in: .whitespaces)
            let afterEq = rest.index(after: eq)
            guard afterEq < rest.endIndex, rest[afterEq] == "\"",
                  let end = rest[rest.index(after: afterEq)...].firstIndex(of: "\"") else { break }
            attributes[name] = decoded(rest[rest.index(after: afterEq)..<end])
            rest = rest[rest.index(after: end)...]
        }
        return attributes
    }
}
