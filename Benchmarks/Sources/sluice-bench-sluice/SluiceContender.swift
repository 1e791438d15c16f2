import BenchChild
import BenchChildAsync
import Sluice

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Sluice as an application uses it: one `Client` on the shared `CurlTransport` with its default
/// configuration, every request built from a path, validated and serialized (`data()` or
/// `decode(_:)`), and taken with `await .value` or, to keep many in flight, started with `start`
/// and counted on completion. As `E2EClient.sluiceOnTransportExecutor`, the awaiting task prefers
/// the client's task executor; as `E2EClient.sluiceWithoutDefaultHeaders`, the client sends no
/// default headers and decodes nothing; as `E2EClient.sluiceWithAdapter`, the client has one
/// interceptor of the user's, which returns each request as it is; as `E2EClient.sluiceObserved`,
/// something observes the client's `events` for as long as the contender lives; as
/// `E2EClient.sluiceTransport`, the client only makes the request, which goes straight to its
/// transport.
final class SluiceContender: E2EContender {
    private let client: Client
    private let context: E2EContext
    /// The observation of the client's events (`E2EClient.sluiceObserved`).
    private let observation: (any Disposable)?

    init(context: E2EContext) throws {
        switch context.client {
        case .sluiceWithoutDefaultHeaders:
            // The request head the plain C client sends: no Accept-Encoding, Accept-Language or
            // User-Agent line, and nothing to decode.
            var configuration = Client.Configuration()
            configuration.defaultHeaders = [:]
            configuration.requestOptions.decompress = false
            client = try Client(baseURL: context.baseURL, configuration: configuration)
        case .sluiceWithAdapter:
            // An adapter that changes nothing: what it adds is the interceptor chain's own cost.
            client = try Client(baseURL: context.baseURL, interceptors: [.adapt { $0 }])
        default:
            client = try Client(baseURL: context.baseURL)
        }
        // An observer that does nothing with the events: what it adds is the cost of making them.
        observation = context.client == .sluiceObserved ? client.events.observeValues { _ in } : nil
        self.context = context
    }

    deinit { observation?.dispose() }

    func run(_ workload: E2EWorkload, count: Int) -> E2EOutcome {
        let client = self.client
        let context = self.context
        switch workload {
        case .sequential:
            return awaitLoop(count) {
                let data = try await client.get(NginxRoutes.smallPath).validate().data().value
                return data.count == NginxRoutes.smallPayload.utf8.count ? nil : "a body of \(data.count) bytes"
            }
        case .decode:
            return awaitLoop(count) {
                let catalog = try await client.get(NginxRoutes.jsonPath).validate().decode(E2ECatalog.self).value
                return catalog == .sample ? nil : "decoded another document"
            }
        case .parallel where context.client == .sluiceTransport:
            return transferred(count, inFlight: context.inFlight)
        case .parallel:
            return started(
                count, inFlight: context.inFlight, { client.get(NginxRoutes.smallPath) }, check: Self.isSmall)
        case .burst:
            return started(count, inFlight: count, { client.get(NginxRoutes.smallPath) }, check: Self.isSmall)
        case .post:
            return started(count, inFlight: context.inFlight, { Self.post(client) }, check: Self.isOK)
        case .download:
            let destination = context.downloadDestination(.sluice)
            return blockingRun {
                var outcome = await Self.once {
                    var request = try client.makeRequest(.get, NginxRoutes.bigPath)
                    request.options.destination = .file(URL(fileURLWithPath: destination))
                    // The default cap of 256 MiB guards memory; a user downloading a large file
                    // to disk raises it.
                    request.options.maximumBodySize = Int64(context.bulkBytes) * 2
                    let response = try await client.send(request).validate().value
                    return response.fileURL?.path == destination ? nil : "no file URL in the response"
                }
                checkFileSize(destination: destination, expected: context.bulkBytes, &outcome)
                return outcome
            }
        case .upload:
            let source = URL(fileURLWithPath: context.uploadSource)
            return blockingRun {
                var answer = ""
                var outcome = await Self.once {
                    let data = try await client.upload(
                        multipartFormData: { form in form.append(fileURL: source, name: "file") },
                        to: NginxRoutes.uploadPath
                    ).validate().data().value
                    answer = String(decoding: data, as: UTF8.self)
                    return nil
                }
                checkUploadAnswer(answer, bodyBytes: context.bulkBytes, &outcome)
                return outcome
            }
        }
    }

