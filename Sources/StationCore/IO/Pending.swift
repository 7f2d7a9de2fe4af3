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
}
