import FoundationEssentials

/// The parts of validation messages that name the request and show the start of the body.
enum ValidationMessage {
    /// How many body bytes a message shows: enough to recognise an API's error, short enough for
    /// a log line. The whole body stays in `error.response` (`error.responseBodyText`).
    static let excerptLimit = 80

    /// Words that mark a body excerpt or a query parameter as holding a secret (compared without
    /// case): such an excerpt is not shown, such a parameter's value is `***`.
    static let secretWords = [
        "token", "password", "passwd", "secret", "api_key", "apikey", "api-key", "authorization", "credential",
        "session", "cookie", "private_key", "signature",
    ]

    static func namesSecret(_ text: String) -> String? {
        let lowered = text.lowercased()
        return secretWords.first { lowered.contains($0) }
    }

    /// `GET http://host/path; body: {"error":"nope"}`: the request and the start of the body.
    static func context(of response: Response) -> String {
        "\(request(response.request)); \(excerpt(of: response))"
    }

    /// The method and URL, without any user name or password the URL carries, and with the values
    /// of query parameters whose names look secret (`api_key`, `token`…) as `***`.
    static func request(_ request: Request) -> String {
        var url = request.url.absoluteString
        if var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            var changed = false
            if components.user != nil || components.password != nil {
                components.user = nil
                components.password = nil
                changed = true
            }
            if let items = components.percentEncodedQueryItems,
                items.contains(where: { namesSecret($0.name) != nil && $0.value != nil })
            {
                components.percentEncodedQueryItems = items.map { item in
                    namesSecret(item.name) != nil && item.value != nil
                        ? URLQueryItem(name: item.name, value: "***") : item
                }
                changed = true
            }
            if changed { url = components.string ?? url }
        }
        return "\(request.method.rawValue) \(url)"
    }

    /// `body: …` with the first `limit` bytes as printable text (control characters escaped), `… (N bytes)`
    /// when there is more; `empty body`, `body in <file>`, or a byte count for a body that is not UTF-8.
    static func excerpt(of response: Response, limit: Int = excerptLimit) -> String {
        let body = response.body
        if body.isEmpty {
            return response.fileURL.map { "body in \($0.path)" } ?? "empty body"
        }
        var bytes = Array(body.prefix(limit))
        if body.count > limit { bytes.removeLast(incompleteSuffixLength(bytes)) }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return "body: \(body.count) bytes, not UTF-8 text"
        }
        // An error body may echo a credential (a rejected token, a session): kept out of a message
        // that tends to end up in logs.
        if let word = namesSecret(text) {
            return "body: \(body.count) bytes, not shown as it mentions \"\(word)\" (see responseBodyText)"
        }
        var printable = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": printable += "\\n"
            case "\r": printable += "\\r"
            case "\t": printable += "\\t"
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                printable += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: printable.unicodeScalars.append(scalar)
            }
        }
        return body.count > limit ? "body: \(printable)… (\(body.count) bytes)" : "body: \(printable)"
    }

    /// How many bytes at the end of `bytes` are an incomplete UTF-8 sequence cut by the limit.
    private static func incompleteSuffixLength(_ bytes: [UInt8]) -> Int {
        for back in 1...min(4, bytes.count) {
            let byte = bytes[bytes.count - back]
            guard byte & 0xC0 == 0x80 else {
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return back < length ? back : 0
            }
        }
        return 0
    }
}

extension SluiceError {
    /// The whole body of the response this error keeps, as UTF-8 text (invalid bytes replaced),
    /// or nil when it has no response or the body went to a file. The error's message shows only
    /// its start, and nothing of a body that mentions a secret.
    public var responseBodyText: String? {
        guard let response, response.fileURL == nil else { return nil }
        return String(decoding: response.body, as: UTF8.self)
    }

    /// Decodes the body of the response this error keeps (an API's error JSON) as `type`; throws
    /// `.serializationFailed` when there is no response or the body does not decode.
    ///
    ///     catch let error where error.isValidationError {
    ///         let problem = try error.decodeBody(as: APIProblem.self)
    ///     }
    public func decodeBody<T: Decodable>(
        as type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()
    ) throws(SluiceError) -> T {
        guard let response else {
            throw SluiceError(
                .serializationFailed, "This \(code) error has no response whose body could be decoded as \(T.self).",
                underlyingError: self)
        }
        do {
            return try decoder.decode(T.self, from: response.body)
        } catch {
            let (reason, keyPath) = Self.describeDecodingFailure(error, body: response.body)
            throw SluiceError(
                .serializationFailed,
                "The body of the status \(response.status) response could not be decoded as \(T.self) (\(reason)) for "
                    + ValidationMessage.context(of: response),
                underlyingError: error, response: response, keyPath: keyPath)
        }
    }

    /// A short reason for a decoding failure and the coding path it happened at, e.g. `user.scores[2]`.
    private static func describeDecodingFailure(_ error: any Error, body: Data) -> (String, String?) {
        guard !body.isEmpty else { return ("the body is empty", nil) }
        guard let error = error as? DecodingError else { return ("\(error)", nil) }
        func path(_ keys: [any CodingKey]) -> String? {
            guard !keys.isEmpty else { return nil }
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ("no value for key \"\(key.stringValue)\"", path(context.codingPath + [key]))
        case .valueNotFound(let type, let context):
            return ("expected \(type) but found null", path(context.codingPath))
        case .typeMismatch(let type, let context):
            return ("expected \(type)", path(context.codingPath))
        case .dataCorrupted(let context):
            return (context.debugDescription, path(context.codingPath))
        @unknown default:
            return ("\(error)", nil)
        }
    }
}
