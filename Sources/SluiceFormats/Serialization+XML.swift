import FoundationEssentials
import Sluice

/// Parses an XML body into an `XMLValue` tree (the root element) with Sluice's own parser,
/// `XMLDocumentParser`: strict XML 1.0 well-formedness, UTF-8 or ISO-8859-1, no namespace
/// processing (names are kept as written, e.g. `atom:link`).
///
/// It never loads a DTD or any other external resource and never expands an entity a DOCTYPE
/// declares (referencing one fails), so a response cannot make it read files or hosts (XXE) or
/// blow up in memory (billion laughs).
public struct XMLResponseSerializer: ResponseSerializer {
    /// `application/xml`, `text/xml` and any `+xml` type.
    public static let acceptableContentTypes = ["application/xml", "text/xml", "*/*+xml"]

    /// The content types accepted.
    public let acceptableContentTypes: [String]

    /// Creates a serializer.
    public init(acceptableContentTypes: [String] = XMLResponseSerializer.acceptableContentTypes) {
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The root element, or a failure naming the line and column of malformed XML.
    public func serialize(_ response: Response) throws(SluiceError) -> XMLValue {
        if Serialization.hasEmptyBody(response) {
            throw Serialization.failure(response, "cannot parse XML from an empty body")
        }
        try Serialization.checkContentType(response, acceptable: acceptableContentTypes)
        do {
            return try XMLDocumentParser.parse(response.body)
        } catch {
            throw Serialization.failure(
                response, "malformed XML at line \(error.line), column \(error.column): \(error.message)",
                underlyingError: error)
        }
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's XML body into its root element, off the transport's thread.
    public func xml() -> SignalProducer<XMLValue, SluiceError> {
        serialize(using: XMLResponseSerializer())
    }
}
