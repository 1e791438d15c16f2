import HTTPTypes
import Sluice

extension HTTPResponse {
    /// The status and header fields of `head` (the reason phrase is the status's usual one:
    /// Sluice keeps none, as HTTP/2 sends none).
    ///
    /// Fails with `.protocolError` on a status outside 0…999, which swift-http-types cannot
    /// hold, and with `.invalidHeader` as `HTTPFields.init(_:)` does.
    public init(_ head: ResponseHead) throws(SluiceError) {
        guard (0...999).contains(head.status) else {
            throw SluiceError(.protocolError, "The status \(head.status) is not a three-digit HTTP status.")
        }
        self.init(status: Status(code: head.status), headerFields: try HTTPFields(head.headers))
    }

    /// The status and header fields of `response`; its body stays in the response.
    public init(_ response: Response) throws(SluiceError) {
        try self.init(response.head)
    }
}

extension ResponseHead {
    /// The status and header fields of `response`, received over `httpVersion` (which
    /// swift-http-types does not keep).
    public init(_ response: HTTPResponse, httpVersion: HTTPVersion = .http1_1) {
        self.init(status: response.status.code, headers: HTTPHeaders(response.headerFields), httpVersion: httpVersion)
    }
}
