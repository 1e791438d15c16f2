import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Parses an XML body into an `XMLValue` tree (the root element) with Foundation's `XMLParser`.
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
        let parser = XMLParser(data: response.body)
        let builder = XMLTreeBuilder()
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        guard parser.parse(), let root = builder.root else {
            let error = parser.parserError
            throw Serialization.failure(
                response,
                "malformed XML at line \(parser.lineNumber), column \(parser.columnNumber)"
                    + (error.map { ": \($0.localizedDescription)" } ?? ""),
                underlyingError: error)
        }
        return root
    }
}

/// Builds `XMLValue`s from `XMLParser`'s callbacks; lives only for one parse, on one thread.
private final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// The elements opened and not yet closed, outermost first.
    private var stack: [XMLValue] = []
    /// The root element, once it has closed.
    private(set) var root: XMLValue?

    func parser(
        _ parser: XMLParser,
        didStartElement elementName: String,
        namespaceURI: String?,
        qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(XMLValue(name: qualifiedName ?? elementName, attributes: attributes))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: block, as: UTF8.self)
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard var element = stack.popLast() else { return }
        element.text = element.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's XML body into its root element, off the transport's thread.
    public func xml() -> SignalProducer<XMLValue, SluiceError> {
        serialize(using: XMLResponseSerializer())
    }
}
