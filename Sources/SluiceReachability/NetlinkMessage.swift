import Sluice

/// One parsed netlink message: its header and what the monitor needs of its payload.
struct NetlinkMessage: Equatable, Sendable {
    /// The message type (`RTM_NEWLINK`, `NLMSG_DONE`, …).
    var type: UInt16
    /// The header flags (`NLM_F_MULTI`, `NLM_F_DUMP_INTR`, …).
    var flags: UInt16
    /// The sequence number of the request this answers; notifications carry 0.
    var sequence: UInt32
    /// The sender's port: 0 for the kernel.
    var port: UInt32
    /// The parsed body.
    var payload: Payload

    /// The body of a message the monitor understands.
    enum Payload: Equatable, Sendable {
        /// `RTM_NEWLINK` / `RTM_DELLINK`.
        case link(LinkInfo)
        /// `RTM_NEWADDR` / `RTM_DELADDR`.
        case address(AddressInfo)
        /// `RTM_NEWROUTE` / `RTM_DELROUTE`.
        case route(RouteInfo)
        /// `NLMSG_DONE`: the end of a multipart dump.
        case done
        /// `NLMSG_ERROR`: 0 acknowledges a request, a negative errno reports its failure.
        case error(code: Int32)
        /// Any other type (`NLMSG_NOOP`, neighbour messages, …), skipped.
        case ignored
    }

    /// Whether this message removes what it describes (`RTM_DEL*`).
    var isDeletion: Bool {
        [Netlink.MessageType.deleteLink, Netlink.MessageType.deleteAddress, Netlink.MessageType.deleteRoute]
            .contains(type)
    }

    /// Whether the kernel's dump changed while this part of it was being produced (`NLM_F_DUMP_INTR`).
    var isDumpInterrupted: Bool { flags & Netlink.Flag.dumpInterrupted != 0 }
}

/// What a link message says about an interface.
struct LinkInfo: Equatable, Sendable {
    /// The interface index.
    var index: Int32
    /// The hardware type (`ARPHRD_*`).
    var hardwareType: UInt16
    /// The interface flags (`IFF_UP`, `IFF_RUNNING`, …).
    var flags: UInt32
    /// The name (`IFLA_IFNAME`), if the message has it.
    var name: String?
    /// The RFC 2863 operational state (`IFLA_OPERSTATE`), if the message has it.
    var operationalState: UInt8?
    /// Whether the link has a carrier (`IFLA_CARRIER`), if the message says.
    var hasCarrier: Bool?
    /// Whether the message carries a wireless-extensions event (`IFLA_WIRELESS`): only Wi-Fi sends those.
    var hasWirelessEvent: Bool = false
    /// The driver kind (`IFLA_INFO_KIND`: `veth`, `bridge`, `wireguard`, …), if the message has it.
    var driverKind: String?
}

/// What an address message says about an address of an interface.
struct AddressInfo: Equatable, Sendable {
    /// The interface index.
    var index: Int32
    /// `AF_INET` or `AF_INET6`.
    var family: UInt8
    /// The prefix length.
    var prefixLength: UInt8
    /// The address flags (`IFA_FLAGS` when present, which holds all 32 bits, else `ifa_flags`).
    var flags: UInt32
    /// The scope (`RT_SCOPE_UNIVERSE` 0, `RT_SCOPE_LINK` 253, `RT_SCOPE_HOST` 254).
    var scope: UInt8
    /// The local address (`IFA_LOCAL`, else `IFA_ADDRESS`).
    var address: IPAddress?
}

/// What a route message says about a route.
struct RouteInfo: Equatable, Sendable {
    /// `AF_INET` or `AF_INET6`.
    var family: UInt8
    /// The destination prefix length: 0 for a default route.
    var destinationLength: UInt8
    /// The type of service the route is for.
    var tos: UInt8
    /// The table (`RTA_TABLE` when present, else `rtm_table`).
    var table: UInt32
    /// The scope.
    var scope: UInt8
    /// The type (`RTN_UNICAST`, `RTN_LOCAL`, `RTN_UNREACHABLE`, …).
    var type: UInt8
    /// The destination prefix, absent for a default route.
    var destination: IPAddress?
    /// The gateway, if the route goes through one.
    var gateway: IPAddress?
    /// The output interface, for a route with a single next hop.
    var outputInterface: Int32?
    /// The metric: lower wins.
    var priority: UInt32 = 0
    /// The next hops of a multipath route (`RTA_MULTIPATH`).
    var nexthops: [Nexthop] = []

    /// One next hop of a multipath route.
    struct Nexthop: Equatable, Hashable, Sendable {
        /// The interface index.
        var interface: Int32
        /// The gateway, if any.
        var gateway: IPAddress?
    }

    /// Every interface the route can send through.
    var interfaces: [Int32] {
        if let outputInterface { return [outputInterface] + nexthops.map(\.interface) }
        return nexthops.map(\.interface)
    }

    /// Whether this is a default route (a zero-length destination prefix).
    var isDefault: Bool { destinationLength == 0 }
}
