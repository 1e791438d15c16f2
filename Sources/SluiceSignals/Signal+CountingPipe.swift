import Synchronization

/// How many observers a counting pipe's signal has (see `Signal.countingPipe()`).
public final class ObserverCount: Sendable {
    private let count = Atomic<Int>(0)

    /// Creates a count of zero.
    public init() {}

    /// The number of observations not yet disposed; a hint, as observers come and go concurrently.
    public var value: Int { count.load(ordering: .relaxed) }

    /// Whether anyone observes.
    public var isObserved: Bool { value > 0 }

    @usableFromInline
    func add(_ delta: Int) { count.wrappingAdd(delta, ordering: .relaxed) }
}

extension Signal {
    /// A pipe whose signal counts its observers, so that whoever sends into it can skip building
    /// events nobody watches. Disposing an observation takes it off the count.
    ///
    /// Inlinable, so that sending into the pipe runs code specialized for its types: the generic
    /// send looks up type metadata for every event.
    @inlinable
    public static func countingPipe() -> (output: Signal, input: Observer<Value, Failure>, observers: ObserverCount) {
        let core = SignalCore<Value, Failure>()
        let input = Observer<Value, Failure>(core.send)
        let observers = ObserverCount()
        let output = Signal { observer in
            observers.add(1)
            let detach = core.attach(observer)
            return AnyDisposable {
                observers.add(-1)
                detach?.dispose()
            }
        }
        return (output, input, observers)
    }
}
