import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The snapshot, its evaluation and the monitor's state machine, fed with captured kernel messages.
@Suite struct ReachabilityStateMachineTests {
    private let noSysfs: NetworkSnapshot.WirelessProbe = { _ in false }

    private func messages(_ datagrams: [UInt8]...) throws -> [NetlinkMessage] {
        try datagrams.flatMap { try NetlinkParser.parse($0) }
    }

    private func snapshot(_ datagrams: [UInt8]...) throws -> NetworkSnapshot {
        var snapshot = NetworkSnapshot()
        for datagram in datagrams {
            for message in try NetlinkParser.parse(datagram) { snapshot.apply(message, isWireless: noSysfs) }
        }
        return snapshot
    }

    private let veth0 = NetworkInterface(name: "veth0", index: 5, kind: .ethernet)

    @Test func defaultRouteFollowsLinkAddressAndRoute() throws {
        var state = try snapshot(CapturedNetlink.linkDump)
        #expect(state.defaultRoutePath() == .unreachable)
        let steps: [([UInt8], ReachabilityPath)] = [
            (CapturedNetlink.linkUp, .unreachable),  // up, but no address or route
            (CapturedNetlink.addressAdded, .unreachable),
            (CapturedNetlink.connectedRouteAdded, .unreachable),  // not a default route
            (CapturedNetlink.localRouteAdded, .unreachable),  // local table: ignored
            (CapturedNetlink.defaultRouteAdded, .reachable(through: veth0)),
            (CapturedNetlink.defaultRouteDeleted, .unreachable),
            (CapturedNetlink.defaultRouteAdded, .reachable(through: veth0)),
            (CapturedNetlink.linkDown, .unreachable),
            (CapturedNetlink.linkUp, .unreachable),  // the kernel flushed the IPv4 routes: so did we
        ]
        for (datagram, expected) in steps {
            for message in try NetlinkParser.parse(datagram) { state.apply(message, isWireless: noSysfs) }
            #expect(state.defaultRoutePath() == expected)
        }
        #expect(state.routes.isEmpty)
        #expect(state.addresses.count == 1)  // IPv4 addresses survive a link going down
    }

    @Test func aDefaultRouteNeedsAnAddressOnItsInterface() throws {
        var state = try snapshot(CapturedNetlink.linkDump, CapturedNetlink.linkUp, CapturedNetlink.defaultRouteAdded)
        #expect(state.defaultRoutePath() == .unreachable)
        for message in try NetlinkParser.parse(CapturedNetlink.addressAdded) {
            state.apply(message, isWireless: noSysfs)
        }
        #expect(state.defaultRoutePath() == .reachable(through: veth0))
        var removal = try #require(try NetlinkParser.parse(CapturedNetlink.addressAdded).first)
        removal.type = Netlink.MessageType.deleteAddress
        let changed = state.apply(removal, isWireless: noSysfs)
        #expect(changed)
        #expect(state.defaultRoutePath() == .unreachable)
    }

    @Test func deletingALinkForgetsItsAddressesAndRoutes() throws {
        var state = try snapshot(
            CapturedNetlink.linkDump, CapturedNetlink.linkUp, CapturedNetlink.addressAdded,
            CapturedNetlink.defaultRouteAdded)
        var deletion = try #require(try NetlinkParser.parse(CapturedNetlink.linkUp).first)
        deletion.type = Netlink.MessageType.deleteLink
        state.apply(deletion, isWireless: noSysfs)
        #expect(state.links[5] == nil && state.addresses.isEmpty && state.routes.isEmpty)
        #expect(state.defaultRoutePath() == .unreachable)
    }

