import HTTPTypes
import Sluice

extension HTTPFields {
    /// The fields of `headers`, in their order, each name spelled as it was.
    ///
    /// Fails with `.invalidHeader` on a name that is not an HTTP token or a value with bytes RFC
    /// 9110 forbids (CR, LF, NUL): swift-http-types would otherwise replace them with spaces,
    /// and the fields would no longer say what the headers said.
    public init(_ headers: HTTPHeaders) throws(SluiceError) {
        self.init()
        reserveCapacity(headers.count)
        for field in headers {
            guard let name = HTTPField.Name(field.name) else {
                throw SluiceError(
                    .invalidHeader, "The header name \(field.name.debugDescription) is not an HTTP token.")
            }
            guard HTTPField.isValidValue(field.value) else {
                throw SluiceError(
                    .invalidHeader, "The value of the header \(field.name) contains bytes a header cannot carry.")
            }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension HTTPHeaders {
    /// The fields of `fields`, in their order, each name spelled as it was received or written.
    ///
    /// Never fails: every field swift-http-types holds is one Sluice can send.
    public init(_ fields: HTTPFields) {
        self.init(fields.map { Field(name: $0.name.rawName, value: $0.value) })
    }
}
