internal import CCurl
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Digests bytes with OpenSSL's EVP functions, looked up in the OpenSSL libcurl loaded (Sluice
/// links no crypto library of its own; see `sluice_openssl_digest_lookup`).
enum FileDigest {
    private static let openssl = sluice_openssl_digest_lookup()
    /// How much of a file is read at a time.
    private static let readSize = 1 << 20

    /// The digest of the file at `url`.
    static func digest(_ algorithm: ExpectedDigest.Algorithm, ofFile url: URL) throws(SluiceError) -> Data {
        let descriptor = url.withUnsafeFileSystemRepresentation { path in
            path.map { open($0, O_RDONLY | O_CLOEXEC) } ?? -1
        }
        guard descriptor >= 0 else {
            throw SluiceError(
                .fileWriteFailed, "Cannot read \(url.path) to digest it: \(String(cString: strerror(errno))).")
        }
        defer { close(descriptor) }
        var failure: SluiceError?
        let result = try digest(algorithm) { update in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = read(descriptor, buffer.baseAddress, readSize)
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = SluiceError(
                        .fileWriteFailed,
                        "Reading \(url.path) to digest it failed: \(String(cString: strerror(errno))).")
                    return
                }
                if count == 0 { return }
                update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
        }
        if let failure { throw failure }
        return result
    }

    /// The digest of `data`.
    static func digest(_ algorithm: ExpectedDigest.Algorithm, of data: Data) throws(SluiceError) -> Data {
        try digest(algorithm) { update in data.withUnsafeBytes { update($0) } }
    }

    /// Runs `feed`, which hands every piece of the input to its argument, through a digest context.
    private static func digest(
        _ algorithm: ExpectedDigest.Algorithm, _ feed: ((UnsafeRawBufferPointer) -> Void) -> Void
    ) throws(SluiceError) -> Data {
        guard let byName = openssl.digest_by_name, let new = openssl.context_new, let initialize = openssl.initialize,
            let update = openssl.update, let final = openssl.final, let free = openssl.context_free,
            let method = algorithm.rawValue.withCString({ byName($0) }), let context = new()
        else {
            throw SluiceError(
                .digestUnavailable,
                "OpenSSL's \(algorithm.rawValue) is not available in this process (libcurl uses another TLS library).")
        }
        defer { free(context) }
        guard initialize(context, method, nil) == 1 else {
            throw SluiceError(.digestUnavailable, "OpenSSL could not start a \(algorithm.rawValue) digest.")
        }
        var updated = true
        feed { bytes in
            if updated, let base = bytes.baseAddress, !bytes.isEmpty {
                updated = update(context, base, bytes.count) == 1
            }
        }
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard updated, final(context, &output, &length) == 1 else {
            throw SluiceError(.digestUnavailable, "OpenSSL failed to compute a \(algorithm.rawValue) digest.")
        }
        return Data(output.prefix(Int(length)))
    }
}
