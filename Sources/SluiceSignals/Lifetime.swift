/// The lifetime of a piece of work or of an owner object: it ends exactly once, and everything
/// attached to it is disposed then.
///
/// A `SignalProducer`'s start handler receives the lifetime of its subscription: attach the
/// cancellation of the work to it (`lifetime += disposable` or `lifetime.observeEnded { … }`).
/// A `Lifetime` is a small value that refers to shared state: copies observe the same lifetime.
public struct Lifetime: Sendable {
    @usableFromInline
    let disposables: CompositeDisposable

    /// Creates a lifetime that ends when `disposables` is disposed.
    @inlinable
    init(_ disposables: CompositeDisposable) {
        self.disposables = disposables
    }

    /// Whether the lifetime has ended.
    @inlinable
    public var hasEnded: Bool { disposables.isDisposed }

    /// Runs `action` when the lifetime ends (at once if it already has).
    ///
    /// `action` is taken over (`consuming`): a closure made for the call is kept without a retain.
    @inlinable
    public func observeEnded(_ action: consuming @escaping @Sendable () -> Void) {
        disposables.insert(action: consume action)
    }

    /// Disposes `disposable` when the lifetime ends (at once if it already has).
    @inlinable
    public static func += (lhs: Lifetime, rhs: (any Disposable)?) {
        lhs.disposables.insert(rhs)
    }

    /// A signal that completes when the lifetime ends (at once, for an observer that comes after
    /// the end): bind work to an owner's lifetime with `take(during:)`, or observe it.
    public var ended: Signal<(), Never> {
        let disposables = self.disposables
        return Signal(attach: { observer in
            disposables.add { observer.sendCompleted() }
        })
    }

    /// A new lifetime and the token that ends it: the lifetime ends when the token is
    /// deinitialized or disposed. Keep the token in the owner object.
    public static func make() -> (lifetime: Lifetime, token: Token) {
        let token = Token()
        return (Lifetime(token.disposables), token)
    }

    /// A lifetime that has already ended.
    public static var empty: Lifetime {
        let composite = CompositeDisposable()
        composite.dispose()
        return Lifetime(composite)
    }

    /// Ends a `Lifetime` when it is disposed or deinitialized.
    public final class Token: Sendable {
        let disposables = CompositeDisposable()

        /// Creates a token.
        public init() {}

        /// Ends the lifetime now.
        public func dispose() { disposables.dispose() }

        deinit { disposables.dispose() }
    }
}
