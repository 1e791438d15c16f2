import Synchronization

/// Holds one inner disposable at a time: setting a new one disposes the previous one.
///
/// Once the serial disposable is disposed, any inner disposable set later is disposed at once.
public final class SerialDisposable: Disposable {
    private struct State {
        var inner: (any Disposable)?
        var isDisposed = false
    }

    private let state = Lock(State())

    /// Creates a serial disposable, optionally with a first inner disposable.
    public init(_ inner: (any Disposable)? = nil) {
        state.withLock { $0.inner = inner }
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool { state.withLock { $0.isDisposed } }

    /// The current inner disposable; setting it disposes the one it replaces.
    public var inner: (any Disposable)? {
        get { state.withLock { $0.inner } }
        set {
            let (old, disposeNew) = state.withLock { s -> ((any Disposable)?, Bool) in
                if s.isDisposed { return (nil, true) }
                let old = s.inner
                s.inner = newValue
                return (old, false)
            }
            old?.dispose()
            if disposeNew { newValue?.dispose() }
        }
    }

    /// Disposes the current inner disposable, and every one set after this call.
    public func dispose() {
        let old = state.withLock { s -> (any Disposable)? in
            if s.isDisposed { return nil }
            s.isDisposed = true
            defer { s.inner = nil }
            return s.inner
        }
        old?.dispose()
    }
}
