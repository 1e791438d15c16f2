import FoundationEssentials
import Sluice

/// Why a buffer received from a netlink socket was rejected.
enum NetlinkParseError: Error, Equatable {
    /// A header or attribute claims more bytes than there are, or fewer than its own header.
    case malformed(offset: Int, reason: String)
}

/// Turns the bytes of one netlink datagram into messages.
///
/// Pure and safe: bytes in, values out, every length checked against what is there, so it runs on
/// captured bytes in tests and never trusts the kernel (or garbage) with an out-of-bounds read.
/// Netlink integers are in host byte order; addresses are in network order, as they come.
enum NetlinkParser {
    /// Parses every message of a datagram, or throws if any of them is malformed.
    static func parse(_ data: Data) throws(NetlinkParseError) -> [NetlinkMessage] {
        try parse([UInt8](data))
    }

    /// Parses every message of a datagram, or throws if any of them is malformed.
    static func parse(_ bytes: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= Netlink.Size.message else {
                throw .malformed(offset: offset, reason: "a message header needs \(Netlink.Size.message) bytes")
            }
            let length = Int(bytes.hostUInt32(at: offset + Netlink.Offset.messageLength))
            guard length >= Netlink.Size.message, length <= bytes.count - offset else {
                throw .malformed(offset: offset, reason: "a message claims \(length) bytes")
            }
            let body = (offset + Netlink.Size.message)..<(offset + length)
            let type = bytes.hostUInt16(at: offset + Netlink.Offset.messageType)
            messages.append(
                NetlinkMessage(
                    type: type,
                    flags: bytes.hostUInt16(at: offset + Netlink.Offset.messageFlags),
                    sequence: bytes.hostUInt32(at: offset + Netlink.Offset.messageSequence),
                    port: bytes.hostUInt32(at: offset + Netlink.Offset.messagePort),
                    payload: try payload(type: type, bytes: bytes, body: body)))
            offset += aligned(length)
        }
        return messages
    }

    private static func payload(
        type: UInt16, bytes: [UInt8], body: Range<Int>
    ) throws(NetlinkParseError) -> NetlinkMessage.Payload {
        switch type {
        case Netlink.MessageType.done:
            return .done
        case Netlink.MessageType.error:
            guard body.count >= 4 else { throw .malformed(offset: body.lowerBound, reason: "an error needs a code") }
            return .error(code: Int32(bitPattern: bytes.hostUInt32(at: body.lowerBound)))
        case Netlink.MessageType.newLink, Netlink.MessageType.deleteLink:
            return .link(try link(bytes, body))
        case Netlink.MessageType.newAddress, Netlink.MessageType.deleteAddress:
            return .address(try address(bytes, body))
        case Netlink.MessageType.newRoute, Netlink.MessageType.deleteRoute:
            return .route(try route(bytes, body))
        default:
            return .ignored
        }
    }

    private static func link(_ bytes: [UInt8], _ body: Range<Int>) throws(NetlinkParseError) -> LinkInfo {
        let start = try fixedHeader(Netlink.Size.link, of: "link", in: body)
        var info = LinkInfo(
            index: Int32(bitPattern: bytes.hostUInt32(at: start + Netlink.Offset.linkIndex)),
            hardwareType: bytes.hostUInt16(at: start + Netlink.Offset.linkType),
            flags: bytes.hostUInt32(at: start + Netlink.Offset.linkFlags))
        for (type, value) in try attributes(bytes, (start + Netlink.Size.link)..<body.upperBound) {
            switch type {
            case Netlink.LinkAttribute.name: info.name = string(bytes[value])
            case Netlink.LinkAttribute.operationalState where value.count >= 1:
                info.operationalState = bytes[value.first!]
            case Netlink.LinkAttribute.carrier where value.count >= 1: info.hasCarrier = bytes[value.first!] != 0
            case Netlink.LinkAttribute.wireless: info.hasWirelessEvent = true
            case Netlink.LinkAttribute.linkInfo:
                for (nested, kind) in try attributes(bytes, value) where nested == Netlink.LinkAttribute.infoKind {
                    info.driverKind = string(bytes[kind])
                }
            default: break
            }
        }
        return info
    }

    private static func address(_ bytes: [UInt8], _ body: Range<Int>) throws(NetlinkParseError) -> AddressInfo {
        let start = try fixedHeader(Netlink.Size.address, of: "address", in: body)
        var info = AddressInfo(
            index: Int32(bitPattern: bytes.hostUInt32(at: start + Netlink.Offset.addressIndex)),
            family: bytes[start + Netlink.Offset.addressFamily],
            prefixLength: bytes[start + Netlink.Offset.addressPrefix],
            flags: UInt32(bytes[start + Netlink.Offset.addressFlags]),
            scope: bytes[start + Netlink.Offset.addressScope])
        var local: IPAddress?
        for (type, value) in try attributes(bytes, (start + Netlink.Size.address)..<body.upperBound) {
            switch type {
            case Netlink.AddressAttribute.address: info.address = IPAddress(bytes: bytes[value])
            case Netlink.AddressAttribute.local: local = IPAddress(bytes: bytes[value])
            case Netlink.AddressAttribute.flags where value.count >= 4: info.flags = bytes.hostUInt32(at: value.first!)
            default: break
            }
        }
        // On a point-to-point link IFA_ADDRESS is the peer; IFA_LOCAL is always ours.
        if let local { info.address = local }
        return info
    }

    private static func route(_ bytes: [UInt8], _ body: Range<Int>) throws(NetlinkParseError) -> RouteInfo {
        let start = try fixedHeader(Netlink.Size.route, of: "route", in: body)
        var info = RouteInfo(
            family: bytes[start + Netlink.Offset.routeFamily],
            destinationLength: bytes[start + Netlink.Offset.routeDestinationLength],
            tos: bytes[start + Netlink.Offset.routeTOS],
            table: UInt32(bytes[start + Netlink.Offset.routeTable]),
            scope: bytes[start + Netlink.Offset.routeScope],
            type: bytes[start + Netlink.Offset.routeType])
        for (type, value) in try attributes(bytes, (start + Netlink.Size.route)..<body.upperBound) {
            switch type {
            case Netlink.RouteAttribute.destination: info.destination = IPAddress(bytes: bytes[value])
            case Netlink.RouteAttribute.gateway: info.gateway = IPAddress(bytes: bytes[value])
            case Netlink.RouteAttribute.outputInterface where value.count >= 4:
                info.outputInterface = Int32(bitPattern: bytes.hostUInt32(at: value.first!))
            case Netlink.RouteAttribute.priority where value.count >= 4:
                info.priority = bytes.hostUInt32(at: value.first!)
            case Netlink.RouteAttribute.table where value.count >= 4: info.table = bytes.hostUInt32(at: value.first!)
            case Netlink.RouteAttribute.multipath: info.nexthops = try nexthops(bytes, value)
            default: break
            }
        }
        return info
    }

    /// The next hops of `RTA_MULTIPATH`: each an `rtnexthop` header followed by its own attributes.
    private static func nexthops(_ bytes: [UInt8], _ range: Range<Int>) throws(NetlinkParseError) -> [RouteInfo
        .Nexthop]
    {
        var hops: [RouteInfo.Nexthop] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= Netlink.Size.nexthop {
            let length = Int(bytes.hostUInt16(at: offset))
            guard length >= Netlink.Size.nexthop, length <= range.upperBound - offset else {
                throw .malformed(offset: offset, reason: "a next hop claims \(length) bytes")
            }
            var hop = RouteInfo.Nexthop(
                interface: Int32(bitPattern: bytes.hostUInt32(at: offset + Netlink.Offset.nexthopInterface)))
            for (type, value) in try attributes(bytes, (offset + Netlink.Size.nexthop)..<(offset + length))
            where type == Netlink.RouteAttribute.gateway {
                hop.gateway = IPAddress(bytes: bytes[value])
            }
            hops.append(hop)
            offset += aligned(length)
        }
        return hops
    }

    /// Checks that a body holds a fixed header of `size` bytes; returns where it starts.
    private static func fixedHeader(_ size: Int, of kind: String, in body: Range<Int>) throws(NetlinkParseError)
        -> Int
    {
        guard body.count >= size else {
            throw .malformed(offset: body.lowerBound, reason: "a \(kind) message needs a \(size)-byte header")
        }
        return body.lowerBound
    }

    /// The attributes (`rtattr`: length, type, value, padded to 4 bytes) in `range`, as their type
    /// (without the nested and byte-order flag bits) and the range of their value.
    static func attributes(_ bytes: [UInt8], _ range: Range<Int>) throws(NetlinkParseError) -> [(UInt16, Range<Int>)] {
        var found: [(UInt16, Range<Int>)] = []
        var offset = range.lowerBound
        while range.upperBound - offset >= Netlink.Size.attribute {
            let length = Int(bytes.hostUInt16(at: offset))
            guard length >= Netlink.Size.attribute, length <= range.upperBound - offset else {
                throw .malformed(offset: offset, reason: "an attribute claims \(length) bytes")
            }
            let type = bytes.hostUInt16(at: offset + 2) & Netlink.attributeTypeMask
            found.append((type, (offset + Netlink.Size.attribute)..<(offset + length)))
            offset += aligned(length)
        }
        return found
    }

    /// A NUL-terminated string attribute.
    private static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Rounds up to netlink's 4-byte alignment (`NLMSG_ALIGN`, `RTA_ALIGN`).
    static func aligned(_ length: Int) -> Int { (length + 3) & ~3 }
}

extension [UInt8] {
    /// The host-order 16-bit integer at `offset`; the caller has checked that two bytes are there.
    func hostUInt16(at offset: Int) -> UInt16 {
        UInt16(littleEndian: UInt16(self[offset]) | UInt16(self[offset + 1]) << 8)
    }

    /// The host-order 32-bit integer at `offset`; the caller has checked that four bytes are there.
    func hostUInt32(at offset: Int) -> UInt32 {
        let value = (0..<4).reduce(UInt32(0)) { $0 | UInt32(self[offset + $1]) << (8 * $1) }
        return UInt32(littleEndian: value)
    }

    /// Appends a host-order 16-bit integer.
    mutating func appendHost(_ value: UInt16) {
        let little = value.littleEndian
        append(contentsOf: [UInt8(truncatingIfNeeded: little), UInt8(truncatingIfNeeded: little >> 8)])
    }

    /// Appends a host-order 32-bit integer.
    mutating func appendHost(_ value: UInt32) {
        let little = value.littleEndian
        append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: little >> (8 * $0)) })
    }
}
