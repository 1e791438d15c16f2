/// The entry point for the netlink fuzz target (`Fuzz/`, `make fuzz`): the parser of the kernel's
/// route messages over arbitrary bytes. Not for applications.
package enum SluiceReachabilityFuzzing {
    /// Parses `bytes` as a batch of netlink messages.
    package static func netlink(_ bytes: [UInt8]) {
        _ = try? NetlinkParser.parse(bytes)
    }
}
