import FoundationEssentials
import Sluice

/// Encodes parameters as a property list body, setting `Content-Type: application/x-plist` unless
/// the request already has a Content-Type.
///
/// Strings, integers, numbers (NaN and infinity included), Booleans, arrays and dictionaries map to
/// their property-list kinds, and a set to an array in sorted order. A property list has no null:
/// null fails with `.invalidParameters` whose `keyPath` names it, and nothing is sent.
public struct PropertyListEncoding: ParameterEncoding {
    /// The property-list format.
    public var format: PropertyListDecoder.PropertyListFormat

    /// The `Content-Type` of a property-list body.
    public static let contentType = "application/x-plist"

    /// Creates a property-list encoding in the XML or the binary format.
    public init(format: PropertyListDecoder.PropertyListFormat = .xml) {
        self.format = format
    }

    /// The XML format.
    public static var xml: PropertyListEncoding { PropertyListEncoding(format: .xml) }

    /// The binary format.
    public static var binary: PropertyListEncoding { PropertyListEncoding(format: .binary) }

    /// Returns `request` with `parameters` as a property-list dictionary body.
    public func encode(_ request: Request, with parameters: Parameters) throws(SluiceError) -> Request {
        if let (_, path) = Parameter.firstOffending(in: parameters, at: "", where: { $0 == .null }) {
            throw SluiceError(
                .invalidParameters,
                "The parameter \(path) is null, which a property list cannot represent; nothing was sent.",
                keyPath: path)
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        let body: Data
        do {
            body = try encoder.encode(PropertyListValue(.dictionary(parameters)))
        } catch let error as EncodingError {
            throw URLEncodedFormEncoder.sluiceError(for: error, encoding: "a property list")
        } catch {
            throw SluiceError(
                .invalidParameters, "Encoding the parameters as a property list failed: \(error).",
                underlyingError: error)
        }
        var request = request
        if !request.headers.contains("Content-Type") {
            request.headers["Content-Type"] = Self.contentType
        }
        request.body = .data(body)
        return request
    }
}

/// A parameter as an `Encodable` value for `PropertyListEncoder`.
private struct PropertyListValue: Encodable {
    let parameter: Parameter

    init(_ parameter: Parameter) { self.parameter = parameter }

    func encode(to encoder: any Encoder) throws {
        switch parameter {
        case .string(let string): try encodeSingle(string, to: encoder)
        case .int(let int): try encodeSingle(int, to: encoder)
        case .double(let double): try encodeSingle(double, to: encoder)
        case .bool(let bool): try encodeSingle(bool, to: encoder)
        case .null:
            throw EncodingError.invalidValue(
                parameter,
                EncodingError.Context(codingPath: encoder.codingPath, debugDescription: "A property list has no null."))
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(PropertyListValue(element)) }
        case .set(let elements):
            var container = encoder.unkeyedContainer()
            for element in Parameter.sortedForEncoding(elements) { try container.encode(PropertyListValue(element)) }
        case .dictionary(let dictionary):
            var container = encoder.container(keyedBy: ParameterCodingKey.self)
            for key in dictionary.keys.sorted() {
                try container.encode(PropertyListValue(dictionary[key]!), forKey: ParameterCodingKey(stringValue: key))
            }
        }
    }

    private func encodeSingle(_ value: some Encodable, to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
