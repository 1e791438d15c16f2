import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

@Suite("Streaming bodies with backpressure")
struct ResponseBodyStreamTests {
    @Test func aSlowConsumerSuspendsTheTransferInsteadOfBuffering() async throws {
        try await withServer { server, transport in
            let size = 32 << 20
            let limit = 1 << 20
            var options = RequestOptions()
            options.idleTimeout = .seconds(5)
            let request = try Request(url: server.url(for: .bytes(size)), options: options).prepared()
            var iterator = transport.bodyStream(for: request, bufferLimit: limit).makeAsyncIterator()
            var checksum = MockServer.Checksum()
            var received = 0
            var chunks = 0
            while let chunk = try await iterator.next() {
                checksum.update(chunk)
                received += chunk.count
                chunks += 1
                // A consumer slower than loopback: every few chunks, take a break.
                if chunks % 64 == 0 { try await Task.sleep(for: .milliseconds(2)) }
            }
            #expect(received == size)
            #expect(checksum.value == MockServer.deterministicChecksum(count: size))
            #expect(iterator.head?.status == 200)
            // Without backpressure the whole body would pile up; with it, the buffer stays near the
            // limit (a little over: chunks already in flight when the pause lands still arrive).
            #expect(iterator.peakBufferedBytes <= limit + (2 << 20), "peak \(iterator.peakBufferedBytes)")
        }
    }

    @Test func failuresAreThrownAsSluiceErrors() async throws {
        try await withServer { server, transport in
            var options = RequestOptions()
            options.maximumBodySize = 1 << 20
            let request = try Request(url: server.url(for: .fault(.endlessBody)), options: options).prepared()
            do {
                for try await _ in transport.bodyStream(for: request) {}
                Issue.record("expected a failure")
            } catch let error as SluiceError {
                #expect(error.code == .responseTooLarge)
            }
        }
    }
}

@Suite("Client streams")
struct ClientStreamTests {
    @Test func streamsAsAsyncSequenceAndAsProducer() async throws {
        try await withServer { server, transport in
            let client = try Client(baseURL: server.baseURL.absoluteString, transport: transport)
            var received = Data()
            for try await chunk in try client.stream("bytes/300000").values { received.append(chunk) }
            #expect(received == MockServer.deterministicBytes(count: 300_000))

            let total = try await client.stream("bytes/300000").producer.reduce(0) { $0 + $1.count }.value
            #expect(total == 300_000)
        }
    }

    @Test func anInvalidStreamRequestFailsBeforeSending() throws {
        let client = try Client(baseURL: "http://127.0.0.1:1/", transport: StubTransport(reply: .never))
        #expect(throws: SluiceError.self) { try client.stream("x", headers: ["X-Bad": "a\nb"]) }
    }
}
