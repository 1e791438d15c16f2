import Foundation
import Sluice

/// Step: `request.validate().decode(T.self)`, the pipeline the library is built around.
enum ValidationAndDecoding {
    /// What MockServer's echo route says about a request.
    struct Echo: Decodable, Sendable {
        let method: String
        let path: String
        let queryItems: [String: [String]]
    }

    static func run(_ client: Client) async throws {
        Tour.step(
            "validate().decode(Echo.self): status and content type checked, JSON decoded off the transport thread")
        let echo = try await client.get("echo", parameters: ["team": "core"])
            .validate()
            .decode(Echo.self)
            .value
        print("  decoded: \(echo.method) \(echo.path) \(echo.queryItems)")

        Tour.step("A failed validation keeps the response and its body, so an API's error can be read")
        do {
            _ = try await client.get("status/404").validate().data().value
        } catch {
            print("  \(error.code): \(error.message)")
            // The API's error JSON, decoded from the body the error kept.
            struct APIError: Decodable { let status: Int }
            if let problem = try? error.decodeBody(as: APIError.self) {
                print("  decoded error body: status \(problem.status)")
            }
        }

        Tour.step("Decoding errors name the coding path and show the first bytes")
        struct Wrong: Decodable, Sendable { let method: Int }
        do {
            _ = try await client.get("echo").decode(Wrong.self).value
        } catch {
            print("  \(error.code) at \(error.keyPath ?? "?"): \(error.message.prefix(140))…")
        }
    }
}
