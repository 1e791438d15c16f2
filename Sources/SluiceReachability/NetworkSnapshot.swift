import Sluice

/// The monitor's copy of the kernel's interfaces, addresses and main-table routes, kept up to date
/// by applying the kernel's messages in order.
///
/// A pure value: the monitor applies messages to it on its thread and publishes copies, and tests
/// apply captured messages to it. Whether a link is wireless may need a look at sysfs, which is
/// not pure, so the caller passes that look in as `isWireless`.
struct NetworkSnapshot: Equatable, Sendable {
    /// An interface, with what the monitor worked out about it.
    struct Link: Equatable, Sendable {
        /// The latest link message.
        var info: LinkInfo
        /// Whether the link is wireless (by a wireless event, a `wl` name or sysfs); kept across updates.
        var isWireless: Bool
        /// The kind the classifier gave it.
        var kind: InterfaceKind
    }

    /// What makes an address distinct: the kernel replaces an address with the same key.
    struct AddressKey: Hashable, Sendable {
        var index: Int32
        var family: UInt8
        var prefixLength: UInt8
        var address: IPAddress?
    }

    /// What the kernel uses to tell routes apart (`ip route replace` replaces the route with the same one).
    struct RouteIdentity: Hashable, Sendable {
        var family: UInt8
        var table: UInt32
        var destination: IPAddress?
        var destinationLength: UInt8
        var tos: UInt8
        var priority: UInt32
    }

    /// A route's identity plus its next hops: IPv6 keeps several routes with one identity.
    struct RouteKey: Hashable, Sendable {
        var identity: RouteIdentity
        var outputInterface: Int32?
        var gateway: IPAddress?
        var nexthops: [RouteInfo.Nexthop]
    }

    /// Decides whether a link, by name, is wireless beyond what its messages say (sysfs).
    typealias WirelessProbe = @Sendable (_ name: String) -> Bool

    /// The interfaces by index.
    var links: [Int32: Link] = [:]
    /// The addresses of every interface.
    var addresses: [AddressKey: AddressInfo] = [:]
    /// The routes of the main table: the only one a default route is looked for in.
    var routes: [RouteKey: RouteInfo] = [:]

    /// Applies a link, address or route message; returns whether anything changed.
    @discardableResult
    mutating func apply(_ message: NetlinkMessage, isWireless probe: WirelessProbe) -> Bool {
        let before = self
        switch message.payload {
        case .link(let info):
            if message.isDeletion { removeLink(info.index) } else { updateLink(info, probe: probe) }
        case .address(let info):
            let key = AddressKey(
                index: info.index, family: info.family, prefixLength: info.prefixLength, address: info.address)
            addresses[key] = message.isDeletion ? nil : info
        case .route(let info):
            guard info.table == Netlink.Route.mainTable else { return false }
            if message.isDeletion {
                removeRoute(info)
            } else {
                if message.flags & Netlink.Flag.replace != 0 {
                    routes = routes.filter { $0.key.identity != Self.identity(of: info) }
                }
                routes[Self.key(of: info)] = info
            }
        case .done, .error, .ignored:
            return false
        }
        return self != before
    }

    private mutating func updateLink(_ info: LinkInfo, probe: WirelessProbe) {
        let previous = links[info.index]
        var merged = info
        // Notifications for some changes omit the name; keep the one we know.
        if merged.name == nil { merged.name = previous?.info.name }
        let name = merged.name ?? ""
        let renamed = previous?.info.name != merged.name
        var isWireless = info.hasWirelessEvent || (!renamed && previous?.isWireless == true)
        // sysfs is read once per new or renamed link, not on every flag change.
        if !isWireless, previous == nil || renamed { isWireless = probe(name) }
        links[info.index] = Link(
            info: merged, isWireless: isWireless,
            kind: InterfaceKind.classify(hardwareType: info.hardwareType, name: name, isWireless: isWireless))
        // Taking a link down makes the kernel flush the routes through it, without telling (IPv4).
        if info.flags & Netlink.InterfaceFlag.up == 0 { removeRoutes(through: info.index) }
    }

    private mutating func removeLink(_ index: Int32) {
        links[index] = nil
        addresses = addresses.filter { $0.key.index != index }
        removeRoutes(through: index)
    }

    private mutating func removeRoutes(through index: Int32) {
        routes = routes.filter { route in !route.value.interfaces.allSatisfy { $0 == index } }
    }

    private mutating func removeRoute(_ info: RouteInfo) {
        if routes.removeValue(forKey: Self.key(of: info)) != nil { return }
        // A deletion may name fewer attributes than the route had: match on identity and interface.
        let identity = Self.identity(of: info)
        routes = routes.filter { route in
            route.key.identity != identity
                || (info.outputInterface != nil && route.value.outputInterface != info.outputInterface)
        }
    }

    /// Replaces one table with the result of a dump.
    mutating func replace(_ table: NetlinkRequest.Dump, with dumped: NetworkSnapshot) {
        switch table {
        case .links: links = dumped.links
        case .addresses: addresses = dumped.addresses
        case .routes: routes = dumped.routes
        }
    }

    static func identity(of route: RouteInfo) -> RouteIdentity {
        RouteIdentity(
            family: route.family, table: route.table, destination: route.destination,
            destinationLength: route.destinationLength, tos: route.tos, priority: route.priority)
    }

    static func key(of route: RouteInfo) -> RouteKey {
        RouteKey(
            identity: identity(of: route), outputInterface: route.outputInterface, gateway: route.gateway,
            nexthops: route.nexthops)
    }
}
