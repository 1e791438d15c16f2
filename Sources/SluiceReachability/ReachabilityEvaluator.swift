import Dispatch
import Sluice

/// Works out the path to one target from the monitor's updates and sends every result, repeats
/// included (`Reachability` debounces and drops repeats).
///
/// For the default route the snapshot is enough. For a host, each snapshot makes it ask the kernel
/// for its route to each of the host's addresses (as `ip route get` does); the answers of an older
/// snapshot are ignored. A name is resolved with `getaddrinfo` on a background queue, once; after
/// a failure (no network often means no DNS either) it is tried again on the next change.
final class ReachabilityEvaluator: Sendable {
    /// What to watch.
    enum Target: Sendable, Equatable {
        /// The default route: whether the internet can be reached at all.
        case defaultRoute
        /// A host name or an address literal.
        case host(String)
    }

    /// What the evaluator sends.
    enum Output: Sendable {
        /// A freshly worked-out path.
        case path(ReachabilityPath)
        /// The monitor failed; the status cannot be known.
        case failed(SluiceError)
    }

    /// Resolves a host name; `HostResolver.resolve` except in tests.
    typealias Resolve = @Sendable (String) -> Result<[IPAddress], SluiceError>

    /// How many of a host's addresses are asked about (the resolver's favourites come first).
    static let maximumAddresses = 4

    private struct State {
        var snapshot: NetworkSnapshot?
        var addresses: [IPAddress]?
        var isResolving = false
        var generation: UInt64 = 0
        var answers: [ReachabilityPath?] = []
    }

    private let target: Target
    private let monitor: NetlinkMonitor
    private let resolve: Resolve
    private let send: @Sendable (Output) -> Void
    private let state = Lock(State())

    /// An evaluator of `target` that reads `monitor` and sends its results to `send`.
    init(
        target: Target, monitor: NetlinkMonitor, resolve: @escaping Resolve = HostResolver.resolve,
        send: @escaping @Sendable (Output) -> Void
    ) {
        self.target = target
        self.monitor = monitor
        self.resolve = resolve
        self.send = send
    }

    /// Starts watching; dispose the result to stop.
    func start() -> any Disposable {
        if case .host(let host) = target, let literal = HostResolver.numericAddress(host) {
            // A loopback literal needs neither the kernel nor a resolver.
            if literal.isLoopback {
                send(.path(NetworkSnapshot.loopbackPath()))
                return AnyDisposable()
            }
            state.withLock { $0.addresses = [literal] }
        }
        return monitor.subscribe { [weak self] update in self?.handle(update) }
    }

    private func handle(_ update: NetlinkMonitor.Update) {
        switch update {
        case .failed(let error):
            send(.failed(error))
        case .snapshot(let snapshot):
            switch target {
            case .defaultRoute:
                send(.path(snapshot.defaultRoutePath()))
            case .host:
                state.withLock { $0.snapshot = snapshot }
                evaluate()
            }
        }
    }

    /// Asks about each address of the host with the latest snapshot, or resolves the host first.
    private func evaluate() {
        enum Step {
            case wait
            case resolve(String, unreachableMeanwhile: Bool)
            case answer(ReachabilityPath)
            case lookUp([IPAddress], generation: UInt64)
        }
        let step = state.withLock { s -> Step in
            guard s.snapshot != nil, case .host(let host) = target else { return .wait }
            guard let addresses = s.addresses, !addresses.isEmpty else {
                if s.isResolving { return .wait }
                s.isResolving = true
                return .resolve(host, unreachableMeanwhile: s.addresses != nil)
            }
            if addresses.allSatisfy(\.isLoopback) { return .answer(NetworkSnapshot.loopbackPath()) }
            s.generation += 1
            s.answers = Array(repeating: nil, count: addresses.count)
            return .lookUp(addresses, generation: s.generation)
        }
        switch step {
        case .wait:
            break
        case .answer(let path):
            send(.path(path))
        case .resolve(let host, let unreachableMeanwhile):
            // An earlier failure stands while the new attempt runs.
            if unreachableMeanwhile { send(.path(.unreachable)) }
            DispatchQueue.global().async { [self] in resolved(resolve(host)) }
        case .lookUp(let addresses, let generation):
            for (index, address) in addresses.enumerated() {
                if address.isLoopback {
                    answer(NetworkSnapshot.loopbackPath(), at: index, generation: generation)
                    continue
                }
                monitor.lookUpRoute(to: address) { [weak self] lookup in
                    guard let self else { return }
                    let path = state.withLock { $0.snapshot }?.path(for: lookup, to: address) ?? .unknown
                    answer(path, at: index, generation: generation)
                }
            }
        }
    }

    private func resolved(_ result: Result<[IPAddress], SluiceError>) {
        let addresses = (try? result.get()) ?? []
        state.withLock { s in
            s.isResolving = false
            s.addresses = Array(addresses.prefix(Self.maximumAddresses))
        }
        if addresses.isEmpty {
            send(.path(.unreachable))
        } else {
            evaluate()
        }
    }

    /// Records one address's path; when all are in, sends the first reachable one (in the
    /// resolver's order), else `unreachable` (or `unknown` if the monitor could not be asked).
    private func answer(_ path: ReachabilityPath, at index: Int, generation: UInt64) {
        let result = state.withLock { s -> ReachabilityPath? in
            guard s.generation == generation, s.answers.indices.contains(index) else { return nil }
            s.answers[index] = path
            let paths = s.answers.compactMap { $0 }
            guard paths.count == s.answers.count else { return nil }
            if let reachable = paths.first(where: \.status.isReachable) { return reachable }
            return paths.contains { $0.status == .unknown } ? .unknown : .unreachable
        }
        if let result { send(.path(result)) }
    }
}
