import Synchronization

/// A current value that can be read, set and observed: `signal` sends each change, `producer`
/// sends the current value first and then each change.
///
/// Setting is thread-safe, and observers see changes in the order they were made: the stored
/// value and the order of delivery never disagree. An observer may set the property it observes;
/// the new value is queued and delivered after the current one, never re-entrantly.
public final class MutableProperty<Value: Sendable>: Sendable {
    private let storage: Lock<Value>
    private let core = SignalCore<Value, Never>()

    /// Creates a property with an initial value.
    public init(_ initial: Value) {
        storage = Lock(initial)
    }

    /// The current value; setting it sends the new value to observers.
    public var value: Value {
        get { storage.withLock { $0 } }
        set { modify { $0 = newValue } }
    }

    /// Changes the value in place, atomically, and sends the result; returns what `action` returns.
    @discardableResult
    public func modify<R: Sendable>(_ action: (inout Value) -> R) -> R {
        let (result, mustDrain) = storage.withLock { value -> (R, Bool) in
            let result = action(&value)
            // Enqueue under the value's lock so delivery order matches the order of writes;
            // deliver after releasing it, so observers may read or set the property.
            return (result, core.enqueue(.value(value)))
        }
        if mustDrain { core.drain() }
        return result
    }

    /// Sends each change, not the current value.
    public var signal: Signal<Value, Never> {
        let core = self.core
        return Signal { core.attach($0) }
    }

    /// Sends the current value, then each change.
    public var producer: SignalProducer<Value, Never> {
        SignalProducer(serialized: { [storage = self, core] observer, lifetime in
            let (disposable, mustDrain) = storage.storage.withLock { value in
                core.attachDeferred(observer, initial: .value(value))
            }
            lifetime += disposable
            if mustDrain { core.drain() }
        })
    }

    /// A read-only view of this property.
    public var readOnly: Property<Value> { Property(self) }

    deinit {
        // Observers learn that no more changes will come.
        core.send(.completed)
    }
}
