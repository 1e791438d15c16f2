/// A read-only current value and its changes.
///
/// `value` is the current value, `signal` sends each change, and `producer` sends the current
/// value first and then each change. A property made from a `MutableProperty` follows it.
public final class Property<Value: Sendable>: Sendable {
    private let getValue: @Sendable () -> Value
    /// Sends each change, not the current value.
    public let signal: Signal<Value, Never>
    /// Sends the current value, then each change.
    public let producer: SignalProducer<Value, Never>

    /// The current value.
    public var value: Value { getValue() }

    /// A property that follows a mutable property (and keeps it alive).
    public init(_ source: MutableProperty<Value>) {
        getValue = { source.value }
        signal = source.signal
        producer = source.producer
    }

    /// A property whose value never changes.
    public init(value: Value) {
        getValue = { value }
        signal = .never
        producer = SignalProducer(value: value)
    }

    /// A property that starts at `initial` and then takes each value `signal` sends.
    public convenience init(initial: Value, then signal: Signal<Value, Never>) {
        let backing = MutableProperty(initial)
        // The subscription lives as long as the source signal does; it holds the backing weakly.
        signal.observeValues { [weak backing] value in backing?.value = value }
        self.init(backing)
    }

    /// A property whose value is read from `current` when asked for, and whose changes are the
    /// values `changes` sends: for a value that costs something to make, made only when read or
    /// watched. The producer sends `current()` first, then attaches to `changes`: a change made
    /// between the two reaches it only if `changes` sends one after it attached, so a source whose
    /// changes are not sent one by one (a summary sent now and then) sends one when an observer
    /// attaches.
    public convenience init(current: @escaping @Sendable () -> Value, changes: Signal<Value, Never>) {
        self.init(
            getValue: current, signal: changes,
            producer: SignalProducer<Value, Never>(
                { (observer: Observer<Value, Never>, lifetime: Lifetime) in
                    observer.send(value: current())
                    lifetime += changes.observe(observer)
                }))
    }

    /// A property whose value is `transform` of this one's.
    public func map<U: Sendable>(_ transform: @escaping @Sendable (Value) -> U) -> Property<U> {
        Property<U>(
            getValue: { transform(self.value) }, signal: signal.map(transform), producer: producer.map(transform))
    }

    private init(
        getValue: @escaping @Sendable () -> Value,
        signal: Signal<Value, Never>,
        producer: SignalProducer<Value, Never>
    ) {
        self.getValue = getValue
        self.signal = signal
        self.producer = producer
    }
}
