import Foundation
import TestSupport
import XCTest

/// Every process a test starts ends with the test: a server started from an async
/// test (a Dispatch thread, whose blocked signals a child would inherit) included.
final class TestProcessTests: XCTestCase {
    /// The pids of the processes whose command line holds `text`.
    func processes(mentioning text: String) -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { name in
            guard let pid = Int32(name), pid != getpid(),
                  let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline") else { return nil }
            return String(decoding: data, as: UTF8.self).contains(text) ? pid : nil
        }
    }

    func testAServerStartedByAnAsyncTestEndsWithIt() async throws {
        let root = NSTemporaryDirectory() + "served-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        var server: StaticServer? = try StaticServer(root: root)
        XCTAssertEqual(processes(mentioning: root).count, 1, "the server runs")
        server = nil
        _ = server
        // Gone at once (stop() kills and reaps it); the minute only bounds the wait for a process still ending.
        let deadline = Date().addingTimeInterval(60)
        while !processes(mentioning: root).isEmpty && Date() < deadline { usleep(50_000) }
        let left = processes(mentioning: root)
        XCTAssertEqual(left, [], "the server outlived the object that started it")
        for pid in left { kill(pid, SIGKILL) }
    }
}
