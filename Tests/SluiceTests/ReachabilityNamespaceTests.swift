import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// `Reachability` against a real kernel: each test makes its own network namespace with a veth
/// end in it, opens the monitor's socket inside (from a thread that enters the namespace), and
/// changes links, addresses and routes there with `ip`. Needs root and iproute2; CI has both.
@Suite(
    .serialized,
    .enabled(
        if: TestNetworkNamespace.isAvailable,
        "needs root and iproute2 (`ip`) to create a network namespace; run as root after `make deps`"))
struct ReachabilityNamespaceTests {
    private static let settle = Duration.milliseconds(50)

    /// Waits (at most ten seconds) until `property` has `expected`; records an issue if it never does.
    private func waitFor<Value: Equatable & Sendable>(
        _ property: Property<Value>, _ expected: Value, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await eventually("\(expected), still \(property.value)", sourceLocation: sourceLocation) {
            property.value == expected
        }
    }

    @Test func defaultRouteFollowsTheKernel() async throws {
        let namespace = try TestNetworkNamespace()
        defer { namespace.delete() }
        let monitor = namespace.makeMonitor()
        let reachability = Reachability(host: nil, monitor: monitor, debounce: Self.settle, scheduler: nil)
        let recorder = ReachabilityRecorder(reachability.status)
        let ethernet = ReachabilityStatus.reachable(via: .ethernet)

        // The veth end arrives down, without address or route.
        try await waitFor(reachability.status, .unreachable)
        #expect(reachability.failure == nil)

        try namespace.run("link", "set", namespace.interface, "up")
        try namespace.run("addr", "add", "10.77.0.2/24", "dev", namespace.interface)
        try namespace.run("route", "add", "default", "via", "10.77.0.1")
        try await waitFor(reachability.status, ethernet)
        #expect(reachability.path.value.interface?.name == namespace.interface)

        try namespace.run("addr", "del", "10.77.0.2/24", "dev", namespace.interface)
        try await waitFor(reachability.status, .unreachable)

        try namespace.run("addr", "add", "10.77.0.2/24", "dev", namespace.interface)
        try namespace.run("route", "replace", "default", "via", "10.77.0.1")
        try await waitFor(reachability.status, ethernet)

        try namespace.run("route", "del", "default")
        try await waitFor(reachability.status, .unreachable)

        try namespace.run("route", "add", "default", "via", "10.77.0.1")
        try await waitFor(reachability.status, ethernet)

        try namespace.run("link", "set", namespace.interface, "down")
        try await waitFor(reachability.status, .unreachable)

        try namespace.run("link", "set", namespace.interface, "up")
        try namespace.run("route", "replace", "default", "via", "10.77.0.1")
        try await waitFor(reachability.status, ethernet)

        // One change per step, nothing in between (the recorder may have come after the first status).
        #expect(
            Array(recorder.values.drop { $0 == .unknown }) == [
                .unreachable, ethernet, .unreachable, ethernet, .unreachable, ethernet, .unreachable, ethernet,
            ])
        #expect(monitor.socketsOpened == 1)
    }

    @Test func routeToAnAddressFollowsTheKernel() async throws {
        let namespace = try TestNetworkNamespace()
        defer { namespace.delete() }
        let monitor = namespace.makeMonitor()
        func watch(_ host: String) -> Reachability {
            Reachability(host: host, monitor: monitor, debounce: Self.settle, scheduler: nil)
        }
        let neighbour = watch("10.77.0.9")
        let faraway = watch("192.0.2.1")
        let ownAddress = watch("10.77.0.2")
        let loopback = watch("127.0.0.1")
        let ethernet = ReachabilityStatus.reachable(via: .ethernet)

        try await waitFor(neighbour.status, .unreachable)
        try await waitFor(faraway.status, .unreachable)
        #expect(loopback.status.value == .reachable(via: .loopback))

        // An address on the link: the neighbour has a route (the connected one), the far host not yet.
        try namespace.run("link", "set", namespace.interface, "up")
        try namespace.run("addr", "add", "10.77.0.2/24", "dev", namespace.interface)
        try await waitFor(neighbour.status, ethernet)
        #expect(neighbour.path.value.interface?.name == namespace.interface)
        try await waitFor(ownAddress.status, .reachable(via: .loopback))
        #expect(faraway.status.value == .unreachable)

        try namespace.run("route", "add", "default", "via", "10.77.0.1")
        try await waitFor(faraway.status, ethernet)

        // A more specific route that refuses: the kernel's answer wins over the default route.
        try namespace.run("route", "add", "unreachable", "192.0.2.0/24")
        try await waitFor(faraway.status, .unreachable)
        #expect(neighbour.status.value == ethernet)

        try namespace.run("link", "set", namespace.interface, "down")
        try await waitFor(neighbour.status, .unreachable)
        #expect(monitor.socketsOpened == 1)
    }

    @Test func oneSocketServesEveryObserverAndClosesWithTheLast() async throws {
        let namespace = try TestNetworkNamespace()
        defer { namespace.delete() }
        let monitor = namespace.makeMonitor()
        var watchers: [Reachability] = []
        // Made from several threads at once.
        await withTaskGroup(of: Reachability.self) { group in
            for index in 0..<8 {
                group.addTask {
                    Reachability(
                        host: index.isMultiple(of: 2) ? nil : "10.77.0.9", monitor: monitor,
                        debounce: Self.settle, scheduler: nil)
                }
            }
            for await watcher in group { watchers.append(watcher) }
        }
        for watcher in watchers { try await waitFor(watcher.status, .unreachable) }
        #expect(monitor.socketsOpened == 1)
        #expect(monitor.isRunning)

        watchers.removeAll()
        try await eventually("the monitor stops with its last observer") { !monitor.isRunning }

        // A new observer opens a new socket, and sees the current state at once.
        try namespace.run("link", "set", namespace.interface, "up")
        try namespace.run("addr", "add", "10.77.0.2/24", "dev", namespace.interface)
        try namespace.run("route", "add", "default", "via", "10.77.0.1")
        let late = Reachability(host: nil, monitor: monitor, debounce: Self.settle, scheduler: nil)
        try await waitFor(late.status, .reachable(via: .ethernet))
        #expect(monitor.socketsOpened == 2)
    }
}

/// The shared instance, on the machine's own network: whatever the network is, the first look at
/// the kernel's tables ends `unknown` (or says why it could not).
@Suite struct ReachabilitySharedTests {
    @Test func theSharedInstanceReadsTheKernel() async throws {
        let shared = Reachability.shared
        try await eventually("a status or a failure") { shared.status.value != .unknown || shared.failure != nil }
        if let failure = shared.failure {
            #expect(failure.code == .reachabilityUnavailable)
        }
    }
}
