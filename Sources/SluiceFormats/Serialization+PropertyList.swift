import FoundationEssentials
import Sluice

/// Parses a property-list body (XML, binary or OpenStep) into a `PropertyListObject`.
///
/// XML and binary property lists are parsed by Sluice itself, in time linear in the body:
/// `PropertyListDecoder` could only be asked for each value's kind by trial, and each wrong guess
/// cost it an error recording the value's coding path, so a few kilobytes nested a few hundred
/// deep took seconds. The XML goes through Sluice's own strict parser (no DTD is read, no entity
/// expanded); a binary list is checked offset by offset, and cycles, values nested more than 512
/// deep and shared objects that would stand for more values than the body has bytes are refused.
/// The older OpenStep text format, whose values are only strings, data, arrays and dictionaries,
/// is still read by `PropertyListDecoder`.
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// `application/x-plist`.
    public static let acceptableContentTypes = ["application/x-plist"]

    /// The content types accepted.
    public let acceptableContentTypes: [String]

    /// Creates a serializer.
    public init(acceptableContentTypes: [String] = PropertyListResponseSerializer.acceptableContentTypes) {
        self.acceptableContentTypes = acceptableContentTypes
    }

    /// The parsed property list, or a failure for an empty or malformed body that says what is wrong.
    public func serialize(_ response: Response) throws(SluiceError) -> PropertyListObject {
        if Serialization.hasEmptyBody(response) {
            throw Serialization.failure(response, "cannot parse a property list from an empty body")
        }
        try Serialization.checkContentType(response, acceptable: acceptableContentTypes)
        let body = response.body
        do {
            if body.starts(with: "bplist".utf8) { return try BinaryPropertyList.parse(body) }
            if Self.looksLikeXML(body) { return try XMLPropertyList.parse(body) }
        } catch {
            throw Serialization.failure(response, "malformed property list: \(error.message)", underlyingError: error)
        }
        do {
            return try PropertyListDecoder().decode(PropertyListObject.self, from: body)
        } catch {
            throw Serialization.failure(response, "malformed property list", underlyingError: error)
        }
    }

    /// Whether `body` starts, after any byte order mark and whitespace, with `<`: how
    /// `PropertyListDecoder` tells XML from the OpenStep format, whose documents never start so.
    static func looksLikeXML(_ body: Data) -> Bool {
        var bytes = body.prefix(1024)[...]
        var unit = 1
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            bytes = bytes.dropFirst(3)
        } else if bytes.starts(with: [0xFE, 0xFF]) {
            bytes = bytes.dropFirst(2)
            unit = 2
        } else if bytes.starts(with: [0xFF, 0xFE]) {
            bytes = bytes.dropFirst(2)
            unit = 2
        }
        // In UTF-16, every other byte of ASCII text is zero: skipped, whichever the byte order.
        let text = bytes.filter { unit == 1 || $0 != 0 }
        return text.first { !XMLDocumentParser.isWhitespace($0) } == UInt8(ascii: "<")
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Parses each response's property-list body, off the transport's thread.
    public func propertyList() -> SignalProducer<PropertyListObject, SluiceError> {
        serialize(using: PropertyListResponseSerializer())
    }
}
