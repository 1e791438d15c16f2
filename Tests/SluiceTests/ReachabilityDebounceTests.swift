import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// `Reachability`'s publication: debounce in virtual time, repeats skipped, failures, `whenReachable`.
@Suite struct ReachabilityDebounceTests {
    /// A `Reachability` fed by hand, on a test scheduler.
    private final class Harness: Sendable {
        let scheduler = TestScheduler()
        let reachability: Reachability
        let statuses: ReachabilityRecorder<ReachabilityStatus>
        private let input = Lock<(@Sendable (ReachabilityEvaluator.Output) -> Void)?>(nil)
        private let disposed = Lock(false)

        init(debounce: Duration = .milliseconds(200)) {
            let input = self.input
            let disposed = self.disposed
            reachability = Reachability(host: nil, debounce: debounce, scheduler: scheduler) { send in
                input.withLock { $0 = send }
                return AnyDisposable { disposed.withLock { $0 = true } }
            }
            statuses = ReachabilityRecorder(reachability.status)
        }

        func send(_ path: ReachabilityPath) {
            input.withLock { $0 }?(.path(path))
        }

        func fail(_ error: SluiceError) {
            input.withLock { $0 }?(.failed(error))
        }

        var sourceDisposed: Bool { disposed.withLock { $0 } }
    }

    private let eth0 = NetworkInterface(name: "eth0", index: 2, kind: .ethernet)
    private let eth1 = NetworkInterface(name: "eth1", index: 3, kind: .ethernet)
    private let wlan0 = NetworkInterface(name: "wlan0", index: 4, kind: .wifi)

    @Test func theFirstKnownStatusIsPublishedAtOnce() {
        let harness = Harness()
        #expect(harness.reachability.status.value == .unknown)
        harness.send(.unknown)  // still nothing known: nothing to publish
        harness.send(.reachable(through: eth0))
        #expect(harness.reachability.status.value == .reachable(via: .ethernet))
        #expect(harness.reachability.path.value.interface == eth0)
        #expect(harness.statuses.values == [.unknown, .reachable(via: .ethernet)])
    }

    @Test func firstKnownStatusWaitsForTheKernelsFirstAnswer() {
        let harness = Harness()
        let seen = Lock<[Event<ReachabilityStatus, SluiceError>]>([])
        harness.reachability.firstKnownStatus().start { event in seen.withLock { $0.append(event) } }
        harness.send(.unknown)
        #expect(seen.withLock { $0 }.isEmpty, "unknown is not an answer")
        harness.send(.reachable(through: eth0))
        let events = seen.withLock { $0 }
        #expect(events.count == 2)
        #expect(events.first?.value == .reachable(via: .ethernet))
        if case .completed = events.last {} else { Issue.record("it completes after the first known status") }
        // Once known, a later start answers at once.
        let later = Lock<ReachabilityStatus?>(nil)
        harness.reachability.firstKnownStatus().startWithValues { status in later.withLock { $0 = status } }
        #expect(later.withLock { $0 } == .reachable(via: .ethernet))
    }

    @Test func firstKnownStatusFailsWhenTheKernelCannotBeWatched() {
        let harness = Harness()
        let failure = Lock<SluiceError?>(nil)
        harness.reachability.firstKnownStatus().startWithFailed { error in failure.withLock { $0 = error } }
        harness.fail(SluiceError(.reachabilityUnavailable, "no netlink here"))
        #expect(failure.withLock { $0 }?.code == .reachabilityUnavailable)
    }

    @Test func aFlappingLinkGivesOneEventPerSettledState() {
        let harness = Harness()
        harness.send(.reachable(through: eth0))
        for _ in 0..<5 {
            harness.send(.unreachable)
            harness.scheduler.advance(by: .milliseconds(50))
            harness.send(.reachable(through: eth0))
            harness.scheduler.advance(by: .milliseconds(50))
        }
        harness.send(.unreachable)
        harness.scheduler.advance(by: .milliseconds(199))
        #expect(harness.reachability.status.value == .reachable(via: .ethernet))
        harness.scheduler.advance(by: .milliseconds(1))
        #expect(harness.reachability.status.value == .unreachable)
        harness.scheduler.advance(by: .seconds(5))
        #expect(harness.statuses.values == [.unknown, .reachable(via: .ethernet), .unreachable])
    }

