import Foundation
import Sluice
import SluiceTesting

/// Step: cookies. Every client keeps the cookies servers set and sends them back, as a browser
/// does; a jar saved to a file (Netscape format, mode 0600) brings a login back in the next run.
enum CookiesTour {
    static func run(baseURL: String) async throws {
        Tour.step("Cookies: a jar that lasts across runs")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tour-cookies.txt")
        defer { try? FileManager.default.removeItem(at: file) }

        // The first run: the server sets a cookie; the jar keeps it, and saves it to a file.
        let jar = CookieJar()
        _ = try? jar.load(from: file)  // nothing there yet
        var configuration = Client.Configuration()
        configuration.cookies = jar
        let client = try Client(baseURL: baseURL, configuration: configuration)
        _ = try await client.get("cookies/set", parameters: ["session": "s3cret"]).validate().value
        try jar.save(to: file, includingSessionCookies: true)
        print("  saved \(jar.all.map(\.description)) to \(file.lastPathComponent)")

        // The next run: a new jar loaded from the file, and the server sees the cookie again.
        let restored = CookieJar()
        let count = try restored.load(from: file)
        configuration.cookies = restored
        let again = try Client(baseURL: baseURL, configuration: configuration)
        let seen = try await again.get("cookies").validate().string().value
        print("  loaded \(count) cookie; the server got \(seen)")
    }
}
