import Metrics
import Sluice
import Synchronization

/// The counters and timers of each host, made once per host and factory and then reused: a
/// backend's factory may register, allocate or lock for every instrument it makes, and a request
/// should not pay for that.
final class HostInstruments: Sendable {
    private struct Key: Hashable {
        let label: String
        let host: String
        let type: String?
        let factory: ObjectIdentifier?
    }

    private let counters = Lock<[Key: Counter]>([:])
    private let timers = Lock<[Key: Timer]>([:])

    func requests(host: String, factory: any MetricsFactory) -> Counter {
        counter("sluice.requests", host: host, type: nil, factory: factory)
    }

    func errors(host: String, type: String, factory: any MetricsFactory) -> Counter {
        counter("sluice.errors", host: host, type: type, factory: factory)
    }

    func bytesSent(host: String, factory: any MetricsFactory) -> Counter {
        counter("sluice.bytes.sent", host: host, type: nil, factory: factory)
    }

    func bytesReceived(host: String, factory: any MetricsFactory) -> Counter {
        counter("sluice.bytes.received", host: host, type: nil, factory: factory)
    }

    func duration(host: String, factory: any MetricsFactory) -> Timer {
        let key = Key(label: "sluice.request.duration", host: host, type: nil, factory: Self.identity(of: factory))
        return timers.withLock { timers in
            if let timer = timers[key] { return timer }
            let timer = Timer(label: key.label, dimensions: Self.dimensions(key), factory: factory)
            timers[key] = timer
            return timer
        }
    }

    private func counter(_ label: String, host: String, type: String?, factory: any MetricsFactory) -> Counter {
        let key = Key(label: label, host: host, type: type, factory: Self.identity(of: factory))
        return counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(label: label, dimensions: Self.dimensions(key), factory: factory)
            counters[key] = counter
            return counter
        }
    }

    private static func dimensions(_ key: Key) -> [(String, String)] {
        var dimensions = [("server.address", key.host)]
        if let type = key.type { dimensions.append(("error.type", type)) }
        return dimensions
    }

    /// A factory that is an object is told apart by identity (a test's, then the bootstrapped
    /// one): each gets instruments of its own.
    private static func identity(of factory: any MetricsFactory) -> ObjectIdentifier? {
        type(of: factory) is AnyClass ? ObjectIdentifier(factory as AnyObject) : nil
    }
}
