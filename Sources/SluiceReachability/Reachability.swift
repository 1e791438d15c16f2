import Sluice

/// Whether the network, or one host, can be reached, kept up to date from the Linux kernel's own
/// tables of links, addresses and routes (through a netlink socket).
///
///     Reachability.shared.status.producer.startWithValues { status in print(status) }
///     // unknown, reachable(via: wifi), unreachable, …
///
///     let api = Reachability(host: "api.example.com")
///     await api.whenReachable().value  // waits until a route to the host is usable
///
/// Without a host, `status` follows the default route: it is `reachable` when the best default
/// route of the main table leads through an interface that is up, has a carrier and an address.
/// With a host (a name or an address literal), it follows the kernel's answer to "which route
/// would you use to send there?", asked again after every change; loopback addresses are always
/// reachable. Status says that packets have somewhere to go, not that the far end will answer.
///
/// Changes settle for `debounce` (on `scheduler`) before they are published, so a flapping link
/// gives one change per settled state; the first known status is published at once, and repeats
/// never are. Every instance in the process shares one netlink socket and one reader thread,
/// opened with the first instance and closed when the last one is released. Instances can be
/// made and released on any thread. Where netlink is not available (a sandbox), the status stays
/// `unknown` and `failure` says why.
public final class Reachability: Sendable {
    /// The reachability of the default route: whether the internet can be reached at all.
    public static let shared = Reachability()

    /// The host this instance watches, or nil for the default route.
    public let host: String?

    /// Whether and how the target can be reached; starts `unknown`.
    public let status: Property<ReachabilityStatus>

    /// The status together with the interface it goes through; starts `unknown`.
    public let path: Property<ReachabilityPath>

    /// Why the status is `unknown`, if the kernel could not be watched.
    public var failure: SluiceError? { failureStore.value }

    private let failureStore = MutableProperty<SluiceError?>(nil)
    private let subscription: any Disposable

    /// Watches the default route, or `host` (a name or an IP address), publishing changes once they
    /// have been stable for `debounce`, on `scheduler` (by default a serial queue of its own).
    public convenience init(
        host: String? = nil, debounce: Duration = .milliseconds(200), scheduler: (any DateScheduler)? = nil
    ) {
        self.init(host: host, monitor: .shared, debounce: debounce, scheduler: scheduler)
    }

    /// Watches through `monitor` (tests give one whose socket lives in their own network namespace).
    convenience init(host: String?, monitor: NetlinkMonitor, debounce: Duration, scheduler: (any DateScheduler)?) {
        self.init(host: host, debounce: debounce, scheduler: scheduler) { send in
            let evaluator = ReachabilityEvaluator(
                target: host.map { .host($0) } ?? .defaultRoute, monitor: monitor, send: send)
            let watching = evaluator.start()
            // The disposable keeps the evaluator alive until it is disposed.
            return AnyDisposable { withExtendedLifetime(evaluator) { watching.dispose() } }
        }
    }

    /// Watches what `source` sends: it is started once, with the function to send results into,
    /// and its result is disposed with this instance (tests send paths by hand).
    init(
        host: String?, debounce: Duration, scheduler: (any DateScheduler)?,
        source: (@escaping @Sendable (ReachabilityEvaluator.Output) -> Void) -> any Disposable
    ) {
        self.host = host
        let scheduler = scheduler ?? QueueScheduler(name: "sluice.reachability")
        let store = MutableProperty(ReachabilityPath.unknown)
        path = Property(store)
        status = Property(initial: .unknown, then: store.signal.map(\.status).skipRepeats())

        let (raw, input) = Signal<ReachabilityPath, Never>.pipe()
        let distinct = raw.skipRepeats()
        let isUnknown: @Sendable (ReachabilityPath) -> Bool = { $0.status == .unknown }
        // The first known path goes out at once: there is nothing to flap from yet.
        let first = distinct.filter { !isUnknown($0) }.take(first: 1)
        let later = distinct.skip(while: isUnknown).skip(first: 1).debounce(debounce, on: scheduler)
        Signal.merge(first, later).skipRepeats().observeValues { store.value = $0 }

        let failureStore = self.failureStore
        subscription = source { output in
            switch output {
            case .path(let path):
                failureStore.value = nil
                input.send(value: path)
            case .failed(let error):
                failureStore.value = error
                input.send(value: .unknown)
            }
        }
    }

    /// A producer that sends the first reachable status (at once if the target is reachable now)
    /// and completes; it keeps this instance watching until then. Never fails: it waits.
    public func whenReachable() -> SignalProducer<ReachabilityStatus, Never> {
        SignalProducer { observer, lifetime in
            lifetime += self.status.producer.filter(\.isReachable).take(first: 1).start(observer)
            // Keeps this instance, and so the watching, alive until the subscription ends.
            lifetime.observeEnded { withExtendedLifetime(self) {} }
        }
    }

    /// A producer that sends the first known status (at once if there is one) and completes: the
    /// way to wait for the kernel's first answer instead of polling `status` while it is
    /// `unknown`. It fails with `.reachabilityUnavailable` when the kernel cannot be watched (a
    /// sandbox without netlink), instead of waiting forever; it keeps this instance watching
    /// until it ends.
    ///
    ///     let status = try await Reachability.shared.firstKnownStatus().timeout(after: .seconds(2)).value
    public func firstKnownStatus() -> SignalProducer<ReachabilityStatus, SluiceError> {
        SignalProducer { observer, lifetime in
            lifetime += self.status.producer.startWithValues { status in
                guard status != .unknown else { return }
                observer.send(value: status)
                observer.sendCompleted()
            }
            lifetime += self.failureStore.producer.startWithValues { failure in
                if let failure { observer.send(error: failure) }
            }
            lifetime.observeEnded { withExtendedLifetime(self) {} }
        }
    }

    deinit {
        subscription.dispose()
    }
}
