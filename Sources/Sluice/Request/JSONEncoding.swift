import FoundationEssentials

/// Encodes parameters as a JSON body, setting `Content-Type: application/json` unless the request
/// already has a Content-Type.
///
/// The root is an object of the parameters, or any value with `encode(_:withRoot:)` (such as an
/// array). Object keys are sorted by default, so the same parameters always make the same bytes; a
/// set is written as an array in sorted order; null is `null`. NaN and infinity have no JSON form:
/// they fail with `.invalidParameters` whose `keyPath` names the value (`user.scores[2]`), and
/// nothing is sent.
public struct JSONEncoding: ParameterEncoding {
    /// How the JSON text is laid out.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int

        /// Creates options from their bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Indents nested values by two spaces, one per line, with `" : "` after keys.
        public static let prettyPrinted = Options(rawValue: 1 << 0)
        /// Writes object keys in sorted order, so equal parameters always make equal bytes.
        public static let sortedKeys = Options(rawValue: 1 << 1)
    }

    /// How the JSON text is laid out.
    public var options: Options

    /// The `Content-Type` of a JSON body.
    public static let contentType = "application/json"

    /// Creates a JSON encoding; keys are sorted unless `options` leaves `.sortedKeys` out.
    public init(options: Options = [.sortedKeys]) {
        self.options = options
    }

    /// Compact JSON with sorted keys.
    public static var `default`: JSONEncoding { JSONEncoding() }

    /// Indented JSON with sorted keys.
    public static var prettyPrinted: JSONEncoding { JSONEncoding(options: [.prettyPrinted, .sortedKeys]) }

    /// Returns `request` with `parameters` as a JSON object body.
    public func encode(_ request: Request, with parameters: Parameters) throws(SluiceError) -> Request {
        try encode(request, withRoot: .dictionary(parameters))
    }

    /// Returns `request` with `value` as the JSON body, whatever its kind: object, array or scalar.
    public func encode(_ request: Request, withRoot value: Parameter) throws(SluiceError) -> Request {
        try Self.setBody(data(for: value), of: request)
    }

    /// Returns `request` with `array` as a JSON array body.
    public func encode(_ request: Request, withJSONArray array: [Parameter]) throws(SluiceError) -> Request {
        try encode(request, withRoot: .array(array))
    }

    /// The JSON text of `value`, or `.invalidParameters` naming a NaN or an infinity.
    public func data(for value: Parameter) throws(SluiceError) -> Data {
        let writer = JSONWriter(
            prettyPrinted: options.contains(.prettyPrinted), sortedKeys: options.contains(.sortedKeys))
        do {
            return Data(try writer.write(value))
        } catch {
            throw Parameter.nonFiniteError(error.value, at: error.path, encoding: "JSON")
        }
    }

    /// `request` with `body` and, unless it has one, `Content-Type: application/json`.
    static func setBody(_ body: Data, of request: Request) -> Request {
        var request = request
        if !request.headers.contains("Content-Type") {
            request.headers["Content-Type"] = contentType
        }
        request.body = .data(body)
        return request
    }
}
