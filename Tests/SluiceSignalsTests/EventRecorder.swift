import Dispatch
import Foundation
import SluiceSignals
import Synchronization

/// Records the events an observer receives, from any thread, for assertions.
final class EventRecorder<Value: Sendable, Failure: Error>: Sendable {
    private let storage = Lock<[Event<Value, Failure>]>([])
    private let done = DispatchSemaphore(value: 0)

    var observer: Observer<Value, Failure> {
        Observer { event in self.record(event) }
    }

    func record(_ event: Event<Value, Failure>) {
        storage.withLock { $0.append(event) }
        if event.isTerminating { done.signal() }
    }

    var events: [Event<Value, Failure>] { storage.withLock { $0 } }
    var values: [Value] { events.compactMap(\.value) }
    var terminal: Event<Value, Failure>? { events.last.flatMap { $0.isTerminating ? $0 : nil } }
    var terminalCount: Int { events.filter(\.isTerminating).count }

    /// Waits (bounded) for a terminal event; returns false on timeout.
    func waitForTerminal(seconds: Double = 10) -> Bool {
        if terminal != nil { return true }
        return done.wait(timeout: .now() + seconds) == .success
    }
}

/// An error type for tests.
enum TestError: Error, Equatable, AwaitableFailure {
    case boom
    case other(Int)
    case ended(StreamEnding)

    static func noValue(_ ending: StreamEnding) -> TestError { .ended(ending) }
}

/// A reference type whose deallocation tests can observe through a weak reference.
final class Canary: Sendable {}

/// A lock-guarded value for tests (atomics cannot be captured by escaping closures).
final class Locked<T: Sendable>: Sendable {
    private let storage: Lock<T>

    init(_ value: T) { storage = Lock(value) }

    var value: T {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    @discardableResult
    func withLock<R: Sendable>(_ body: (inout T) -> R) -> R { storage.withLock { body(&$0) } }
}

extension Locked where T == Int {
    /// Adds and returns the new value.
    @discardableResult
    func add(_ n: Int) -> Int {
        withLock {
            $0 += n
            return $0
        }
    }
}

extension Locked where T == Bool {
    /// Stores a new value and returns the old one.
    func exchange(_ new: Bool) -> Bool {
        withLock { old in
            defer { old = new }
            return old
        }
    }
}
