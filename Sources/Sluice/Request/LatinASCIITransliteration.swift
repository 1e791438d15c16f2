#if canImport(Glibc)
    import Glibc
#endif

/// ICU's `Any-Latin; Latin-ASCII` transliteration (`Crème` gives `Creme`, `日本` gives `ri ben`), for
/// the rare default `User-Agent` whose parts are not ASCII.
///
/// Foundation's `applyingTransform` is not in FoundationEssentials, which is all Sluice links, so
/// ICU is called directly: the copy that ships with the Swift runtime on Linux
/// (`lib_FoundationICU.so`), opened with `dlopen` the first time it is needed. Linking it instead
/// would load it (and the C++ runtime it needs) into every process, some 2.5 MiB of resident
/// memory, for text that is almost always ASCII already.
///
/// Where the library cannot be opened (a program linked with a static Swift runtime), the text
/// comes back unchanged, and the caller drops what is not ASCII.
enum LatinASCIITransliteration {
    /// `text` transliterated, or nil when ICU is not available or fails.
    static func transliterate(_ text: String) -> String? {
        guard let icu = ICU.shared else { return nil }
        let identifier = Array("Any-Latin; Latin-ASCII".utf16)
        var status: Int32 = 0
        guard let transliterator = icu.open(identifier, Int32(identifier.count), 0, nil, 0, nil, &status),
            status <= 0
        else { return nil }
        defer { icu.close(transliterator) }
        let source = Array(text.utf16)
        // Transliteration can lengthen the text (`日本` is two units, `ri ben` six): on overflow ICU
        // reports the length it needs, and the work is done again with room for it.
        var capacity = max(64, source.count * 4)
        while true {
            var units = source + [UInt16](repeating: 0, count: capacity - source.count)
            var length = Int32(source.count)
            var limit = length
            status = 0
            icu.transliterate(transliterator, &units, &length, Int32(capacity), 0, &limit, &status)
            if status == ICU.bufferOverflow, Int(length) >= capacity {
                capacity = Int(length) + 16
                continue
            }
            guard status <= 0 else { return nil }
            return String(decoding: units[..<Int(length)], as: UTF16.self)
        }
    }

    /// The three ICU C functions used, looked up once (`utrans_openU`, `utrans_transUChars`,
    /// `utrans_close`, under the `swift_` prefix that build of ICU gives its symbols).
    private struct ICU: Sendable {
        typealias Open =
            @convention(c) (
                UnsafePointer<UInt16>?, Int32, Int32, UnsafePointer<UInt16>?, Int32, UnsafeMutableRawPointer?,
                UnsafeMutablePointer<Int32>?
            ) -> OpaquePointer?
        typealias Transliterate =
            @convention(c) (
                OpaquePointer?, UnsafeMutablePointer<UInt16>?, UnsafeMutablePointer<Int32>?, Int32, Int32,
                UnsafeMutablePointer<Int32>?, UnsafeMutablePointer<Int32>?
            ) -> Void
        typealias Close = @convention(c) (OpaquePointer?) -> Void

        /// ICU's `U_BUFFER_OVERFLOW_ERROR`; errors are positive, warnings negative.
        static let bufferOverflow: Int32 = 15

        let open: Open
        let transliterate: Transliterate
        let close: Close

        /// The functions, or nil when the library or one of them is missing.
        static let shared: ICU? = {
            guard let library = dlopen("lib_FoundationICU.so", RTLD_LAZY | RTLD_LOCAL),
                let open = dlsym(library, "swift_utrans_openU"),
                let transliterate = dlsym(library, "swift_utrans_transUChars"),
                let close = dlsym(library, "swift_utrans_close")
            else { return nil }
            return ICU(
                open: unsafeBitCast(open, to: Open.self),
                transliterate: unsafeBitCast(transliterate, to: Transliterate.self),
                close: unsafeBitCast(close, to: Close.self))
        }()
    }
}
