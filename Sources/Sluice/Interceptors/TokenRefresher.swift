import FoundationEssentials
import Synchronization

/// Refreshes a token at most once for each token that was refused (single flight): concurrent
/// callers share one running refresh, and a caller whose token was already replaced gets the
/// replacement without another refresh.
final class TokenRefresher: Sendable {
    private struct State {
        /// The refresh in progress, shared by everyone who asks while it runs.
        var running: SignalProducer<String, SluiceError>?
        /// The last refresh that succeeded: the token it replaced, and the new one.
        var last: (stale: String, fresh: String)?
        /// How many refreshes have started (for tests and diagnostics).
        var count = 0
    }

    private let refresh: @Sendable () async throws -> String
    private let state = Lock(State())

    init(_ refresh: @escaping @Sendable () async throws -> String) {
        self.refresh = refresh
    }

    /// How many refreshes have started.
    var refreshCount: Int { state.withLock { $0.count } }

    /// A token to use instead of `stale`: the one a finished refresh gave for it, the result of the
    /// running refresh, or the result of a new one.
    func token(replacing stale: String) -> SignalProducer<String, SluiceError> {
        SignalProducer { [self] observer, lifetime in
            let producer = state.withLock { s -> SignalProducer<String, SluiceError> in
                if let last = s.last, last.stale == stale { return SignalProducer(value: last.fresh) }
                if let running = s.running { return running }
                s.count += 1
                let shared = makeRefresh(replacing: stale).share(replay: 1)
                s.running = shared
                return shared
            }
            lifetime += producer.start(observer)
        }
    }

    private func makeRefresh(replacing stale: String) -> SignalProducer<String, SluiceError> {
        let refresh = self.refresh
        return SignalProducer<String, SluiceError> { () async throws(SluiceError) -> String in
            do {
                return try await refresh()
            } catch {
                throw SluiceError.wrapping(error, as: .authenticationFailed, "The credential could not be refreshed")
            }
        }
        .on(event: { [self] event in
            state.withLock { s in
                switch event {
                case .value(let fresh): s.last = (stale, fresh)
                case .failed, .completed, .interrupted: s.running = nil
                }
            }
        })
    }
}