    @Test func aFlapBackToTheSameStateIsNoChange() {
        let harness = Harness()
        harness.send(.reachable(through: wlan0))
        harness.send(.unreachable)
        harness.scheduler.advance(by: .milliseconds(100))
        harness.send(.reachable(through: wlan0))
        harness.scheduler.run()
        #expect(harness.statuses.values == [.unknown, .reachable(via: .wifi)])
    }

    @Test func changingInterfaceOfTheSameKindChangesThePathOnly() {
        let harness = Harness()
        let paths = ReachabilityRecorder(harness.reachability.path)
        harness.send(.reachable(through: eth0))
        harness.send(.reachable(through: eth1))
        harness.scheduler.run()
        #expect(paths.values.map(\.interface?.name) == [nil, "eth0", "eth1"])
        #expect(harness.statuses.values == [.unknown, .reachable(via: .ethernet)])
    }

    @Test func theDebounceIntervalIsConfigurable() {
        let harness = Harness(debounce: .seconds(2))
        harness.send(.unreachable)
        harness.send(.reachable(through: eth0))
        harness.scheduler.advance(by: .milliseconds(1_999))
        #expect(harness.reachability.status.value == .unreachable)
        harness.scheduler.advance(by: .milliseconds(1))
        #expect(harness.reachability.status.value == .reachable(via: .ethernet))
    }

    @Test func aFailureMakesTheStatusUnknownAndSaysWhy() {
        let harness = Harness()
        harness.send(.reachable(through: eth0))
        harness.fail(SluiceError(.reachabilityUnavailable, "socket(AF_NETLINK) failed"))
        harness.scheduler.run()
        #expect(harness.reachability.status.value == .unknown)
        #expect(harness.reachability.failure?.code == .reachabilityUnavailable)
        harness.send(.reachable(through: eth0))
        harness.scheduler.run()
        #expect(harness.reachability.failure == nil)
        #expect(
            harness.statuses.values == [.unknown, .reachable(via: .ethernet), .unknown, .reachable(via: .ethernet)])
    }

    @Test func whenReachableWaitsForTheFirstReachableStatus() {
        let harness = Harness()
        let events = Lock<[Event<ReachabilityStatus, Never>]>([])
        harness.send(.unreachable)
        let subscription = harness.reachability.whenReachable().start { event in events.withLock { $0.append(event) } }
        #expect(events.withLock { $0 }.isEmpty)
        harness.send(.reachable(through: wlan0))
        harness.scheduler.run()
        #expect(events.withLock { $0 } == [.value(.reachable(via: .wifi)), .completed])
        subscription.dispose()

        // Already reachable: at once.
        let again = Lock<[Event<ReachabilityStatus, Never>]>([])
        harness.reachability.whenReachable().start { event in again.withLock { $0.append(event) } }
        #expect(again.withLock { $0 } == [.value(.reachable(via: .wifi)), .completed])
    }

    @Test func releasingTheInstanceStopsItsSource() {
        let disposed = Lock(false)
        var reachability: Reachability? = Reachability(host: nil, debounce: .zero, scheduler: TestScheduler()) { _ in
            AnyDisposable { disposed.withLock { $0 = true } }
        }
        #expect(reachability?.status.value == .unknown)
        reachability = nil
        #expect(disposed.withLock { $0 })
    }

    @Test func anUnavailableKernelLeavesTheStatusUnknown() async {
        let monitor = NetlinkMonitor(probesSysfs: false) { () throws(SluiceError) in
            throw SluiceError(.reachabilityUnavailable, "socket(AF_NETLINK, NETLINK_ROUTE) failed: Permission denied.")
        }
        let reachability = Reachability(host: nil, monitor: monitor, debounce: .milliseconds(10), scheduler: nil)
        #expect(reachability.failure?.code == .reachabilityUnavailable)
        #expect(reachability.status.value == .unknown)
        #expect(!monitor.isRunning)
        // A loopback address is reachable without the kernel.
        let loopback = Reachability(host: "127.0.0.1", monitor: monitor, debounce: .milliseconds(10), scheduler: nil)
        #expect(loopback.status.value == .reachable(via: .loopback))
        let localhost = Reachability(host: "::1", monitor: monitor, debounce: .milliseconds(10), scheduler: nil)
        #expect(localhost.status.value == .reachable(via: .loopback))
        // And whenReachable does not fail: it waits (here: a loopback address, at once).
        #expect(await loopback.whenReachable().value == .reachable(via: .loopback))
    }
}
