import Sluice

/// Builds the bytes of the requests the monitor sends to the kernel. Pure, like the parser.
enum NetlinkRequest {
    /// The tables the monitor reads whole: one dump each, in this order.
    enum Dump: CaseIterable, Sendable {
        case links
        case addresses
        case routes
    }

    /// A request for every entry of a table, in every address family (`NLM_F_DUMP`).
    static func dump(_ table: Dump, sequence: UInt32) -> [UInt8] {
        switch table {
        case .links:
            // struct ifinfomsg, all zero: any family, any interface.
            return message(type: Netlink.MessageType.getLink, flags: Netlink.Flag.dump, sequence: sequence) {
                $0.append(contentsOf: repeatElement(0, count: Netlink.Size.link))
            }
        case .addresses:
            return message(type: Netlink.MessageType.getAddress, flags: Netlink.Flag.dump, sequence: sequence) {
                $0.append(contentsOf: repeatElement(0, count: Netlink.Size.address))
            }
        case .routes:
            return message(type: Netlink.MessageType.getRoute, flags: Netlink.Flag.dump, sequence: sequence) {
                $0.append(contentsOf: repeatElement(0, count: Netlink.Size.route))
            }
        }
    }

    /// A request for the route the kernel would use to send to `address` (`ip route get`).
    static func route(to address: IPAddress, sequence: UInt32) -> [UInt8] {
        message(type: Netlink.MessageType.getRoute, flags: 0, sequence: sequence) { body in
            var header = [UInt8](repeating: 0, count: Netlink.Size.route)
            header[Netlink.Offset.routeFamily] = address.family
            header[Netlink.Offset.routeDestinationLength] = UInt8(address.bytes.count * 8)
            body.append(contentsOf: header)
            body.appendHost(UInt16(Netlink.Size.attribute + address.bytes.count))
            body.appendHost(Netlink.RouteAttribute.destination)
            body.append(contentsOf: address.bytes)  // 4 or 16 bytes: already aligned
        }
    }

    /// A message: the `nlmsghdr` (length filled in last), then the body `write` appends.
    private static func message(
        type: UInt16, flags: UInt16, sequence: UInt32, _ write: (inout [UInt8]) -> Void
    ) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendHost(UInt32(0))  // length, below
        bytes.appendHost(type)
        bytes.appendHost(Netlink.Flag.request | flags)
        bytes.appendHost(sequence)
        bytes.appendHost(UInt32(0))  // port: 0 lets the kernel fill in ours
        write(&bytes)
        var length: [UInt8] = []
        length.appendHost(UInt32(bytes.count))
        bytes.replaceSubrange(0..<4, with: length)
        return bytes
    }
}
