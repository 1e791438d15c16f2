import Foundation
import Sluice

/// The exchanges a `RecordingTransport` recorded, as its file holds them (JSON), for a
/// `ReplayTransport` to play back.
public struct Recording: Codable, Sendable, Equatable {
    /// The version of the file's format: 1.
    public var version = 1
    /// The exchanges, in the order they ended.
    public var exchanges: [RecordedExchange]

    /// A recording of `exchanges`.
    public init(exchanges: [RecordedExchange]) {
        self.exchanges = exchanges
    }

    /// Reads a recording; fails with `.serializationFailed` naming the file.
    public init(contentsOf url: URL) throws(SluiceError) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw SluiceError(.invalidBody, "The recording \(url.path) could not be read.", underlyingError: error)
        }
        do {
            self = try JSONDecoder().decode(Recording.self, from: data)
        } catch {
            throw SluiceError(
                .serializationFailed, "The recording \(url.path) is not a recording of exchanges: \(error)",
                underlyingError: error)
        }
        guard version == 1 else {
            throw SluiceError(.serializationFailed, "The recording \(url.path) has version \(version); 1 is known.")
        }
    }

    /// Writes the recording to `url`, whole or not at all; fails with `.fileWriteFailed`.
    public func write(to url: URL) throws(SluiceError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try encoder.encode(self).write(to: url, options: .atomic)
        } catch {
            throw SluiceError(
                .fileWriteFailed, "The recording \(url.path) could not be written.", underlyingError: error)
        }
    }
}

/// One request and the response it got.
public struct RecordedExchange: Codable, Sendable, Equatable {
    /// The method.
    public var method: String
    /// The URL, its secrets redacted (and matched redacted).
    public var url: String
    /// The request's header fields, secrets redacted (not matched).
    public var requestHeaders: [[String]]
    /// The request's body, in base64 (matched).
    public var requestBody: String
    /// The response's status.
    public var status: Int
    /// The response's header fields, secrets redacted.
    public var responseHeaders: [[String]]
    /// The response's body, in base64.
    public var responseBody: String

    /// What a request is matched by: its method, redacted URL and body.
    var key: MatchKey { MatchKey(method: method, url: url, body: requestBody) }
}

/// What a request is matched on.
struct MatchKey: Hashable {
    let method: String
    let url: String
    /// The body in base64.
    let body: String
}

extension HTTPHeaders {
    /// The fields as `[name, value]` pairs, the recording's form.
    var pairs: [[String]] { map { [$0.name, $0.value] } }

    /// The fields of `[name, value]` pairs (others are skipped).
    init(pairs: [[String]]) {
        self.init(pairs.compactMap { $0.count == 2 ? Field(name: $0[0], value: $0[1]) : nil })
    }
}
