import FoundationEssentials

/// Turns any `Encodable` value into a `Parameter` tree, so typed parameters are URL-encoded with the
/// same rules as literal ones.
///
///     struct Search: Encodable { var query: String; var tags: [String]; var since: Date? }
///     try URLEncodedFormEncoder().encode(Search(query: "swift", tags: ["nio"], since: nil))
///     // query=swift&tags%5B%5D=nio
///
/// Keyed containers become dictionaries, unkeyed ones arrays; integers, floating-point numbers,
/// Booleans and strings keep their kind; an explicit `encodeNil` is null (a bare key), while a nil
/// optional property is left out, as synthesized `Encodable` conformances do. `Date` is written as
/// ISO 8601 text, `Data` as base64 and `URL` as its absolute string, unless configured otherwise.
/// NaN and infinity fail with `.invalidParameters` naming the coding path.
public struct URLEncodedFormEncoder: Sendable {
    /// How a `Date` is written.
    public enum DateEncoding: Sendable {
        /// ISO 8601 text in UTC, such as `2001-01-01T00:00:00Z` (the default).
        case iso8601
        /// Seconds since 1 January 1970 UTC, as a number.
        case secondsSince1970
        /// Milliseconds since 1 January 1970 UTC, as an integer.
        case millisecondsSince1970
        /// Whatever the closure returns.
        case custom(@Sendable (Date) -> Parameter)
    }

    /// How `Data` is written.
    public enum DataEncoding: Sendable {
        /// Base64 text (the default).
        case base64
        /// Whatever the closure returns.
        case custom(@Sendable (Data) -> Parameter)
    }

    /// How a `Date` is written.
    public var dateEncoding: DateEncoding
    /// How `Data` is written.
    public var dataEncoding: DataEncoding
    /// How `encode(_:)` writes arrays.
    public var arrayEncoding: URLEncoding.ArrayEncoding
    /// How `encode(_:)` writes Booleans.
    public var boolEncoding: URLEncoding.BoolEncoding
    /// Values handed to `Encodable` implementations through `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates an encoder.
    public init(
        dateEncoding: DateEncoding = .iso8601,
        dataEncoding: DataEncoding = .base64,
        arrayEncoding: URLEncoding.ArrayEncoding = .brackets,
        boolEncoding: URLEncoding.BoolEncoding = .numeric,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.dateEncoding = dateEncoding
        self.dataEncoding = dataEncoding
        self.arrayEncoding = arrayEncoding
        self.boolEncoding = boolEncoding
        self.userInfo = userInfo
    }

    /// The parameter tree of `value`, whatever its shape.
    public func parameter<T: Encodable>(from value: T) throws(SluiceError) -> Parameter {
        let node = ParameterNode()
        do {
            try node.store(value, encoder: ParameterTreeEncoder(options: self, node: node, codingPath: []))
        } catch let error as EncodingError {
            throw Self.sluiceError(for: error, encoding: "URL encoding")
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(
                .invalidParameters, "Encoding the parameters failed: \(error).", underlyingError: error, keyPath: nil)
        }
        return node.parameter
    }

    /// The parameters of `value`, which must encode as a keyed container (a struct or a dictionary).
    public func parameters<T: Encodable>(from value: T) throws(SluiceError) -> Parameters {
        switch try parameter(from: value) {
        case .dictionary(let parameters):
            return parameters
        case let other:
            throw SluiceError(
                .invalidParameters,
                "URL-encoded parameters need names, so \(T.self) must encode as a keyed container "
                    + "(a struct or a dictionary), not as \(other.kindName).",
                keyPath: "")
        }
    }

    /// The escaped query string of `value`, with this encoder's array and Boolean rules.
    public func encode<T: Encodable>(_ value: T) throws(SluiceError) -> String {
        let parameters = try parameters(from: value)
        return URLEncoding.queryString(parameters, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
    }

    /// Maps an `EncodingError` to `.invalidParameters` with the coding path as key path.
    package static func sluiceError(for error: EncodingError, encoding: String) -> SluiceError {
        switch error {
        case .invalidValue(let value, let context):
            let path = ParameterKeyPath.from(codingPath: context.codingPath)
            return SluiceError(
                .invalidParameters,
                "The parameter \(path.isEmpty ? "at the root" : path) (\(value)) cannot be written by \(encoding): "
                    + "\(context.debugDescription)",
                underlyingError: error, keyPath: path)
        @unknown default:
            return SluiceError(
                .invalidParameters, "Encoding the parameters for \(encoding) failed: \(error).", underlyingError: error)
        }
    }
}

extension Parameter {
    /// A word for the kind of value, for error messages.
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .int: return "an integer"
        case .double: return "a number"
        case .bool: return "a Boolean"
        case .null: return "null"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        }
    }
}