    /// The POST body, made once: a user sends bytes it already holds.
    private static let postPayload = Data(E2EContext.postPayload)

    /// A 1 KiB POST as a user sends raw bytes: a request made by the client, given a body.
    private static func post(_ client: Client) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            var request = try client.makeRequest(
                .post, NginxRoutes.postPath, headers: ["Content-Type": "application/octet-stream"])
            request.body = .data(postPayload)
            return client.send(request)
        } catch {
            return SignalProducer(error: error)
        }
    }

    private static func isSmall(_ data: Data) -> String? {
        data.count == NginxRoutes.smallPayload.utf8.count ? nil : "a body of \(data.count) bytes"
    }

    /// nginx's answer to a POST, made once: `Data`'s `==` compares the bytes in one call, where
    /// `elementsEqual` walked them through two generic iterators (~570 instructions per POST under
    /// callgrind, counted against Sluice).
    private static let okAnswer = Data("ok".utf8)

    private static func isOK(_ data: Data) -> String? {
        data == okAnswer ? nil : "the answer \(String(decoding: data, as: UTF8.self).debugDescription)"
    }

    /// `count` requests awaited one after the other in a task, as async code makes them.
    private func awaitLoop(_ count: Int, _ request: @escaping @Sendable () async throws -> String?) -> E2EOutcome {
        let executor = context.client == .sluiceOnTransportExecutor ? client.taskExecutor : nil
        return blockingRun {
            await withTaskExecutorPreference(executor) {
                await inFlightTasks(count: count, workers: 1) {
                    do {
                        return try await request()
                    } catch {
                        return "\(error)"
                    }
                }
            }
        }
    }

    /// `count` requests, `inFlight` at a time: each started with `start`, and the next one started
    /// when one completes (on the transport's loop thread, where `data()` delivers: it hands the
    /// body on without a hop to the serialization queue).
    private func started(
        _ count: Int, inFlight: Int, _ request: @escaping @Sendable () -> SignalProducer<Response, SluiceError>,
        check: @escaping @Sendable (Data) -> String?
    ) -> E2EOutcome {
        let tally = E2ETally(total: count)
        @Sendable func launch() {
            request().validate().data().startWithResult { result in
                let failure: String?
                switch result {
                case .success(let data): failure = check(data)
                case .failure(let error): failure = "\(error)"
                }
                if tally.finish(failure: failure) { launch() }
            }
        }
        for _ in 0..<min(inFlight, count) where tally.claim() { launch() }
        return tally.wait()
    }

    /// `count` GETs of the small document, `inFlight` at a time, each handed straight to the
    /// client's transport as the client would send it (its URL, default headers and jar), prepared
    /// once: a prepared request is a value any number of transfers may send.
    private func transferred(_ count: Int, inFlight: Int) -> E2EOutcome {
        let transport = client.transport
        let prepared: PreparedRequest
        do throws(SluiceError) {
            var request = try client.makeRequest(.get, NginxRoutes.smallPath)
            for field in client.configuration.defaultHeaders {
                request.headers.add(name: field.name, value: field.value)
            }
            prepared = try request.prepared()
        } catch {
            return E2EOutcome(failed: count, firstFailure: "\(error)")
        }
        let tally = E2ETally(total: count)
        @Sendable func launch() {
            transport.response(for: prepared).startWithResult { result in
                let failure: String?
                switch result {
                case .success(let response): failure = Self.isSmall(response.body)
                case .failure(let error): failure = "\(error)"
                }
                if tally.finish(failure: failure) { launch() }
            }
        }
        for _ in 0..<min(inFlight, count) where tally.claim() { launch() }
        return tally.wait()
    }

    /// The outcome of one operation that returns nil on success or what was wrong.
    private static func once(_ operation: () async throws -> String?) async -> E2EOutcome {
        do {
            if let failure = try await operation() { return E2EOutcome(failed: 1, firstFailure: failure) }
            return E2EOutcome(succeeded: 1)
        } catch {
            return E2EOutcome(failed: 1, firstFailure: "\(error)")
        }
    }
}
