internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// The headers a client sends on every request unless told otherwise: `Accept-Encoding`,
/// `Accept-Language` and `User-Agent`, worked out from libcurl, the process's locale and the system.
///
/// Every value is ASCII, so it is a valid header value whatever the locale or host names are.
public enum DefaultHeaders {
    /// The three headers, in the order `Accept-Encoding`, `Accept-Language`, `User-Agent`.
    ///
    /// `Accept-Encoding` names what libcurl decodes, which it only does when
    /// `RequestOptions.decompress` is on (the default); with it off, leave that header out.
    public static var all: HTTPHeaders {
        HTTPHeaders([
            ("Accept-Encoding", acceptEncoding),
            ("Accept-Language", acceptLanguage),
            ("User-Agent", userAgent),
        ])
    }

    /// The content codings the linked libcurl can decode, e.g. `gzip, deflate, br, zstd`.
    public static var acceptEncoding: String { cachedAcceptEncoding }

    /// The process's preferred languages with decreasing q-values, e.g. `en-US, en;q=0.9`.
    ///
    /// On Linux the locale environment (`LANGUAGE`, then `LC_ALL`, `LC_MESSAGES`, `LANG`) is the
    /// source, because Foundation's `Locale.preferredLanguages` does not read it there (and asking
    /// it loads some 4 MB of ICU data for nothing); with no locale set, the value is `en`. On
    /// Apple platforms `Locale.preferredLanguages` comes first.
    public static var acceptLanguage: String { acceptLanguage(for: preferredLanguages()) }

    /// An `Accept-Language` value for `languages`, most preferred first: each language's primary
    /// subtag is added after its regional forms when missing, at most 6 are kept, and q decreases
    /// by 0.1 from 1 (`en-US, en;q=0.9, fr;q=0.8`); no usable language gives `en`.
    public static func acceptLanguage(for languages: [String]) -> String {
        let tags = languages.compactMap(languageTag)
        var expanded: [String] = []
        for (index, tag) in tags.enumerated() {
            expanded.append(tag)
            let primary = String(tag.prefix { $0 != "-" })
            let nextPrimary = index + 1 < tags.count ? String(tags[index + 1].prefix { $0 != "-" }) : nil
            let listed = tags.contains { $0.caseInsensitiveEquals(primary) }
            if primary != tag, !listed, !(nextPrimary?.caseInsensitiveEquals(primary) ?? false) {
                expanded.append(primary)
            }
        }
        var unique: [String] = []
        for tag in expanded where !unique.contains(where: { $0.caseInsensitiveEquals(tag) }) { unique.append(tag) }
        guard !unique.isEmpty else { return "en" }
        return unique.prefix(6).enumerated().map { index, tag in
            index == 0 ? tag : "\(tag);q=0.\(10 - index)"
        }.joined(separator: ", ")
    }

    /// Names the program, Sluice and the system, e.g. `myapp Sluice/0.1.0 (Linux; Debian 12)`, in
    /// ASCII only; the kernel's release stands for the system when no distribution is known
    /// (`myapp Sluice/0.1.0 (Linux 6.1.0)`).
    ///
    /// Short on purpose: it goes with every request, and libcurl 7.88.1 formats header lines a
    /// character at a time, about 90 instructions a byte on every request. The hardware and the
    /// libcurl version, 23 bytes that servers rarely need and that help fingerprint a client, are
    /// left out.
    public static var userAgent: String { cachedUserAgent }

    // MARK: Locale

    /// The preferred language tags, from the sources in the order `acceptLanguage` describes.
    static func preferredLanguages() -> [String] {
        #if canImport(Darwin)
            let languages = Locale.preferredLanguages
            return languages.isEmpty ? languages(fromEnvironment: localeEnvironment()) : languages
        #else
            return languages(fromEnvironment: localeEnvironment())
        #endif
    }