    @Test func routeLookupsBecomePaths() throws {
        let state = try snapshot(CapturedNetlink.linkDump, CapturedNetlink.linkUp, CapturedNetlink.addressAdded)
        func lookup(_ datagram: [UInt8]) throws -> RouteLookup {
            guard case .route(let route) = try #require(try NetlinkParser.parse(datagram).first).payload else {
                return .unavailable
            }
            return .route(route)
        }
        let nearby = IPAddress(10, 77, 0, 9)
        #expect(state.path(for: try lookup(CapturedNetlink.lookupOnLink), to: nearby) == .reachable(through: veth0))
        #expect(
            state.path(for: try lookup(CapturedNetlink.lookupThroughGateway), to: IPAddress(192, 0, 2, 1))
                == .reachable(through: veth0))
        let own = state.path(for: try lookup(CapturedNetlink.lookupLocal), to: IPAddress(10, 77, 0, 2))
        #expect(own.status == .reachable(via: .loopback) && own.interface?.name == "lo")
        #expect(state.path(for: .failed(code: -101), to: nearby) == .unreachable)
        #expect(state.path(for: .unavailable, to: nearby) == .unknown)
        // The same answer while the link is down: the route exists, but nothing can be sent.
        let down = try snapshot(CapturedNetlink.linkDump, CapturedNetlink.addressAdded)
        #expect(down.path(for: try lookup(CapturedNetlink.lookupOnLink), to: nearby) == .unreachable)
    }

    // MARK: - The state machine

    private func synchronizedMachine() throws -> NetlinkMonitor.StateMachine {
        var machine = NetlinkMonitor.StateMachine(port: CapturedNetlink.port, isWireless: noSysfs)
        #expect(machine.start() == [.send(NetlinkRequest.dump(.links, sequence: 1))])
        #expect(try machine.receive(messages(CapturedNetlink.linkDump)) == [])
        #expect(
            try machine.receive(messages(CapturedNetlink.linkDumpDone))
                == [.send(NetlinkRequest.dump(.addresses, sequence: 2))])
        #expect(!machine.isSynchronized)
        let addresses = resequenced(CapturedNetlink.addressDump + CapturedNetlink.routeDumpDone, to: 2)
        #expect(try machine.receive(messages(addresses)) == [.send(NetlinkRequest.dump(.routes, sequence: 3))])
        let routes = resequenced(CapturedNetlink.routeDump + CapturedNetlink.routeDumpDone, to: 3)
        let actions = try machine.receive(messages(routes))
        #expect(actions == [.publish(machine.snapshot)])
        #expect(machine.isSynchronized)
        return machine
    }

    @Test func firstReadDumpsEachTableThenPublishes() throws {
        let machine = try synchronizedMachine()
        // The dumps saw veth0 down, with its address and three main-table routes: the IPv4 default
        // route, 10.77.0.0/24 and fe80::/64.
        #expect(machine.snapshot.links.count == 2 && machine.snapshot.routes.count == 3)
        #expect(machine.snapshot.defaultRoutePath() == .unreachable)
    }

    @Test func notificationsArePublishedWhenTheyChangeSomething() throws {
        var machine = try synchronizedMachine()
        let actions = try machine.receive(messages(CapturedNetlink.linkUp))
        #expect(actions == [.publish(machine.snapshot)])
        #expect(machine.snapshot.defaultRoutePath() == .reachable(through: veth0))
        // The same message again changes nothing: nothing to publish.
        #expect(try machine.receive(messages(CapturedNetlink.linkUp)) == [])
    }

    @Test func lookupsAreAnsweredByTheirSequenceAndOurPort() throws {
        var machine = try synchronizedMachine()
        let send = machine.lookUpRoute(to: IPAddress(192, 0, 2, 1), id: 42)
        #expect(send == [.send(NetlinkRequest.route(to: IPAddress(192, 0, 2, 1), sequence: 4))])
        // A notification from `ip` that happens to carry the same sequence number is not the answer.
        let lookalike = resequenced(CapturedNetlink.linkUp, to: 4)
        #expect(try machine.receive(messages(lookalike)) == [.publish(machine.snapshot)])
        let answer = try machine.receive(messages(resequenced(CapturedNetlink.lookupThroughGateway, to: 4)))
        guard case .answer(42, .route(let route)) = answer.first else {
            Issue.record("expected the answer, got \(answer)")
            return
        }
        #expect(route.gateway == IPAddress(10, 77, 0, 1))
        _ = machine.lookUpRoute(to: IPAddress(192, 0, 2, 1), id: 43)
        let refusal = try machine.receive(messages(resequenced(CapturedNetlink.lookupUnreachable, to: 5)))
        #expect(refusal == [.answer(43, .failed(code: -101))])
    }

    @Test func anOverrunForgetsLookupsAndReadsEverythingAgain() throws {
        var machine = try synchronizedMachine()
        _ = machine.lookUpRoute(to: IPAddress(192, 0, 2, 1), id: 7)
        #expect(machine.overrun() == [.forget(7), .send(NetlinkRequest.dump(.links, sequence: 5))])
        // The dump is written out while the link comes up: the notification follows the part that
        // still shows it down, and must not be lost when the dump replaces the table.
        #expect(try machine.receive(messages(resequenced(CapturedNetlink.linkDump, to: 5))) == [])
        #expect(try machine.receive(messages(CapturedNetlink.linkUp)) == [.publish(machine.snapshot)])
        let done = resequenced(CapturedNetlink.linkDumpDone, to: 5)
        #expect(try machine.receive(messages(done)) == [.send(NetlinkRequest.dump(.addresses, sequence: 6))])
        #expect(machine.snapshot.isUsable(5))
    }

    @Test func anInconsistentDumpIsRepeated() throws {
        var machine = NetlinkMonitor.StateMachine(port: CapturedNetlink.port, isWireless: noSysfs)
        _ = machine.start()
        let interrupted = flagged(CapturedNetlink.linkDump + CapturedNetlink.linkDumpDone, Netlink.Flag.dumpInterrupted)
        #expect(try machine.receive(messages(interrupted)) == [.send(NetlinkRequest.dump(.links, sequence: 2))])
        #expect(machine.snapshot.links.isEmpty)
    }

    @Test func aDumpThatKeepsFailingGivesUp() throws {
        var machine = NetlinkMonitor.StateMachine(port: CapturedNetlink.port, isWireless: noSysfs)
        _ = machine.start()
        for attempt in 1...NetlinkMonitor.StateMachine.maximumDumpFailures {
            let failure = resequenced(CapturedNetlink.lookupUnreachable, to: UInt32(attempt))
            let actions = try machine.receive(messages(failure))
            if attempt < NetlinkMonitor.StateMachine.maximumDumpFailures {
                #expect(actions == [.send(NetlinkRequest.dump(.links, sequence: UInt32(attempt + 1)))])
            } else {
                guard case .giveUp = actions.first else {
                    Issue.record("expected to give up, got \(actions)")
                    return
                }
            }
        }
    }

    // MARK: - Classification

    @Test(arguments: [
        (Netlink.HardwareType.loopback, "lo", false, InterfaceKind.loopback),
        (Netlink.HardwareType.ethernet, "eth0", false, .ethernet),
        (Netlink.HardwareType.ethernet, "enp3s0", false, .ethernet),
        (Netlink.HardwareType.ethernet, "veth1", false, .ethernet),
        (Netlink.HardwareType.ethernet, "wlan0", false, .wifi),
        (Netlink.HardwareType.ethernet, "wlp2s0", false, .wifi),
        (Netlink.HardwareType.ethernet, "office", true, .wifi),
        (Netlink.HardwareType.ieee80211Radiotap, "mon0", false, .wifi),
        (Netlink.HardwareType.ethernet, "wwan0", false, .cellular),
        (Netlink.HardwareType.none, "wwan0", false, .cellular),
        (Netlink.HardwareType.none, "wwp0s20f0u6i12", false, .cellular),
        (Netlink.HardwareType.rawIP, "rmnet_data0", false, .cellular),
        (Netlink.HardwareType.rawIP, "mhi0", false, .cellular),
        (Netlink.HardwareType.ethernet, "ccmni0", false, .cellular),
        (Netlink.HardwareType.none, "tun0", false, .other),
        (UInt16(512), "ppp0", false, .other),  // ARPHRD_PPP
        (UInt16(65534), "wg0", false, .other),
    ])
    func classification(type: UInt16, name: String, wireless: Bool, expected: InterfaceKind) {
        #expect(InterfaceKind.classify(hardwareType: type, name: name, isWireless: wireless) == expected)
    }

    @Test func aWirelessEventOrSysfsMakesALinkWifi() throws {
        var link = try #require(try NetlinkParser.parse(CapturedNetlink.linkUp).first)
        var state = NetworkSnapshot()
        state.apply(link, isWireless: { $0 == "veth0" })
        #expect(state.links[5]?.kind == .wifi)
        // Wireless stays known across later messages of the same link, without asking sysfs again.
        state.apply(
            link,
            isWireless: { _ in
                Issue.record("sysfs read again")
                return false
            })
        #expect(state.links[5]?.kind == .wifi)
        guard case .link(var info) = link.payload else { return }
        info.hasWirelessEvent = true
        info.index = 9
        link.payload = .link(info)
        state.apply(link, isWireless: { _ in false })
        #expect(state.links[9]?.kind == .wifi)
    }
}
