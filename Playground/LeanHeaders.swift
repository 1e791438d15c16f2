import Foundation
import Sluice

/// Step: a client that sends only the headers a request needs. libcurl 7.88.1 formats every header
/// byte one at a time, so on small requests the three default headers cost libcurl more than Sluice
/// adds on top of raw libcurl (Docs/Performance.md, "What limits Sluice").
enum LeanHeaders {
    /// The part of the echo that tells which header lines arrived.
    struct Echo: Decodable, Sendable {
        let headers: [[String]]
    }

    static func run(baseURL: String) async throws {
        Tour.step("A lean client: no default headers and nothing to decode, the request head raw libcurl sends")
        var configuration = Client.Configuration()
        configuration.defaultHeaders = [:]  // no Accept-Encoding, Accept-Language or User-Agent
        configuration.requestOptions.decompress = false  // nothing to decode, so no Accept-Encoding either
        let lean = try Client(baseURL: baseURL, configuration: configuration)

        let echo = try await lean.get("echo").validate().decode(Echo.self).value
        let names = echo.headers.compactMap(\.first)
        print("  the server saw \(names.count) header lines: \(names.joined(separator: ", "))")
    }
}