    /// The four locale variables `languages(fromEnvironment:)` reads, each with `getenv`:
    /// `ProcessInfo.environment` would copy the whole environment into a dictionary, and its code
    /// pages stay resident in a process that may never use them otherwise.
    private static func localeEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }

    /// Language tags from POSIX locale variables: `LANGUAGE`'s list when a locale is set, else the
    /// locale of `LC_ALL`, `LC_MESSAGES` or `LANG`; none for the C and POSIX locales.
    static func languages(fromEnvironment environment: [String: String]) -> [String] {
        let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let locale, let tag = languageTag(locale) else { return [] }
        let list = (environment["LANGUAGE"] ?? "").split(separator: ":").compactMap { languageTag(String($0)) }
        return list.isEmpty ? [tag] : list
    }

    /// A BCP 47 tag from a POSIX locale name or a tag (`de_DE.UTF-8@euro` gives `de-DE`); nil for
    /// `C`, `POSIX` or anything that is not letters, digits and separators.
    static func languageTag(_ name: String) -> String? {
        // Not `replacingOccurrences(of:with:)`: it goes through NSString, whose code stays resident.
        let base = String(name.prefix { $0 != "." && $0 != "@" }.map { $0 == "_" ? "-" : $0 })
        guard base != "C", base != "POSIX", !base.isEmpty else { return nil }
        let subtags = base.split(separator: "-", omittingEmptySubsequences: false)
        let valid = subtags.allSatisfy { subtag in
            (1...8).contains(subtag.utf8.count) && subtag.utf8.allSatisfy { $0 < 0x80 && isAlphanumeric($0) }
        }
        return valid ? base : nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    // MARK: Encoding

    private static let cachedAcceptEncoding: String = {
        guard let info = sluice_version_info() else { return "identity" }
        let features = info.pointee.features
        // Appended to one string rather than joined from an array: the transport asks for this on
        // its first request, and the array and `joined` code would stay resident for nothing else.
        var codings = ""
        func add(_ coding: String) { codings += codings.isEmpty ? coding : ", " + coding }
        if features & CURL_VERSION_LIBZ != 0 { add("gzip, deflate") }
        if features & CURL_VERSION_BROTLI != 0 { add("br") }
        if features & CURL_VERSION_ZSTD != 0 { add("zstd") }
        return codings.isEmpty ? "identity" : codings
    }()

    // MARK: User agent

    private static let cachedUserAgent: String = {
        let system = SystemDescription.current()
        // No version for the executable: a Linux program has no bundle to carry one (and Foundation's
        // `Bundle`, which would read it, is not linked).
        return userAgent(executable: ProcessInfo.processInfo.processName, executableVersion: nil, system: system)
    }()

    /// Assembles a `User-Agent` value: product tokens made of token characters, the system in an
    /// ASCII comment without parentheses or backslashes.
    static func userAgent(executable: String, executableVersion: String?, system: SystemDescription) -> String {
        var products: [String] = []
        let name = productToken(executable)
        if !name.isEmpty {
            let version = executableVersion.map(productToken) ?? ""
            products.append(version.isEmpty ? name : "\(name)/\(version)")
        }
        products.append("Sluice/\(SluiceInfo.version)")
        let distribution = system.distribution.map(commentText) ?? ""
        let comment =
            distribution.isEmpty
            ? [commentText("\(system.name) \(system.release)")] : [commentText(system.name), distribution]
        let text = comment.filter { !$0.isEmpty }.joined(separator: "; ")
        if !text.isEmpty { products.append("(\(text))") }
        return products.joined(separator: " ")
    }

    /// `text` in ASCII: transliterated (`Crème` gives `Creme`, `日本` gives `ri ben`), then anything
    /// still outside printable ASCII dropped.
    ///
    /// ASCII text skips the transform, which leaves it unchanged anyway: creating an ICU
    /// transliterator loads its whole registry (Unicode names, locale and normalization data),
    /// some 4 MiB of resident memory for the life of the process, for a `User-Agent` that is
    /// almost always ASCII already.
    static func asciiTransliterated(_ text: String) -> String {
        let latin =
            text.utf8.allSatisfy { $0 < 0x80 }
            ? text : LatinASCIITransliteration.transliterate(text) ?? text
        return String(decoding: latin.utf8.filter { (0x20...0x7E).contains($0) }, as: UTF8.self)
    }

    /// A product token: ASCII, with characters that are not HTTP token characters (or `/`) made `-`.
    private static func productToken(_ text: String) -> String {
        let allowed = Set("!#$%&'*+-.^_`|~".utf8)
        let bytes = asciiTransliterated(text).utf8.map { isAlphanumeric($0) || allowed.contains($0) ? $0 : 0x2D }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Comment text: ASCII, without the parentheses and backslashes that would end or escape it.
    private static func commentText(_ text: String) -> String {
        let bytes = asciiTransliterated(text).utf8.filter { $0 != 0x28 && $0 != 0x29 && $0 != 0x5C }
        return String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
    }
}
