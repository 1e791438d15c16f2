import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

/// The netlink parser and request encoder, on bytes captured from a real kernel.
@Suite struct ReachabilityParsingTests {
    private func parse(_ bytes: [UInt8]) throws -> [NetlinkMessage] {
        try NetlinkParser.parse(bytes)
    }

    private func only(_ bytes: [UInt8]) throws -> NetlinkMessage {
        let messages = try parse(bytes)
        try #require(messages.count == 1)
        return messages[0]
    }

    @Test func linkDumpHoldsEveryInterface() throws {
        let messages = try parse(CapturedNetlink.linkDump)
        #expect(messages.count == 2)
        #expect(messages.allSatisfy { $0.type == Netlink.MessageType.newLink && $0.sequence == 1 })
        #expect(messages.allSatisfy { $0.flags & Netlink.Flag.multipart != 0 && $0.port == CapturedNetlink.port })
        guard case .link(let loopback) = messages[0].payload, case .link(let veth) = messages[1].payload else {
            Issue.record("expected two links, got \(messages)")
            return
        }
        #expect(loopback.index == 1 && loopback.name == "lo" && loopback.hardwareType == Netlink.HardwareType.loopback)
        #expect(loopback.flags & Netlink.InterfaceFlag.up == 0)
        #expect(veth.index == 5 && veth.name == "veth0" && veth.hardwareType == Netlink.HardwareType.ethernet)
        #expect(veth.driverKind == "veth")
        #expect(veth.operationalState == 2)  // IF_OPER_DOWN
        #expect(veth.hasCarrier == false)
        #expect(!veth.hasWirelessEvent)
    }

    @Test func doneEndsTheDump() throws {
        let done = try only(CapturedNetlink.linkDumpDone)
        #expect(done.payload == .done)
        #expect(done.sequence == 1 && done.flags & Netlink.Flag.multipart != 0)
    }

    @Test func linkUpCarriesStateAndCarrier() throws {
        guard case .link(let link) = try only(CapturedNetlink.linkUp).payload else {
            Issue.record("expected a link")
            return
        }
        #expect(link.flags & Netlink.InterfaceFlag.up != 0 && link.flags & Netlink.InterfaceFlag.running != 0)
        #expect(link.operationalState == Netlink.OperationalState.up)
        #expect(link.hasCarrier == true)
    }

