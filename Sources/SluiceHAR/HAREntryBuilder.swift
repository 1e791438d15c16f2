import FoundationEssentials
import Sluice
import Synchronization

/// Gathers one transfer's entry as its events arrive, and hands it to the recorder at its end.
final class HAREntryBuilder: Sendable {
    private struct State {
        var head: ResponseHead?
        var body = Data()
        var received: Int64 = 0
        var finished = false
    }

    private let request: Request
    private let recorder: HARRecorder
    private let started = Date()
    private let state = Mutex(State())

    init(request: Request, recorder: HARRecorder) {
        self.request = request
        self.recorder = recorder
    }

    func received(_ head: ResponseHead) {
        state.withLock { $0.head = head }
    }

    func received(_ chunk: Data) {
        let keep = recorder.bodies
        let limit = recorder.bodyLimit
        state.withLock { state in
            state.received += Int64(chunk.count)
            if keep, state.body.count + chunk.count <= limit { state.body.append(chunk) }
        }
    }

    /// Records the entry, once: with the metrics of a transfer that completed, or its error.
    func finish(metrics: TransferMetrics?, error: SluiceError?) {
        let state = self.state.withLock { state -> State? in
            guard !state.finished else { return nil }
            state.finished = true
            return state
        }
        guard let state else { return }
        recorder.record(entry(state, metrics: metrics, error: error))
    }

    private func entry(_ state: State, metrics: TransferMetrics?, error: SluiceError?) -> HAREntry {
        let redaction = recorder.redaction
        let version = (metrics?.httpVersion ?? state.head?.httpVersion ?? .http1_1).rawValue
        let timings = metrics.map(HARTimings.init) ?? HARTimings(dns: -1, connect: -1, wait: 0, receive: 0, ssl: -1)
        let harRequest = HARRequest(
            method: request.method.rawValue, url: redaction.url(request.url), httpVersion: version,
            headers: Self.fields(redaction.headers(request.headers)), queryString: queryItems(redaction),
            postData: postData(), bodySize: request.body.knownLength ?? -1)
        let headers = state.head?.headers ?? [:]
        let complete = state.received == Int64(state.body.count)
        let response = HARResponse(
            status: state.head?.status ?? 0, httpVersion: version,
            headers: Self.fields(redaction.headers(headers, locationsFrom: request.url)),
            content: Self.content(
                recorder.bodies && complete ? state.body : nil, size: state.received,
                type: headers["Content-Type"] ?? ""),
            redirectURL: headers["Location"].map { redaction.reference($0, from: request.url) } ?? "",
            bodySize: state.received)
        return HAREntry(
            startedDateTime: started.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
            time: timings.sum, request: harRequest, response: response, timings: timings,
            serverIPAddress: metrics?.remoteAddress.map(Self.address(of:)), _error: error.map { "\($0)" })
    }

    private func queryItems(_ redaction: Redaction) -> [HARNameValue] {
        let redacted = URL(string: redaction.url(request.url))
        let items = redacted.flatMap { URLComponents(url: $0, resolvingAgainstBaseURL: true)?.queryItems } ?? []
        return items.map { HARNameValue(name: $0.name, value: $0.value ?? "") }
    }

    private func postData() -> HARPostData? {
        let type = request.headers["Content-Type"] ?? ""
        switch request.body {
        case .empty: return nil
        case .data(let data):
            let text = recorder.bodies && data.count <= recorder.bodyLimit ? String(data: data, encoding: .utf8) : nil
            return HARPostData(mimeType: type, text: text ?? "")
        case .file, .stream: return HARPostData(mimeType: type, text: "")
        }
    }

    private static func content(_ body: Data?, size: Int64, type: String) -> HARContent {
        guard let body, !body.isEmpty else { return HARContent(size: size, mimeType: type) }
        if let text = String(data: body, encoding: .utf8) {
            return HARContent(size: size, mimeType: type, text: text)
        }
        return HARContent(size: size, mimeType: type, text: body.base64EncodedString(), encoding: "base64")
    }

    private static func fields(_ headers: HTTPHeaders) -> [HARNameValue] {
        headers.map { HARNameValue(name: $0.name, value: $0.value) }
    }

    /// The address without its port (`127.0.0.1:8080`, `[::1]:443`).
    private static func address(of remote: String) -> String {
        guard let colon = remote.lastIndex(of: ":") else { return remote }
        let host = remote[..<colon]
        return host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : String(host)
    }
}
