import Foundation
import SluiceTesting
import Testing

@testable import Sluice

/// The memory and disk stores: bounds in bytes, least recently used out, restarts, damaged files
/// and two clients on one directory.
@Suite("Cache stores")
struct CacheStoreTests {
    static func entry(_ path: String, bodySize: Int = 1000, variant: String? = nil) -> CacheEntry {
        CacheEntry(
            primaryKey: "GET http://example.com\(path)",
            variant: variant.map { [CacheEntry.VaryField(name: "accept-language", value: $0)] } ?? [],
            status: 200, headers: ["Cache-Control": "max-age=60"], httpVersion: .http1_1,
            body: Data(repeating: 7, count: bodySize), requestTime: Date(timeIntervalSince1970: 1),
            responseTime: Date(timeIntervalSince1970: 2))
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cache-\(UUID())")
    }

    func evictsTheLeastRecentlyUsed(_ store: any CacheStore, capacity: Int) {
        for path in ["/1", "/2", "/3"] { store.store(Self.entry(path)) }
        _ = store.entries(for: Self.entry("/1").primaryKey)
        store.store(Self.entry("/4"))
        store.flush()
        #expect(store.entries(for: Self.entry("/1").primaryKey).count == 1, "used lately, kept")
        #expect(store.entries(for: Self.entry("/2").primaryKey).isEmpty, "least recently used, evicted")
        #expect(store.entries(for: Self.entry("/4").primaryKey).count == 1)
        #expect(store.byteCount <= capacity)
    }

    @Test func theMemoryStoreEvictsTheLeastRecentlyUsed() {
        let capacity = Self.entry("/1").cost * 3
        evictsTheLeastRecentlyUsed(MemoryCacheStore(capacity: capacity), capacity: capacity)
    }

    @Test func theDiskStoreEvictsTheLeastRecentlyUsed() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let capacity = Self.entry("/1").encoded().count * 3
        evictsTheLeastRecentlyUsed(try DiskCacheStore(directory: directory, capacity: capacity), capacity: capacity)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 3)
    }

    @Test func anEntryLargerThanTheCapacityIsNotStored() {
        let store = MemoryCacheStore(capacity: 100)
        store.store(Self.entry("/big"))
        #expect(store.byteCount == 0)
    }

    @Test func variantsAreStoredApart() {
        let store = MemoryCacheStore(capacity: 1 << 20)
        store.store(Self.entry("/v", variant: "en"))
        store.store(Self.entry("/v", variant: "fr"))
        store.store(Self.entry("/v", variant: "fr"))
        #expect(store.entries(for: Self.entry("/v").primaryKey).count == 2)
        store.remove(Self.entry("/v").primaryKey)
        #expect(store.entries(for: Self.entry("/v").primaryKey).isEmpty)
        #expect(store.byteCount == 0)
    }

    @Test func theDiskStoreSurvivesARestart() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let store = try DiskCacheStore(directory: directory, capacity: 1 << 20)
            store.store(Self.entry("/kept"))
            store.flush()
        }
        let reopened = try DiskCacheStore(directory: directory, capacity: 1 << 20)
        #expect(reopened.entries(for: Self.entry("/kept").primaryKey) == [Self.entry("/kept")])
        #expect(reopened.byteCount == Self.entry("/kept").encoded().count)
    }

    /// Every way a file can be damaged: cut short at several points, a byte flipped in the header
    /// and in the body, bytes appended, emptied. Each is a miss, and the file is removed.
    @Test(arguments: [
        "truncated-1", "truncated-header", "truncated-half", "flipped-magic", "flipped-body", "appended", "empty",
    ])
    func aDamagedFileIsAMissAndIsRemoved(damage: String) throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let entry = Self.entry("/damaged")
        do {
            let store = try DiskCacheStore(directory: directory, capacity: 1 << 20)
            store.store(entry)
            store.flush()
        }
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: directory.path).first)
        let file = directory.appendingPathComponent(name)
        var bytes = try Data(contentsOf: file)
        switch damage {
        case "truncated-1": bytes.removeLast()
        case "truncated-header": bytes = bytes.prefix(10)
        case "truncated-half": bytes = bytes.prefix(bytes.count / 2)
        case "flipped-magic": bytes[0] ^= 0xFF
        case "flipped-body": bytes[bytes.count - 10] ^= 0x01
        case "appended": bytes.append(contentsOf: [1, 2, 3])
        default: bytes = Data()
        }
        try bytes.write(to: file)
        let reopened = try DiskCacheStore(directory: directory, capacity: 1 << 20)
        #expect(reopened.entries(for: entry.primaryKey).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: file.path), "the damaged file is removed")
        #expect(reopened.byteCount == 0)
    }

    @Test func twoClientsShareOneDirectoryThroughTheirRequests() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server, transport in
            server.script("/shared", reply("shared", ("Cache-Control", "max-age=600")))
            func client() throws -> Client {
                var configuration = Client.Configuration()
                configuration.cache = try HTTPCache(directory: directory, capacity: 1 << 20)
                return try Client(
                    baseURL: server.baseURL.absoluteString, configuration: configuration, transport: transport)
            }
            let first = try client()
            let second = try client()
            let url = server.url(for: .scripted(path: "/shared")).absoluteString
            _ = try await first.get(url).value
            let answer = try await second.get(url).value
            #expect(answer.source == .cache)
            #expect(server.requests(to: "/shared").count == 1)
        }
    }

    @Test func twoStoresOnOneDirectoryWritingAtOnceKeepOneBudget() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = Self.entry("/0").encoded().count
        let stores = [
            try DiskCacheStore(directory: directory, capacity: size * 20),
            try DiskCacheStore(directory: directory, capacity: size * 20),
        ]
        await withTaskGroup(of: Void.self) { group in
            for (index, store) in stores.enumerated() {
                group.addTask {
                    for number in 0..<100 {
                        let entry = Self.entry("/\(number % 40)", variant: "\(index)")
                        store.store(entry)
                        for found in store.entries(for: entry.primaryKey) { #expect(found.body.count == 1000) }
                    }
                }
            }
        }
        for store in stores { store.flush() }
        #expect(stores[0].byteCount <= size * 20)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".entry")
        }
        let bytes = try files.reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(
                atPath: directory.appendingPathComponent(name).path)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
        #expect(files.count <= 21)
        #expect(bytes == stores[1].byteCount, "the shared index counts exactly the files there are")
    }

    @Test func aDiskCacheAnswersAClientAfterARestart() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await withServer { server, transport in
            server.script("/r", reply("persisted", ("Cache-Control", "max-age=600")))
            let url = server.url(for: .scripted(path: "/r")).absoluteString
            func send() async throws -> Response {
                var configuration = Client.Configuration()
                let cache = try HTTPCache(directory: directory, capacity: 1 << 20)
                configuration.cache = cache
                let client = try Client(configuration: configuration, transport: transport)
                defer { cache.flush() }
                return try await client.get(url).value
            }
            let first = try await send()
            let second = try await send()
            #expect(first.source == .network)
            #expect(second.source == .cache)
            #expect(server.requests(to: "/r").count == 1)
        }
    }

    @Test func theDiskFormatRoundTrips() {
        var entry = Self.entry("/round", variant: nil)
        entry.variant = [.init(name: "accept", value: nil), .init(name: "x", value: "")]
        entry.headers.add(name: "Set-Cookie", value: "a=1")
        entry.headers.add(name: "Set-Cookie", value: "b=2")
        let bytes = entry.encoded()
        #expect(bytes.withUnsafeBytes { CacheEntry(decoding: $0) } == entry)
    }
}
