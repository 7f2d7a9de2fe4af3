import Synchronization

/// Something a library did or saw while it worked, for its caller to tell: the command
/// says it on stderr, a test asserts on it. No library writes to stdout or stderr; each
/// event is a value whose properties say what happened, and whose description is the
/// sentence a person reads.
package protocol Event: Sendable, CustomStringConvertible {}

/// Where events go: the sink the caller gives for a scope,
///
///     try await Events.sending(to: { event in ... }) { try await pipeline.publish() }
///
/// receives every event a library sends within it, from any task the scope starts;
/// outside any scope, events go nowhere.
package enum Events {
    // The closure is bound inside a struct: Swift 6.3's optimizer passes a bad type for an
    // optional closure bound as a task-local, and the release binary crashed on its first
    // event (ShippedBinaryTests runs that binary through make's main job, plan and deploy).
    private struct Sink: Sendable { let receive: @Sendable (any Event) -> Void }
    @TaskLocal private static var current: Sink?

    package static func send(_ event: any Event) { current?.receive(event) }

    package static func sending<T>(to sink: @escaping @Sendable (any Event) -> Void,
                                  _ body: () async throws -> T) async rethrows -> T {
        try await $current.withValue(Sink(receive: sink), operation: body)
    }

    package static func sending<T>(to sink: @escaping @Sendable (any Event) -> Void,
                                  _ body: () throws -> T) rethrows -> T {
        try $current.withValue(Sink(receive: sink), operation: body)
    }

    /// The events `body` sends, in order, beside what it returns (for tests and for callers
    /// that report after the fact).
    package static func collect<T>(_ body: () async throws -> T) async rethrows -> (T, [any Event]) {
        let collected = Collected()
        let value = try await sending(to: collected.append, body)
        return (value, collected.events)
    }

    package static func collect<T>(_ body: () throws -> T) rethrows -> (T, [any Event]) {
        let collected = Collected()
        let value = try sending(to: collected.append, body)
        return (value, collected.events)
    }
}

/// A value kept as it is but worth a look (an unknown code, a hand weight on a disabled station).
package struct Warning: Event, Equatable {
    package var diagnostic: Diagnostic
    package init(_ diagnostic: Diagnostic) { self.diagnostic = diagnostic }
    package var description: String { "warning: \(diagnostic)" }
}

private final class Collected: Sendable {
    let list = Mutex<[any Event]>([])
    @Sendable func append(_ event: any Event) { list.withLock { $0.append(event) } }
    var events: [any Event] { list.withLock { $0 } }
}
