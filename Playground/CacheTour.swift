import Foundation
import Sluice

/// Step: a private HTTP cache on disk. The second GET is answered from the cache without the
/// network; a request may ask for the network anyway (`.reload`) or for the cache only.
enum CacheTour {
    static func run(baseURL: String) async throws {
        Tour.step("An HTTP cache on disk: fresh responses answer without the network")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour-cache")
        var configuration = Client.Configuration()
        configuration.cache = try HTTPCache(directory: directory, capacity: 10 << 20)
        let client = try Client(baseURL: baseURL, configuration: configuration)

        let path = "response-headers?Cache-Control=max-age%3D60&ETag=%22v1%22"
        for attempt in 1...2 {
            let response = try await client.get(path).value
            print("  GET #\(attempt): \(response.status) from the \(response.source)")
        }

        var request = try client.makeRequest(.get, path)
        request.options.cachePolicy = .reload
        print("  with .reload: from the \(try await client.send(request).value.source)")

        request.options.cachePolicy = .onlyIfCached
        request.url = try client.url(for: "never-fetched")
        do {
            _ = try await client.send(request).value
        } catch {
            print("  .onlyIfCached with nothing stored: \(error.code), nothing sent")
        }
        configuration.cache?.removeAll()
    }
}
