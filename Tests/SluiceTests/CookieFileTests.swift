import Foundation
import Sluice
import SluiceTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Cookie files in the Netscape format: saved atomically with mode 0600, loaded back into a jar
/// that a client then sends from; files curl writes are read; a line that is not a cookie is an
/// error naming it, and nothing of that file is added.
@Suite("Cookie files")
struct CookieFileTests {
    private func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cookies-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try body(directory)
    }

    private func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cookies-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    private let persistent = Cookie(
        name: "id", value: "42", domain: "example.test", includesSubdomains: true, path: "/app", isSecure: true,
        isHTTPOnly: true, expires: Date(timeIntervalSince1970: 4_102_444_800))
    private let session = Cookie(name: "visit", value: "", domain: "127.0.0.1")

    @Test func aSavedJarLoadsBackTheSame() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("cookies.txt")
            let jar = CookieJar()
            try jar.add(persistent)
            try jar.add(session)
            try jar.save(to: file)

            var status = stat()
            #expect(stat(file.path, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o600)
            // Nothing but the file is left beside it.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["cookies.txt"])
            let text = try String(contentsOf: file, encoding: .utf8)
            #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
            #expect(text.contains("#HttpOnly_.example.test\tTRUE\t/app\tTRUE\t4102444800\tid\t42\n"))

            let loaded = CookieJar()
            #expect(try loaded.load(from: file) == 1)
            #expect(loaded.all == [persistent])

            // Session cookies only when asked.
            try jar.save(to: file, includingSessionCookies: true)
            let all = CookieJar()
            #expect(try all.load(from: file) == 2)
            #expect(Set(all.all) == [persistent, session])
        }
    }

    @Test func aLoadedJarIsSentByAClient() async throws {
        try await withServer { server, transport in
            try await withDirectory { directory in
                let file = directory.appendingPathComponent("jar.txt")
                try Data(
                    """
                    # Netscape HTTP Cookie File
                    # https://curl.se/docs/http-cookies.html

                    127.0.0.1\tFALSE\t/\tFALSE\t0\tsaved\tyes
                    127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tlasting\t1\r
                    127.0.0.1\tFALSE\t/\tFALSE\t1000\told\tgone

                    """.utf8
                ).write(to: file)
                let jar = CookieJar()
                #expect(try jar.load(from: file) == 2)
                var configuration = Client.Configuration()
                configuration.cookies = jar
                let client = try Client(configuration: configuration, transport: transport)
                _ = try await client.get(server.url(for: .echo).absoluteString).value
                #expect(server.recordedRequests.last?.headers["Cookie"] == "lasting=1; saved=yes")
            }
        }
    }

    @Test(arguments: [
        ("example.test\tFALSE\t/\tFALSE\t0", 1),
        ("# a comment\nexample.test\tMAYBE\t/\tFALSE\t0\tn\tv", 2),
        ("example.test\tFALSE\t/\tFALSE\tsoon\tn\tv", 1),
        ("\n\nexample.test\tFALSE\t/\tFALSE\t0\tn\tv\textra", 3),
        ("example.test\tFALSE\tnot-a-path\tFALSE\t0\tn\tv", 1),
        ("a line that is no cookie", 1),
    ])
    func aLineThatIsNotACookieIsNamed(text: String, line: Int) throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("bad.txt")
            try Data(("127.0.0.1\tFALSE\t/\tFALSE\t0\tgood\t1\n" + text).utf8).write(to: file)
            let jar = CookieJar()
            #expect {
                try jar.load(from: file)
            } throws: { error in
                let error = error as? SluiceError
                return error?.code == .invalidCookieFile && error?.message.contains("Line \(line + 1) of") == true
            }
            #expect(jar.all.isEmpty, "nothing of a bad file is added")
        }
    }

    @Test func aMissingFileIsAnError() {
        let jar = CookieJar()
        #expect {
            try jar.load(from: URL(fileURLWithPath: "/nonexistent/cookies.txt"))
        } throws: { error in
            (error as? SluiceError)?.code == .invalidCookieFile
        }
    }

    @Test func aFailedSaveLeavesTheOldFile() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("cookies.txt")
            let jar = CookieJar()
            try jar.add(persistent)
            try jar.save(to: file)
            let before = try Data(contentsOf: file)
            // A file in a directory that cannot be written.
            #expect(chmod(directory.path, 0o500) == 0)
            defer { chmod(directory.path, 0o700) }
            if access(directory.path, W_OK) == 0 { return }  // root writes anyway
            try jar.add(session)
            #expect {
                try jar.save(to: file, includingSessionCookies: true)
            } throws: { error in
                (error as? SluiceError)?.code == .fileWriteFailed
            }
            #expect(try Data(contentsOf: file) == before)
        }
    }

    @Test func aSaveIntoAMissingDirectoryFails() {
        let jar = CookieJar()
        #expect {
            try jar.save(to: URL(fileURLWithPath: "/nonexistent-\(UUID())/cookies.txt"))
        } throws: { error in
            (error as? SluiceError)?.code == .fileWriteFailed
        }
    }
}
