internal import CNetlink
import Glibc
import Sluice

/// The numbers of the kernel's netlink ABI that the parser and the request encoder use, taken from
/// the C headers (through `CNetlink`) and typed as they appear on the wire, so that the rest of the
/// code is plain Swift and no C type leaks out of the module.
enum Netlink {
    /// Message types (`nlmsghdr.nlmsg_type`).
    enum MessageType {
        static let noop = UInt16(NLMSG_NOOP)
        static let error = UInt16(NLMSG_ERROR)
        static let done = UInt16(NLMSG_DONE)
        static let overrun = UInt16(NLMSG_OVERRUN)
        static let newLink = UInt16(RTM_NEWLINK)
        static let deleteLink = UInt16(RTM_DELLINK)
        static let getLink = UInt16(RTM_GETLINK)
        static let newAddress = UInt16(RTM_NEWADDR)
        static let deleteAddress = UInt16(RTM_DELADDR)
        static let getAddress = UInt16(RTM_GETADDR)
        static let newRoute = UInt16(RTM_NEWROUTE)
        static let deleteRoute = UInt16(RTM_DELROUTE)
        static let getRoute = UInt16(RTM_GETROUTE)
    }

    /// Header flags (`nlmsghdr.nlmsg_flags`).
    enum Flag {
        static let request = UInt16(NLM_F_REQUEST)
        static let multipart = UInt16(NLM_F_MULTI)
        static let dumpInterrupted = UInt16(NLM_F_DUMP_INTR)
        static let dump = UInt16(NLM_F_DUMP)
        static let replace = UInt16(NLM_F_REPLACE)
    }

    /// The multicast groups the monitor joins: links, IPv4 and IPv6 addresses and routes.
    static let monitorGroups =
        UInt32(RTMGRP_LINK) | UInt32(RTMGRP_IPV4_IFADDR) | UInt32(RTMGRP_IPV6_IFADDR) | UInt32(RTMGRP_IPV4_ROUTE)
        | UInt32(RTMGRP_IPV6_ROUTE)

    /// The netlink protocol of routing messages.
    static let routeProtocol = NETLINK_ROUTE

    /// Sizes of the fixed headers, in bytes.
    enum Size {
        static let message = MemoryLayout<nlmsghdr>.size
        static let link = MemoryLayout<ifinfomsg>.size
        static let address = MemoryLayout<ifaddrmsg>.size
        static let route = MemoryLayout<rtmsg>.size
        static let attribute = MemoryLayout<rtattr>.size
        static let nexthop = MemoryLayout<rtnexthop>.size
    }

