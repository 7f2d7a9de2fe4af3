import Synchronization

/// Something a library did or saw while it worked, for its caller to tell: the command
/// says it on stderr, a test asserts on it. No library writes to stdout or stderr; each
/// event is a value whose properties say what happened, and whose description is the
/// sentence a person reads.
public protocol Event: Sendable, CustomStringConvertible {}

/// Where events go: the sink the caller gives for a scope,
///
///     try await Events.$sink.withValue({ event in ... }) { try await pipeline.publish() }
///
/// receives every event a library sends within it, from any task the scope starts;
/// outside any scope, events go nowhere.
public enum Events {
    @TaskLocal public static var sink: (@Sendable (any Event) -> Void)?

    public static func send(_ event: any Event) { sink?(event) }

    /// The events `body` sends, in order, beside what it returns (for tests and for callers
    /// that report after the fact).
    public static func collect<T>(_ body: () async throws -> T) async rethrows -> (T, [any Event]) {
        let collected = Collected()
        let value = try await $sink.withValue(collected.append, operation: body)
        return (value, collected.events)
    }

    public static func collect<T>(_ body: () throws -> T) rethrows -> (T, [any Event]) {
        let collected = Collected()
        let value = try $sink.withValue(collected.append, operation: body)
        return (value, collected.events)
    }
}

/// A value kept as it is but worth a look (an unknown code, a hand weight on a disabled station).
public struct Warning: Event, Equatable {
    public var diagnostic: Diagnostic
    public init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
    public var description: String { "warning: \(diagnostic)" }
}

private final class Collected: Sendable {
    let list = Mutex<[any Event]>([])
    @Sendable func append(_ event: any Event) { list.withLock { $0.append(event) } }
    var events: [any Event] { list.withLock { $0 } }
}
