import FoundationEssentials
import Sluice

/// A body parsed by the serializer its Content-Type calls for.
public enum SerializedBody: Sendable, Hashable {
    /// A JSON body (`application/json`, `text/json`, `text/javascript`, `+json`).
    case json(JSONValue)
    /// An XML body's root element (`application/xml`, `text/xml`, `+xml`).
    case xml(XMLValue)
    /// A property-list body (`application/x-plist`).
    case propertyList(PropertyListObject)
    /// Any other body, or one without a Content-Type, as text.
    case string(String)
    /// No body (a 204, a 205, a HEAD or an empty 200).
    case empty
}

/// Picks the JSON, XML, property-list or string serializer by the response's Content-Type.
public struct CompoundResponseSerializer: ResponseSerializer {
    /// Any content type: the ones no other serializer takes are read as text.
    public static let acceptableContentTypes = ["*/*"]

    /// Any content type.
    public var acceptableContentTypes: [String] { Self.acceptableContentTypes }

    /// Whether JSON members whose value is `null` are removed.
    public let removingNullValues: Bool

    /// Creates a serializer.
    public init(removingNullValues: Bool = false) {
        self.removingNullValues = removingNullValues
    }

    /// The body parsed by the serializer its Content-Type calls for.
    public func serialize(_ response: Response) throws(SluiceError) -> SerializedBody {
        if Serialization.hasEmptyBody(response) { return .empty }
        let media = response.headers["Content-Type"].flatMap { Serialization.MediaType($0) }
        func accepts(_ patterns: [String]) -> Bool { media.map { m in patterns.contains(where: m.matches) } ?? false }
        if accepts(JSONContentTypes.acceptable) {
            return .json(try JSONResponseSerializer(removingNullValues: removingNullValues).serialize(response))
        }
        if accepts(XMLResponseSerializer.acceptableContentTypes) {
            return .xml(try XMLResponseSerializer().serialize(response))
        }
        if accepts(PropertyListResponseSerializer.acceptableContentTypes) {
            return .propertyList(try PropertyListResponseSerializer().serialize(response))
        }
        return .string(try StringResponseSerializer().serialize(response))
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's body as JSON, XML, a property list or text, as its Content-Type says.
    public func serialized(removingNullValues: Bool = false) -> SignalProducer<SerializedBody, SluiceError> {
        serialize(using: CompoundResponseSerializer(removingNullValues: removingNullValues))
    }
}
