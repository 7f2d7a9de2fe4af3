import Glibc
import Synchronization
import XCTest
import StationCore

/// `Pending.onThread` for work that is not async (ingest's assemble makes the registry's text on
/// it while the identity review runs): both values come back, the maker runs on a thread of its
/// own, and its error comes first, as it would have when run before the body.
final class PendingTests: XCTestCase {
    struct Failure: Error, Equatable { var what: String }

    func testBothValuesComeBackAndTheMakerRunsOnAThreadOfItsOwn() throws {
        let here = pthread_self()
        let makerThread = Mutex<pthread_t?>(nil)
        let (made, body) = try Pending<[Int]>.onThread({
            makerThread.withLock { $0 = pthread_self() }
            return [1, 2, 3]
        }) { "body" }
        XCTAssertEqual(made, [1, 2, 3])
        XCTAssertEqual(body, "body")
        let maker = try XCTUnwrap(makerThread.withLock { $0 })
        XCTAssertEqual(pthread_equal(maker, here), 0, "the maker ran on the caller's thread")
    }

    func testTheMakersErrorComesFirst() {
        XCTAssertThrowsError(try Pending<Int>.onThread({ throw Failure(what: "maker") }) { () throws -> Int in throw Failure(what: "body") }) {
            XCTAssertEqual($0 as? Failure, Failure(what: "maker"))
        }
        XCTAssertThrowsError(try Pending<Int>.onThread({ 1 }) { () throws -> Int in throw Failure(what: "body") }) {
            XCTAssertEqual($0 as? Failure, Failure(what: "body"))
        }
    }

    func testTheBodyDoesNotWaitForTheMaker() throws {
        // The maker waits until the body has run: were they one after the other, it would wait in
        // vain (a minute, so that the test ends with false rather than never).
        let bodyRan = Mutex(false)
        let (made, _) = try Pending<Bool>.onThread({
            var now = timespec(), deadline = timespec()
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            deadline.tv_sec += 60
            repeat {
                if bodyRan.withLock({ $0 }) { return true }
                sched_yield()
                clock_gettime(CLOCK_MONOTONIC, &now)
            } while now.tv_sec < deadline.tv_sec
            return false
        }) { bodyRan.withLock { $0 = true } }
        XCTAssertTrue(made, "the body waited for the maker")
    }
}