    @Test func addressNotificationCarriesTheSenderOfTheChange() throws {
        let message = try only(CapturedNetlink.addressAdded)
        #expect(message.type == Netlink.MessageType.newAddress && !message.isDeletion)
        // `ip` made the change: the notification carries its port and sequence number, not ours.
        #expect(message.port != CapturedNetlink.port && message.port != 0 && message.sequence != 0)
        #expect(
            message.payload
                == .address(
                    AddressInfo(
                        index: 5, family: Netlink.Family.inet, prefixLength: 24, flags: 0x80, scope: 0,
                        address: IPAddress(10, 77, 0, 2))))
    }

    @Test func defaultRouteAddedAndDeleted() throws {
        let added = try only(CapturedNetlink.defaultRouteAdded)
        let deleted = try only(CapturedNetlink.defaultRouteDeleted)
        #expect(!added.isDeletion && deleted.isDeletion)
        guard case .route(let route) = added.payload, case .route(let removed) = deleted.payload else {
            Issue.record("expected routes")
            return
        }
        #expect(route.isDefault && route.table == Netlink.Route.mainTable && route.type == Netlink.Route.unicast)
        #expect(route.gateway == IPAddress(10, 77, 0, 1) && route.outputInterface == 5 && route.destination == nil)
        #expect(NetworkSnapshot.key(of: route) == NetworkSnapshot.key(of: removed))
    }

    @Test func routeDumpIsMultipartAndEndsWithDone() throws {
        let routes = try parse(CapturedNetlink.routeDump)
        #expect(routes.count == 7)
        #expect(routes.allSatisfy { $0.sequence == 13 && $0.flags & Netlink.Flag.multipart != 0 })
        let tables = routes.compactMap { message -> UInt32? in
            if case .route(let route) = message.payload { return route.table }
            return nil
        }
        #expect(tables.filter { $0 == Netlink.Route.mainTable }.count == 3)
        #expect(try only(CapturedNetlink.routeDumpDone).payload == .done)
        let addresses = try parse(CapturedNetlink.addressDump)
        #expect(addresses.count == 2)
    }

    @Test func routeLookupAnswers() throws {
        guard case .route(let onLink) = try only(CapturedNetlink.lookupOnLink).payload,
            case .route(let viaGateway) = try only(CapturedNetlink.lookupThroughGateway).payload,
            case .route(let local) = try only(CapturedNetlink.lookupLocal).payload
        else {
            Issue.record("expected three routes")
            return
        }
        #expect(onLink.destination == IPAddress(10, 77, 0, 9) && onLink.outputInterface == 5 && onLink.gateway == nil)
        #expect(viaGateway.gateway == IPAddress(10, 77, 0, 1) && viaGateway.outputInterface == 5)
        #expect(local.type == Netlink.Route.local && local.outputInterface == 1)
    }

    @Test func errorCarriesTheNegativeErrno() throws {
        let message = try only(CapturedNetlink.lookupUnreachable)
        #expect(message.payload == .error(code: -101))  // ENETUNREACH
        #expect(message.sequence == 15 && message.port == CapturedNetlink.port)
    }

    @Test func deletionOfAnIPv6Address() throws {
        let message = try only(CapturedNetlink.ipv6AddressDeleted)
        guard case .address(let address) = message.payload else {
            Issue.record("expected an address")
            return
        }
        #expect(message.isDeletion && address.family == Netlink.Family.inet6)
        #expect(address.address?.description.hasPrefix("fe80::") == true)
    }

    @Test func severalDatagramsParseIndependently() throws {
        // What the reader gets across a dump: parts, then the done.
        let parts = [CapturedNetlink.routeDump, CapturedNetlink.routeDumpDone].map { try? parse($0) }
        #expect(parts.map { $0?.count } == [7, 1])
        // Concatenated, they still parse: each message is aligned to four bytes.
        #expect(try parse(CapturedNetlink.addressDump + CapturedNetlink.routeDumpDone).count == 3)
    }

    @Test func truncatedInputIsRejected() throws {
        let bytes = CapturedNetlink.addressAdded
        #expect(try parse([]).isEmpty)
        for length in 1..<bytes.count {
            #expect(throws: NetlinkParseError.self) { try parse(Array(bytes.prefix(length))) }
        }
        // The last message of a datagram cut short.
        let dump = CapturedNetlink.routeDump
        #expect(throws: NetlinkParseError.self) { try parse(Array(dump.dropLast(9))) }
    }

    @Test func malformedLengthsAreRejected() throws {
        var zeroLength = CapturedNetlink.defaultRouteAdded
        zeroLength.replaceSubrange(0..<4, with: [0, 0, 0, 0])
        #expect(throws: NetlinkParseError.self) { try parse(zeroLength) }
        var hugeLength = CapturedNetlink.defaultRouteAdded
        hugeLength.replaceSubrange(0..<4, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: NetlinkParseError.self) { try parse(hugeLength) }
        // The first attribute, right after the 16-byte header and the 12-byte rtmsg, claims 200 bytes.
        var badAttribute = CapturedNetlink.defaultRouteAdded
        badAttribute.replaceSubrange(28..<30, with: [200, 0])
        #expect(throws: NetlinkParseError.self) { try parse(badAttribute) }
        // A link message too short for its ifinfomsg.
        var shortLink: [UInt8] = []
        shortLink.appendHost(UInt32(20))
        shortLink.appendHost(Netlink.MessageType.newLink)
        shortLink += [UInt8](repeating: 0, count: 14)
        #expect(throws: NetlinkParseError.self) { try parse(shortLink) }
    }

    @Test func garbageNeverCrashes() {
        var generator = SplitMix64(state: 0x5EED)
        for _ in 0..<2_000 {
            let count = Int(generator.next() % 300)
            let garbage = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            _ = try? NetlinkParser.parse(garbage)
        }
        // Captured messages with random bytes flipped: parsed or rejected, never a crash.
        for _ in 0..<2_000 {
            var bytes = CapturedNetlink.routeDump
            for _ in 0..<4 {
                bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
            }
            _ = try? NetlinkParser.parse(bytes)
        }
    }

    @Test func requestsAreWellFormed() throws {
        let lookup = NetlinkRequest.route(to: IPAddress(192, 0, 2, 1), sequence: 11)
        #expect(lookup.count == 16 + 12 + 8)
        #expect(lookup.hostUInt32(at: 0) == UInt32(lookup.count))
        #expect(lookup.hostUInt16(at: 4) == Netlink.MessageType.getRoute)
        #expect(lookup.hostUInt16(at: 6) == Netlink.Flag.request)
        #expect(lookup.hostUInt32(at: 8) == 11)
        #expect(lookup[16] == Netlink.Family.inet && lookup[17] == 32)
        #expect(Array(lookup.suffix(4)) == [192, 0, 2, 1])
        let attributes = try NetlinkParser.attributes(lookup, 28..<lookup.count)
        #expect(attributes.map(\.0) == [Netlink.RouteAttribute.destination])

        let v6 = try #require(IPAddress(bytes: [0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 11) + [1]))
        let lookup6 = NetlinkRequest.route(to: v6, sequence: 2)
        #expect(lookup6.count == 16 + 12 + 20 && lookup6[16] == Netlink.Family.inet6 && lookup6[17] == 128)

        for (table, size) in [(NetlinkRequest.Dump.links, 16), (.addresses, 8), (.routes, 12)] {
            let dump = NetlinkRequest.dump(table, sequence: 3)
            #expect(dump.count == 16 + size)
            #expect(dump.hostUInt16(at: 6) == Netlink.Flag.request | Netlink.Flag.dump)
        }
    }

    @Test func addressesPrintLikeIP() throws {
        #expect(IPAddress(10, 77, 0, 2).description == "10.77.0.2")
        let samples: [([UInt8], String)] = [
            ([0xFE, 0x80] + [UInt8](repeating: 0, count: 13) + [1], "fe80::1"),
            ([UInt8](repeating: 0, count: 15) + [1], "::1"),
            ([UInt8](repeating: 0, count: 16), "::"),
            ([0x20, 0x01, 0x0D, 0xB8] + [UInt8](repeating: 0, count: 12), "2001:db8::"),
            ([0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "1:0:0:1::1"),
        ]
        for (bytes, text) in samples {
            #expect(try #require(IPAddress(bytes: bytes)).description == text)
        }
        #expect(HostResolver.numericAddress("[::1]")?.isLoopback == true)
        #expect(HostResolver.numericAddress("127.3.4.5")?.isLoopback == true)
        #expect(HostResolver.numericAddress("::ffff:127.0.0.1")?.isLoopback == true)
        #expect(HostResolver.numericAddress("10.0.0.1")?.isLoopback == false)
        #expect(HostResolver.numericAddress("example.com") == nil)
    }
}
