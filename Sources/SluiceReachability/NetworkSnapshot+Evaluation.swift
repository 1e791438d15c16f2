import Sluice

/// What the kernel answered to "which route would you use to send to this address?".
enum RouteLookup: Equatable, Sendable {
    /// The route (`RTM_NEWROUTE`, with its output interface).
    case route(RouteInfo)
    /// The kernel refused: a negative errno such as `-ENETUNREACH`.
    case failed(code: Int32)
    /// The monitor is not running (its socket could not be opened), so nobody could ask.
    case unavailable
}

extension NetworkSnapshot {
    /// The interface at `index`, as the public API shows it.
    func interface(_ index: Int32) -> NetworkInterface? {
        guard let link = links[index] else { return nil }
        return NetworkInterface(name: link.info.name ?? "if\(index)", index: Int(index), kind: link.kind)
    }

    /// Whether the interface can carry packets: administratively up and running, which the kernel
    /// sets only when the operational state is up (or unknown, for drivers that do not report it)
    /// and, then, when there is a carrier.
    func isUsable(_ index: Int32) -> Bool {
        guard let info = links[index]?.info else { return false }
        let required = Netlink.InterfaceFlag.up | Netlink.InterfaceFlag.running
        guard info.flags & required == required, info.hasCarrier != false else { return false }
        guard let state = info.operationalState else { return true }
        return state == Netlink.OperationalState.up || state == Netlink.OperationalState.unknown
    }

    /// Whether the interface has an address of `family` that can be a packet's source: not still
    /// being checked for duplicates (IPv6), and, unless `linkScopeWillDo`, wider than the link.
    func hasUsableAddress(_ index: Int32, family: UInt8, linkScopeWillDo: Bool = false) -> Bool {
        addresses.values.contains { address in
            address.index == index && address.family == family
                && address.flags & Netlink.unusableAddressFlags == 0
                && (linkScopeWillDo || address.scope < Netlink.Route.linkScope)
        }
    }

    /// The status of the default route: the best (lowest metric, IPv4 first on a tie) unicast
    /// default route of the main table through a usable interface that has a usable address.
    func defaultRoutePath() -> ReachabilityPath {
        let candidates = routes.values
            .filter { $0.isDefault && $0.type == Netlink.Route.unicast }
            .sorted { ($0.priority, $0.family) < ($1.priority, $1.family) }
        for route in candidates {
            for index in route.interfaces
            where isUsable(index) && hasUsableAddress(index, family: route.family) {
                if let interface = interface(index) { return .reachable(through: interface) }
            }
        }
        return .unreachable
    }

    /// The status of a destination, given the kernel's answer to a route lookup for it.
    func path(for lookup: RouteLookup, to address: IPAddress) -> ReachabilityPath {
        switch lookup {
        case .unavailable:
            return .unknown
        case .failed:
            return .unreachable
        case .route(let route):
            // One of our own addresses: the kernel delivers it over loopback.
            if route.type == Netlink.Route.local { return Self.loopbackPath(route.outputInterface.flatMap(interface)) }
            guard route.type == Netlink.Route.unicast else { return .unreachable }
            let isLinkLocal = address.isIPv6 && address.bytes[0] == 0xFE && address.bytes[1] & 0xC0 == 0x80
            for index in route.interfaces
            where isUsable(index) && hasUsableAddress(index, family: route.family, linkScopeWillDo: isLinkLocal) {
                if let interface = interface(index) { return .reachable(through: interface) }
            }
            return .unreachable
        }
    }

    /// The path of a loopback destination, through `lo` when it is known.
    static func loopbackPath(_ interface: NetworkInterface? = nil) -> ReachabilityPath {
        ReachabilityPath(
            status: .reachable(via: .loopback),
            interface: interface.map { NetworkInterface(name: $0.name, index: $0.index, kind: .loopback) })
    }
}
