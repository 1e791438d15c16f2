import Foundation
import Testing

@testable import Sluice
@testable import SluiceFormats
@testable import SluiceReachability

#if canImport(Glibc)
    import Glibc
#endif

/// A network namespace of its own, made with `ip netns add`, holding one end of a veth pair whose
/// other end stays (up) in the test's namespace so the inner end gets a carrier when it is up.
///
/// `delete()` removes both; call it in a `defer`. Needs root and iproute2 (`isAvailable`).
final class TestNetworkNamespace: Sendable {
    /// The `ip` executable, if iproute2 is installed.
    static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Whether the namespace tests can run: as root, with iproute2.
    static let isAvailable = geteuid() == 0 && ipPath != nil

    /// The namespace's name (`sluice-test-<random>`).
    let name: String
    /// The veth end inside the namespace.
    let interface: String
    /// The veth end outside.
    let peer: String

    /// Creates the namespace and the veth pair; the inner end starts down, with no address.
    init() throws {
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        name = "sluice-test-\(tag)"
        interface = "slt\(tag)i"
        peer = "slt\(tag)o"
        do {
            try ip("netns", "add", name)
            try ip("link", "add", peer, "type", "veth", "peer", "name", interface)
            try ip("link", "set", interface, "netns", name)
            try ip("link", "set", peer, "up")
        } catch {
            delete()
            throw error
        }
    }

    /// The file that names the namespace, for `setns`.
    var path: String { "/run/netns/\(name)" }

    /// Runs `ip -n <namespace> <arguments>`.
    func run(_ arguments: String...) throws {
        try ip(["-n", name] + arguments)
    }

    /// A monitor whose socket lives in this namespace.
    func makeMonitor() -> NetlinkMonitor {
        let path = path
        return NetlinkMonitor(probesSysfs: false) { () throws(SluiceError) in
            try NetlinkSocket.open(groups: Netlink.monitorGroups, inNetworkNamespaceAt: path)
        }
    }

    /// Deletes the namespace (which destroys the inner veth end, and with it the pair); idempotent.
    func delete() {
        try? ip("netns", "delete", name)
        try? ip("link", "delete", peer)  // gone with its peer already, unless the move failed
    }

    private func ip(_ arguments: String...) throws {
        try ip(arguments)
    }

    private func ip(_ arguments: [String]) throws {
        let outcome = try ChildProcess.run(Self.ipPath ?? "ip", arguments)
        guard outcome.termination == .exit(0) else {
            throw NamespaceError(
                command: "ip " + arguments.joined(separator: " "),
                message: String(decoding: outcome.standardError, as: UTF8.self))
        }
    }
}

/// An `ip` command that failed.
struct NamespaceError: Error, CustomStringConvertible {
    let command: String
    let message: String
    var description: String { "\(command) failed: \(message)" }
}

/// Records every value a property takes, from any thread.
final class ReachabilityRecorder<Value: Sendable & Equatable>: Sendable {
    private let storage = Lock<[Value]>([])
    private let observation: (any Disposable)?

    /// Records the property's current value and each change.
    init(_ property: Property<Value>) {
        let storage = self.storage
        observation = property.producer.startWithValues { value in storage.withLock { $0.append(value) } }
    }

    /// Everything recorded so far.
    var values: [Value] { storage.withLock { $0 } }

    deinit { observation?.dispose() }
}

/// Messages from `bytes` with every header's sequence number set to `sequence`.
func resequenced(_ bytes: [UInt8], to sequence: UInt32) -> [UInt8] {
    patchHeaders(bytes) { message, offset in
        var field: [UInt8] = []
        field.appendHost(sequence)
        message.replaceSubrange((offset + 8)..<(offset + 12), with: field)
    }
}

/// Messages from `bytes` with `flags` added to every header's flags.
func flagged(_ bytes: [UInt8], _ flags: UInt16) -> [UInt8] {
    patchHeaders(bytes) { message, offset in
        var field: [UInt8] = []
        field.appendHost(message.hostUInt16(at: offset + 6) | flags)
        message.replaceSubrange((offset + 6)..<(offset + 8), with: field)
    }
}

private func patchHeaders(_ bytes: [UInt8], _ patch: (inout [UInt8], Int) -> Void) -> [UInt8] {
    var patched = bytes
    var offset = 0
    while offset + 16 <= patched.count {
        let length = Int(patched.hostUInt32(at: offset))
        guard length >= 16 else { break }
        patch(&patched, offset)
        offset += NetlinkParser.aligned(length)
    }
    return patched
}
