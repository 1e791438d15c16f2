import FoundationEssentials

/// Parses a property-list body (XML, binary or OpenStep) into a `PropertyListObject`.
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// `application/x-plist`.
    public static let acceptableContentTypes = ["application/x-plist"]

    /// The content types accepted.
    public let acceptableContentTypes: [String]

    /// Creates a serializer.
    public init(acceptableContentTypes: [String] = PropertyListResponseSerializer.acceptableContentTypes) {
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The parsed property list, or a failure for an empty or malformed body.
    public func serialize(_ response: Response) throws(SluiceError) -> PropertyListObject {
        if Serialization.hasEmptyBody(response) {
            throw Serialization.failure(response, "cannot parse a property list from an empty body")
        }
        try Serialization.checkContentType(response, acceptable: acceptableContentTypes)
        // Before the decoder, whose XML parser would overflow the stack on a hostile nesting; one more
        // level than the values may nest, for the `<plist>` element around them.
        if PropertyListNesting.exceeds(PropertyListObject.maximumDepth + 1, in: response.body) {
            throw Serialization.failure(
                response,
                "malformed property list: elements nested more than \(PropertyListObject.maximumDepth) deep")
        }
        do {
            // Through PropertyListObject's Decodable conformance: PropertyListSerialization is not in
            // FoundationEssentials.
            return try PropertyListDecoder().decode(PropertyListObject.self, from: response.body)
        } catch {
            throw Serialization.failure(response, "malformed property list", underlyingError: error)
        }
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's property-list body, off the transport's thread.
    public func propertyList() -> SignalProducer<PropertyListObject, SluiceError> {
        serialize(using: PropertyListResponseSerializer())
    }
}
