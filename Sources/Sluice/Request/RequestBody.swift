import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// What a request sends as its body.
public enum RequestBody: Sendable {
    /// No body.
    case empty
    /// Bytes in memory.
    case data(Data)
    /// A file, read as it is sent and never loaded whole.
    case file(URL)
    /// Bytes produced on demand, e.g. a multipart form streaming its parts.
    case stream(BodyProvider)

    /// The body's length in bytes, when it is known before sending (nil for an unknown length).
    public var knownLength: Int64? {
        switch self {
        case .empty: return 0
        case .data(let data): return Int64(data.count)
        case .file(let url):
            var status = stat()
            return stat(url.path, &status) == 0 ? Int64(status.st_size) : nil
        case .stream(let provider): return provider.length
        }
    }
}

/// Produces a body's bytes on demand, as many times as the body must be sent (a redirect or a
/// retry starts a new reader from the beginning).
public struct BodyProvider: Sendable {
    /// The total length, if known; an unknown length is sent with chunked transfer encoding.
    public let length: Int64?
    /// Makes a reader positioned at the start of the body.
    public let makeReader: @Sendable () throws -> any BodyReader

    /// Creates a provider.
    public init(length: Int64?, makeReader: @escaping @Sendable () throws -> any BodyReader) {
        self.length = length
        self.makeReader = makeReader
    }

    /// A provider of bytes in memory, of known length.
    public init(data: Data) {
        self.init(length: Int64(data.count)) { DataBodyReader(data) }
    }
}

/// Reads a body's bytes in order. Readers are used from one thread at a time.
public protocol BodyReader: AnyObject {
    /// Copies up to `buffer.count` bytes into `buffer`; returns how many, or 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A reader whose bytes arrive over time from elsewhere (an asynchronous sequence, another
/// thread): when it has none yet, `read(into:)` returns `notReady` instead of blocking, and the
/// transport's thread goes on with other transfers until the reader calls `wake`.
///
/// Only for a request's own body (`RequestBody.stream`), not for a part of a multipart form.
public protocol WakingBodyReader: BodyReader {
    /// Set by the transport before the first read: call it once bytes (or the end) are ready after
    /// a read returned `notReady`. It may be called from any thread, and more often than needed.
    var wake: (@Sendable () -> Void)? { get set }
}

extension WakingBodyReader {
    /// What `read(into:)` returns when no bytes are ready yet.
    public static var notReady: Int { -1 }
}

/// Reads a `Data` value.
final class DataBodyReader: BodyReader {
    private let data: Data
    private var offset = 0

    init(_ data: Data) { self.data = data }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, data.count - offset)
        guard count > 0 else { return 0 }
        data.withUnsafeBytes { bytes in
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// Reads a file with POSIX reads, a buffer at a time.
final class FileBodyReader: BodyReader {
    private let descriptor: Int32

    init(url: URL) throws(SluiceError) {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SluiceError(
                .invalidBody, "Cannot open the body file \(url.path): \(String(cString: strerror(errno))).")
        }
        descriptor = fd
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw SluiceError(.invalidBody, "Reading the body file failed: \(String(cString: strerror(errno))).")
        }
    }

    deinit { close(descriptor) }
}
