import FoundationEssentials

/// The content types the JSON serializers accept.
public enum JSONContentTypes {
    /// `application/json`, `text/json`, `text/javascript` and any `+json` type.
    public static let acceptable = ["application/json", "text/json", "text/javascript", "*/*+json"]
}

/// Decodes a `Decodable` value from a JSON body with a `JSONDecoder` (its key and date strategies apply).
///
/// An empty body becomes `Empty()` or nil when `T` is `Empty` or an `Optional`, and fails otherwise.
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// `application/json`, `text/json`, `text/javascript` and any `+json` type.
    public static var acceptableContentTypes: [String] { JSONContentTypes.acceptable }

    /// The decoder, with its strategies.
    public let decoder: JSONDecoder

    /// The content types accepted.
    public let acceptableContentTypes: [String]

    /// Creates a serializer decoding with `decoder` and accepting `acceptableContentTypes`.
    public init(decoder: JSONDecoder = JSONDecoder(), acceptableContentTypes: [String] = JSONContentTypes.acceptable) {
        self.decoder = decoder
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The decoded value, or `.serializationFailed` with the coding path in `keyPath`.
    public func serialize(_ response: Response) throws(SluiceError) -> T {
        if Serialization.hasEmptyBody(response) {
            if let empty = T.self as? any EmptyResponse.Type, let value = empty.emptyValue() as? T { return value }
            throw Serialization.failure(
                response,
                "cannot decode \(T.self) from an empty body (decode Empty.self or \(T.self)?.self to accept one)")
        }
        try Serialization.checkContentType(response, acceptable: acceptableContentTypes)
        do {
            return try decoder.decode(T.self, from: response.body)
        } catch let error as DecodingError {
            throw Serialization.decodingFailure(error, decoding: T.self, response)
        } catch {
            throw Serialization.failure(
                response, "cannot decode \(T.self): \(error)", underlyingError: error)
        }
    }
}

extension Serialization {
    /// `users[3].address.zip` for a coding path.
    package static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue == "Index \(index)" || key.stringValue == "\(index)" {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    /// A `.serializationFailed` error for `error`, with the coding path, content type and first bytes.
    package static func decodingFailure(_ error: DecodingError, decoding type: Any.Type, _ response: Response)
        -> SluiceError
    {
        let context: DecodingError.Context
        var path: [any CodingKey]
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c):
            context = c
            path = c.codingPath
        case .keyNotFound(let key, let c):
            context = c
            path = c.codingPath + [key]
        @unknown default:
            return failure(response, "cannot decode \(type): \(error)", underlyingError: error)
        }
        let keyPath = keyPath(path)
        let location = keyPath.isEmpty ? "" : " at \(keyPath)"
        var reason = context.debugDescription
        if let underlying = context.underlyingError { reason += " (\(underlying))" }
        return failure(
            response,
            "cannot decode \(type)\(location): \(reason) (\(contentTypeDescription(response)), "
                + "\(response.body.count) bytes)",
            keyPath: keyPath.isEmpty ? nil : keyPath,
            underlyingError: error)
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Decodes each response's JSON body as `T` off the transport's thread; a wrong type deep
    /// inside fails with `.serializationFailed` and the coding path in `keyPath`.
    public func decode<T: Decodable & Sendable>(
        _ type: T.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) -> SignalProducer<T, SluiceError> {
        serialize(using: DecodableResponseSerializer<T>(decoder: decoder))
    }

    /// Decodes each response's JSON body as `T`, or delivers nil when the body is empty (204, 205, HEAD, empty 200).
    public func decode<T: Decodable & Sendable>(
        _ type: T?.Type,
        decoder: JSONDecoder = JSONDecoder()
    ) -> SignalProducer<T?, SluiceError> {
        serialize(using: DecodableResponseSerializer<T?>(decoder: decoder))
    }
}
