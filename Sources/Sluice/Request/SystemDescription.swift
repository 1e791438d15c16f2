import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What `DefaultHeaders.userAgent` says about the system: the kernel from `uname` and the
/// distribution from `os-release`.
struct SystemDescription: Sendable, Equatable {
    /// The kernel's name, e.g. `Linux`.
    var name: String
    /// The kernel's version without the vendor's suffix, e.g. `6.1.0` for `6.1.0-18-amd64`.
    var release: String
    /// The distribution's name and version, e.g. `Debian 12`, when the system says.
    var distribution: String?

    /// The running system's description.
    static func current() -> SystemDescription {
        var names = utsname()
        guard uname(&names) == 0 else {
            return SystemDescription(name: "Linux", release: "", distribution: nil)
        }
        let osRelease = ["/etc/os-release", "/usr/lib/os-release"].lazy
            .compactMap { try? String(contentsOfFile: $0, encoding: .utf8) }.first
        return SystemDescription(
            name: field(&names.sysname),
            release: shortRelease(field(&names.release)),
            distribution: osRelease.flatMap(distribution(fromOSRelease:)))
    }

    /// The leading dotted numbers of a kernel release: `6.1.0-18-amd64` gives `6.1.0`.
    static func shortRelease(_ release: String) -> String {
        let numeric = release.prefix { $0 == "." || ("0"..."9").contains($0) }
        return numeric.isEmpty ? release : String(numeric)
    }

    /// `NAME` (without a trailing ` GNU/Linux`, or `ID` when there is no name) and `VERSION_ID`
    /// from the contents of an os-release file, e.g. `Debian 12`.
    static func distribution(fromOSRelease contents: String) -> String? {
        var values: [String: String] = [:]
        for line in contents.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingWhitespace()
            guard !key.hasPrefix("#") else { continue }
            values[key] = unquoted(parts[1].trimmingWhitespace())
        }
        var name = values["NAME"] ?? values["ID"] ?? ""
        if name.hasSuffix(" GNU/Linux") { name.removeLast(" GNU/Linux".count) }
        let text = [name, values["VERSION_ID"] ?? ""].filter { !$0.isEmpty }.joined(separator: " ")
        return text.isEmpty ? nil : text
    }

    /// A shell-style value without its quotes, backslash escapes resolved in double quotes.
    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first else {
            return value
        }
        let inner = value.dropFirst().dropLast()
        guard first == "\"" else { return String(inner) }
        var result = ""
        var escaping = false
        for character in inner {
            if character == "\\" && !escaping {
                escaping = true
                continue
            }
            result.append(character)
            escaping = false
        }
        return result
    }

    /// A NUL-terminated `utsname` field as a string.
    private static func field<T>(_ value: inout T) -> String {
        withUnsafeBytes(of: &value) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
