import FoundationEssentials

/// What an upload sends as its body (see `Client.upload(_:to:method:contentType:headers:modify:)`).
///
///     client.upload(.data(png), to: "users/42/avatar", contentType: "image/png")
///     client.upload(.file(backup), to: "backups", method: .put)   // streamed from disk
///     client.upload(.provider(BodyProvider(length: nil) { try Generator() }), to: "ingest")
///     client.upload(.bytes(asyncChunks), to: "ingest")           // an AsyncSequence of Data
public enum UploadSource: Sendable {
    /// Bytes in memory.
    case data(Data)
    /// A file, read from disk as it is sent, never held in memory; its length is known up front.
    case file(URL)
    /// Bytes made on demand by a reader (a length of nil is sent with chunked transfer encoding);
    /// a redirect or a retry reads it again from the start.
    case provider(BodyProvider)

    /// The bytes an `AsyncSequence` yields, sent as they come, chunked unless `length` is given
    /// (see `BodyProvider.init(bytes:length:)`); read once.
    ///
    ///     let (chunks, input) = AsyncStream.makeStream(of: Data.self)
    ///     client.upload(.bytes(chunks), to: "ingest").start()
    ///     input.yield(Data("first,".utf8)); input.yield(Data("second".utf8)); input.finish()
    public static func bytes<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, length: Int64? = nil) -> UploadSource
    where Bytes.Element == Data {
        .provider(BodyProvider(bytes: bytes, length: length))
    }

    /// The request body this source becomes.
    var body: RequestBody {
        switch self {
        case .data(let data): return .data(data)
        case .file(let url): return .file(url)
        case .provider(let provider): return .stream(provider)
        }
    }
}
