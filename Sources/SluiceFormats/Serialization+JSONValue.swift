import FoundationEssentials
import Sluice

/// Parses a JSON body into a `JSONValue`, optionally removing object members whose value is null.
///
/// With Sluice's own strict parser, `JSONDocumentParser`, in one pass: any value at the top, UTF-8
/// (or UTF-16 and UTF-32), at most 512 levels of nesting, and a repeated key keeps its last value.
public struct JSONResponseSerializer: ResponseSerializer {
    /// `application/json`, `text/json`, `text/javascript` and any `+json` type.
    public static var acceptableContentTypes: [String] { JSONContentTypes.acceptable }

    /// Whether members whose value is `null` are removed, at any depth.
    public let removingNullValues: Bool

    /// The content types accepted.
    public let acceptableContentTypes: [String]

    /// Creates a serializer.
    public init(removingNullValues: Bool = false, acceptableContentTypes: [String] = JSONContentTypes.acceptable) {
        self.removingNullValues = removingNullValues
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The parsed value; `.null` for a 204, 205 or HEAD, and a failure for malformed JSON or an empty 200.
    public func serialize(_ response: Response) throws(SluiceError) -> JSONValue {
        if Serialization.hasEmptyBody(response) {
            guard Serialization.hasBodilessStatusOrMethod(response) else {
                throw Serialization.failure(response, "cannot parse JSON from an empty body")
            }
            return .null
        }
        try Serialization.checkContentType(response, acceptable: acceptableContentTypes)
        let value: JSONValue
        do {
            // Sluice's own parser, not JSONValue's Decodable conformance through JSONDecoder: that
            // finds each value's kind by trial, at a cost that grows with the square of its depth.
            value = try JSONDocumentParser.parse(response.body)
        } catch {
            throw Serialization.failure(
                response,
                "malformed JSON at line \(error.line), column \(error.column): \(error.message) "
                    + "(\(Serialization.contentTypeDescription(response)))",
                underlyingError: error)
        }
        return removingNullValues ? value.removingNullValues() : value
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's JSON body into a `JSONValue`, removing null-valued members if asked.
    public func json(removingNullValues: Bool = false) -> SignalProducer<JSONValue, SluiceError> {
        serialize(using: JSONResponseSerializer(removingNullValues: removingNullValues))
    }
}