    /// Offsets of the fields the parser reads, within their header.
    enum Offset {
        static let messageLength = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_len)!
        static let messageType = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_type)!
        static let messageFlags = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_flags)!
        static let messageSequence = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_seq)!
        static let messagePort = MemoryLayout<nlmsghdr>.offset(of: \.nlmsg_pid)!
        static let linkType = MemoryLayout<ifinfomsg>.offset(of: \.ifi_type)!
        static let linkIndex = MemoryLayout<ifinfomsg>.offset(of: \.ifi_index)!
        static let linkFlags = MemoryLayout<ifinfomsg>.offset(of: \.ifi_flags)!
        static let addressFamily = MemoryLayout<ifaddrmsg>.offset(of: \.ifa_family)!
        static let addressPrefix = MemoryLayout<ifaddrmsg>.offset(of: \.ifa_prefixlen)!
        static let addressFlags = MemoryLayout<ifaddrmsg>.offset(of: \.ifa_flags)!
        static let addressScope = MemoryLayout<ifaddrmsg>.offset(of: \.ifa_scope)!
        static let addressIndex = MemoryLayout<ifaddrmsg>.offset(of: \.ifa_index)!
        static let routeFamily = MemoryLayout<rtmsg>.offset(of: \.rtm_family)!
        static let routeDestinationLength = MemoryLayout<rtmsg>.offset(of: \.rtm_dst_len)!
        static let routeTOS = MemoryLayout<rtmsg>.offset(of: \.rtm_tos)!
        static let routeTable = MemoryLayout<rtmsg>.offset(of: \.rtm_table)!
        static let routeScope = MemoryLayout<rtmsg>.offset(of: \.rtm_scope)!
        static let routeType = MemoryLayout<rtmsg>.offset(of: \.rtm_type)!
        static let nexthopFlags = MemoryLayout<rtnexthop>.offset(of: \.rtnh_flags)!
        static let nexthopInterface = MemoryLayout<rtnexthop>.offset(of: \.rtnh_ifindex)!
    }

    /// Attribute numbers of link messages (`IFLA_*`).
    enum LinkAttribute {
        static let name = UInt16(IFLA_IFNAME)
        static let operationalState = UInt16(IFLA_OPERSTATE)
        static let carrier = UInt16(IFLA_CARRIER)
        static let wireless = UInt16(IFLA_WIRELESS)
        static let linkInfo = UInt16(IFLA_LINKINFO)
        static let infoKind = UInt16(IFLA_INFO_KIND)
    }

    /// Attribute numbers of address messages (`IFA_*`).
    enum AddressAttribute {
        static let address = UInt16(IFA_ADDRESS)
        static let local = UInt16(IFA_LOCAL)
        static let flags = UInt16(IFA_FLAGS)
    }

    /// Attribute numbers of route messages (`RTA_*`).
    enum RouteAttribute {
        static let destination = UInt16(RTA_DST.rawValue)
        static let outputInterface = UInt16(RTA_OIF.rawValue)
        static let gateway = UInt16(RTA_GATEWAY.rawValue)
        static let priority = UInt16(RTA_PRIORITY.rawValue)
        static let table = UInt16(RTA_TABLE.rawValue)
        static let multipath = UInt16(RTA_MULTIPATH.rawValue)
    }

    /// The bits of an attribute's type that are flags, not the type (`NLA_F_NESTED`, …).
    static let attributeTypeMask = ~(UInt16(NLA_F_NESTED) | UInt16(NLA_F_NET_BYTEORDER))

    /// Address families, as in the messages' family byte.
    enum Family {
        static let unspecified = UInt8(AF_UNSPEC)
        static let inet = UInt8(AF_INET)
        static let inet6 = UInt8(AF_INET6)
    }

    /// Route tables, types and scopes.
    enum Route {
        static let mainTable = UInt32(RT_TABLE_MAIN.rawValue)
        static let unicast = UInt8(RTN_UNICAST)
        static let local = UInt8(RTN_LOCAL)
        static let linkScope = UInt8(RT_SCOPE_LINK.rawValue)
    }

    /// Address flags (`IFA_F_*`) that make an address unusable as a source.
    static let unusableAddressFlags = UInt32(IFA_F_TENTATIVE | IFA_F_DADFAILED)

    /// Interface flags (`IFF_*`, from glibc's `<net/if.h>`).
    enum InterfaceFlag {
        static let up = UInt32(IFF_UP)
        static let running = UInt32(IFF_RUNNING)
    }

    /// Operational states (`IF_OPER_*`, RFC 2863).
    enum OperationalState {
        static let unknown = UInt8(SLUICE_IF_OPER_UNKNOWN)
        static let dormant = UInt8(SLUICE_IF_OPER_DORMANT)
        static let up = UInt8(SLUICE_IF_OPER_UP)
    }

    /// Hardware types (`ARPHRD_*`) the classifier tells apart.
    enum HardwareType {
        static let ethernet = UInt16(ARPHRD_ETHER)
        static let loopback = UInt16(ARPHRD_LOOPBACK)
        static let none = UInt16(ARPHRD_NONE)
        static let rawIP = UInt16(ARPHRD_RAWIP)
        static let ieee80211 = UInt16(ARPHRD_IEEE80211)
        static let ieee80211Prism = UInt16(ARPHRD_IEEE80211_PRISM)
        static let ieee80211Radiotap = UInt16(ARPHRD_IEEE80211_RADIOTAP)
    }
}
