import Foundation
import Sluice

/// Step 2: requests are cold producers; parameters are encoded as AFNetworking did.
enum FirstRequests {
    /// A user, as an API would send it.
    struct NewUser: Codable, Sendable {
        let name: String
        let teams: [String]
    }

    static func run(_ client: Client) async throws {
        Tour.step("GET with nested parameters: dictionaries as key[sub], arrays as key[], escaped per RFC 3986")
        let parameters: Parameters = [
            "filter": ["team": "core", "since": 2024], "expand": ["owner", "members"], "q": "a&b 🚀",
        ]
        let get = client.get("echo", parameters: parameters)
        // Nothing has been sent yet: `get` is a recipe. `value` starts it and awaits the response.
        let response = try await get.value
        let echo = try JSONDecoder().decode(Echo.self, from: response.body)
        print("  \(response.status) \(echo.method) \(echo.path)?\(echo.query ?? "")")

        Tour.step("POST an Encodable value as JSON")
        let created = try await client.post("echo", json: NewUser(name: "Ada", teams: ["core"])).value
        let echoed = try JSONDecoder().decode(Echo.self, from: created.body)
        print("  \(created.status) \(echoed.method), body \(echoed.body ?? "")")

        Tour.step("Every request prints as an equivalent curl command (the Authorization value is redacted)")
        let request = try client.makeRequest(
            .post, "echo", parameters: ["name": "Ada"], headers: ["Authorization": "Bearer secret"])
        print("  " + request.curlDescription)

        Tour.step("4xx and 5xx are responses until validated; transport failures are typed errors")
        let teapot = try await client.get("status/418").value
        print("  status/418 → \(teapot.status)")
        do {
            _ = try await client.get("http://127.0.0.1:1/").value
        } catch {
            print("  \(error.code): \(error.message)")
        }
    }

    /// The parts of MockServer's echo reply the tour prints.
    struct Echo: Decodable {
        let method: String
        let path: String
        let query: String?
        let body: String?
    }
}
