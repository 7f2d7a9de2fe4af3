import Glibc
import Synchronization

/// A value a child task makes while its parent goes on, awaited only where it is needed:
/// a publish's lint runs on the second core beside priority and the bundle, and the build
/// waits for its count only at the summary. The maker is a child of `beside`'s scope, so it
/// never outlives the run, and its failure is still the run's.
package final class Pending<Value: Sendable>: Sendable {
    private let state = Mutex<(result: Result<Value, any Error>?, waiting: [CheckedContinuation<Value, any Error>])>((nil, []))

    private init() {}

    package var value: Value {
        get async throws {
            try await withCheckedThrowingContinuation { waiter in
                let result = state.withLock { state in
                    if state.result == nil { state.waiting.append(waiter) }
                    return state.result
                }
                if let result { waiter.resume(with: result) }
            }
        }
    }

    private func make(_ maker: @Sendable () async throws -> Value) async {
        let result: Result<Value, any Error>
        do { result = .success(try await maker()) } catch { result = .failure(error) }
        settle(result)
    }

    private func settle(_ result: Result<Value, any Error>) {
        let waiting = state.withLock { state in
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for waiter in waiting { waiter.resume(with: result) }
    }

    /// `body`, with `maker` running beside it as a child task. Both finish before it returns;
    /// `maker`'s error comes first, as it would have when run before `body`.
    package static func beside<T>(_ maker: @escaping @Sendable () async throws -> Value,
                                  _ body: (Pending<Value>) async throws -> T) async throws -> T {
        let pending = Pending<Value>()
        async let made: Void = pending.make(maker)
        let result: Result<T, any Error>
        do { result = .success(try await body(pending)) } catch { result = .failure(error) }
        await made
        _ = try await pending.value
        return try result.get()
    }

    /// `body`, with `maker` running beside it on a thread of its own: the concurrency
    /// runtime keeps one thread per core, and a deflate of seconds would hold one of them
    /// while the work beside it waits for it. Both finish before it returns; `maker`'s
    /// error comes first. (Task-local values, such as the events' sink, stay with `body`.)
    package static func onThread<T>(_ maker: @escaping @Sendable () throws -> Value,
                                    _ body: (Pending<Value>) async throws -> T) async throws -> T {
        let pending = Pending<Value>()
        ThreadJob.start { pending.settle(Result { try maker() }) }
        let result: Result<T, any Error>
        do { result = .success(try await body(pending)) } catch { result = .failure(error) }
        _ = try await pending.value
        return try result.get()
    }
}

extension Pending {
    /// `body`, with `maker` running beside it on a thread of its own, for work that is not
    /// async (ingest's assemble, which tests call as it is): both finish before it returns,
    /// and `maker`'s error comes first.
    package static func onThread<T>(_ maker: @escaping @Sendable () throws -> Value, _ body: () throws -> T) throws -> (Value, T) {
        let pending = Pending<Value>()
        let thread = ThreadJob.start(joinable: true) { pending.settle(Result { try maker() }) }
        let result = Result { try body() }
        if let thread { pthread_join(thread, nil) }
        let made = try pending.state.withLock { $0.result! }.get()
        return (made, try result.get())
    }
}

/// A closure run on a thread of its own (`Pending.onThread`).
private final class ThreadJob: Sendable {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }

    /// Runs `run` on a new thread (here, when none can be made: then nil); a joinable one is
    /// the caller's to join.
    @discardableResult
    static func start(joinable: Bool = false, _ run: @escaping @Sendable () -> Void) -> pthread_t? {
        let job = Unmanaged.passRetained(ThreadJob(run)).toOpaque()
        var thread: pthread_t = 0
        guard pthread_create(&thread, nil, runJob, job) == 0 else {
            _ = runJob(job)
            return nil
        }
        if !joinable { pthread_detach(thread) }
        return joinable ? thread : nil
    }
}

private func runJob(_ job: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    job.map { Unmanaged<ThreadJob>.fromOpaque($0).takeRetainedValue().run() }
    return nil
}
