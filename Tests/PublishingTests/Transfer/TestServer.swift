import Foundation
import TestSupport
import XCTest

/// A small HTTP server in Python, started per test on 127.0.0.1 with a port
/// the kernel picks (a ChildProcess: it ends with the test). It serves a folder
/// and misbehaves on request: a JSON file maps a URL path to a fault, and every
/// request is logged as "path status".
final class TestServer {
    let root: String
    let faultsPath: String
    let logPath: String
    let port: Int
    private let process: ChildProcess

    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The server itself, in a file of its own (Tests/PublishingTests/Transfer/test_server.py).
    static let script = RepositoryData.root + "/Tests/PublishingTests/Transfer/test_server.py"


    init(root: String, scratch: String) throws {
        self.root = root
        faultsPath = scratch + "/faults.json"
        logPath = scratch + "/requests.log"
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())

        process = try ChildProcess(["python3", TestServer.script, root, faultsPath, logPath])
        guard let port = process.readLine().flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
            process.stop()
            // Without it the fetch and pull tests would test nothing: a failure, not a skip.
            throw ServerDidNotStart()
        }
        self.port = port
    }

    struct ServerDidNotStart: Error, CustomStringConvertible {
        var description: String {
            "the python3 test server did not start: is python3 installed? (`apt-get install python3`; `make test` installs it through scripts/setup)"
        }
    }

    func setFaults(_ faults: [String: String]) throws {
        let data = try JSONSerialization.data(withJSONObject: faults, options: [.sortedKeys])
        try data.write(to: URL(fileURLWithPath: faultsPath))
    }

    /// Requests seen since the last `clearLog`, as "path status".
    func requests() -> [String] {
        let text = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func clearLog() {
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())
    }

    func stop() { process.stop() }
}
