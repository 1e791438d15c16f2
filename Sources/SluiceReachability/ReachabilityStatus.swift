import Sluice

/// Whether a destination (the internet through the default route, or one host) can be reached,
/// as far as the kernel's links, addresses and routes tell.
///
/// `reachable` means a packet has somewhere to go: an interface that is up, has a carrier and an
/// address, and a route to the destination through it. It does not promise that the far end answers.
public enum ReachabilityStatus: Sendable, Hashable, CustomStringConvertible {
    /// Not known yet (the first look at the kernel's tables has not finished), or not knowable
    /// (the netlink socket could not be opened: see `Reachability.failure`).
    case unknown
    /// No usable route leads to the destination.
    case unreachable
    /// A usable route leads to the destination through an interface of this kind.
    case reachable(via: InterfaceKind)

    /// Whether the status is `reachable`.
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// The kind of interface the destination is reached through, if it is reachable.
    public var interfaceKind: InterfaceKind? {
        if case .reachable(let kind) = self { return kind }
        return nil
    }

    /// `unknown`, `unreachable` or `reachable(via: wifi)`.
    public var description: String {
        switch self {
        case .unknown: return "unknown"
        case .unreachable: return "unreachable"
        case .reachable(let kind): return "reachable(via: \(kind))"
        }
    }
}

/// The kind of a network interface, as Linux describes it.
public enum InterfaceKind: String, Sendable, Hashable, CustomStringConvertible {
    /// Wired Ethernet (and anything else that looks like Ethernet and is not wireless: veth, bridges).
    case ethernet
    /// An 802.11 wireless LAN.
    case wifi
    /// A mobile broadband modem (`wwan*`, `rmnet*`, `ccmni*`, raw-IP links).
    case cellular
    /// The loopback interface.
    case loopback
    /// Anything else: tunnels, VPNs, PPP, InfiniBand.
    case other

    /// The raw value, e.g. `wifi`.
    public var description: String { rawValue }
}

/// A network interface of the kernel, as it was when a status was worked out.
public struct NetworkInterface: Sendable, Hashable, CustomStringConvertible {
    /// The interface's name, e.g. `eth0` or `wlp2s0`.
    public let name: String
    /// The kernel's index of the interface (`if_nametoindex`).
    public let index: Int
    /// What kind of interface it is.
    public let kind: InterfaceKind

    /// Creates a description of an interface.
    public init(name: String, index: Int, kind: InterfaceKind) {
        self.name = name
        self.index = index
        self.kind = kind
    }

    /// `eth0 (ethernet)`.
    public var description: String { "\(name) (\(kind))" }
}

/// A status together with the interface it was reached through.
///
/// `Reachability.status` is enough to know whether and how; `path` adds which interface, so that
/// moving from `eth0` to `eth1` (both Ethernet) is a change too.
public struct ReachabilityPath: Sendable, Hashable, CustomStringConvertible {
    /// Whether and how the destination is reachable.
    public let status: ReachabilityStatus
    /// The interface the route leads through; nil unless reachable, and nil for loopback
    /// addresses, which are reachable without asking the kernel.
    public let interface: NetworkInterface?

    /// Creates a path.
    public init(status: ReachabilityStatus, interface: NetworkInterface? = nil) {
        self.status = status
        self.interface = interface
    }

    /// The path of a status that is not yet known.
    public static let unknown = ReachabilityPath(status: .unknown)

    /// The path of a destination that cannot be reached.
    public static let unreachable = ReachabilityPath(status: .unreachable)

    /// A path through `interface`.
    public static func reachable(through interface: NetworkInterface) -> ReachabilityPath {
        ReachabilityPath(status: .reachable(via: interface.kind), interface: interface)
    }

    /// `reachable(via: ethernet) through eth0`.
    public var description: String {
        guard let interface else { return status.description }
        return "\(status) through \(interface.name)"
    }
}
