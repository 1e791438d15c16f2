import FoundationEssentials
import Sluice
import Synchronization

/// Records what a client sent and received, one HAR entry per transfer (each retry and redirect
/// hop is one), for browsers' developer tools and HAR viewers to open.
///
///     let recorder = HARRecorder(bodies: true)
///     let client = Client(transport: recorder.transport(wrapping: CurlTransport()))
///     _ = try await client.get("users").value
///     try recorder.write(to: URL(filePath: "session.har"))
///
/// It records at the transport, so an entry shows the request as it went out (default headers,
/// credentials) with libcurl's timings. The values of credential headers, the URL's password and
/// secret query items are redacted (`Redaction.default`); bodies are left out unless asked for.
public final class HARRecorder: Sendable {
    /// Whether bodies are recorded (up to `bodyLimit` bytes each).
    public let bodies: Bool
    /// The most bytes of a body recorded; a longer body is left out, with its size.
    public let bodyLimit: Int
    /// What is left out of URLs and headers.
    public let redaction: Redaction
    private let recorded = Lock<[HAREntry]>([])

    /// A recorder, of bodies too when `bodies` is true.
    public init(bodies: Bool = false, bodyLimit: Int = 1 << 20, redaction: Redaction = .default) {
        self.bodies = bodies
        self.bodyLimit = bodyLimit
        self.redaction = redaction
    }

    /// A transport that sends through `transport` and records each transfer here.
    public func transport(wrapping transport: any Transport) -> any Transport {
        HARRecordingTransport(inner: transport, recorder: self)
    }

    /// The entries so far, in the order their transfers ended.
    public var entries: [HAREntry] { recorded.withLock { $0 } }

    /// Forgets the entries so far.
    public func reset() { recorded.withLock { $0.removeAll() } }

    /// The HAR document of the entries so far, sorted by start.
    public var document: HARDocument {
        let entries = self.entries.sorted { $0.startedDateTime < $1.startedDateTime }
        return HARDocument(log: HARLog(entries: entries))
    }

    /// The document as JSON.
    public func data() throws(SluiceError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document)
        } catch {
            throw SluiceError(.serializationFailed, "The HAR document could not be encoded.", underlyingError: error)
        }
    }

    /// Writes the document to `url`, whole or not at all (through a temporary file renamed into
    /// place); fails with `.fileWriteFailed`.
    public func write(to url: URL) throws(SluiceError) {
        let data = try self.data()
        do {
            try data.write(to: url, options: .atomic)
        } catch {
            throw SluiceError(
                .fileWriteFailed, "The HAR file \(url.path) could not be written.", underlyingError: error)
        }
    }

    /// Adds the entry of one transfer.
    func record(_ entry: HAREntry) {
        recorded.withLock { $0.append(entry) }
    }
}
