import FoundationEssentials
import Sluice

extension InterfaceKind {
    /// Name prefixes of mobile broadband interfaces: `wwan0`, systemd's `wwp0s20u4i6`, Qualcomm's
    /// `rmnet_data0`, MediaTek's `ccmni0`.
    static let cellularNamePrefixes = ["ww", "rmnet", "ccmni"]

    /// The kind of an interface, from its link message's hardware type, its name and whether it is
    /// known to be wireless.
    ///
    /// The hardware type alone cannot tell Wi-Fi from Ethernet (both are `ARPHRD_ETHER`), nor always
    /// a modem (`ARPHRD_ETHER`, `ARPHRD_NONE` or `ARPHRD_RAWIP` depending on the driver), so names
    /// count too: the kernel's and systemd's naming schemes are stable (`wl*`, `ww*`).
    static func classify(hardwareType: UInt16, name: String, isWireless: Bool) -> InterfaceKind {
        if hardwareType == Netlink.HardwareType.loopback { return .loopback }
        if cellularNamePrefixes.contains(where: name.hasPrefix) || hardwareType == Netlink.HardwareType.rawIP {
            return .cellular
        }
        let radioTypes = [
            Netlink.HardwareType.ieee80211, Netlink.HardwareType.ieee80211Prism,
            Netlink.HardwareType.ieee80211Radiotap,
        ]
        if radioTypes.contains(hardwareType) { return .wifi }
        if hardwareType == Netlink.HardwareType.ethernet {
            return isWireless || name.hasPrefix("wl") ? .wifi : .ethernet
        }
        return .other
    }

    /// Whether sysfs says the interface `name` is wireless (`/sys/class/net/<name>/wireless` or
    /// `phy80211` exists).
    ///
    /// `/sys/class/net` shows the network namespace of whoever mounted `/sys`, which may not be the
    /// monitor's, so this is one hint among others, and only used for the process's own namespace.
    @Sendable
    static func sysfsSaysWireless(_ name: String) -> Bool {
        // A name with a slash or a dot-dot could leave the directory; the kernel allows neither.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return false }
        let directory = "/sys/class/net/\(name)"
        return FileManager.default.fileExists(atPath: "\(directory)/wireless")
            || FileManager.default.fileExists(atPath: "\(directory)/phy80211")
    }
}
