extension URLEncoding {
    /// Returns `request` with an `Encodable` value's properties as parameters, in the query or as a
    /// form body, with the same rules as literal parameters.
    ///
    /// `value` must encode as a keyed container (a struct or a dictionary); `encoder` says how dates
    /// and data are written. This encoding's own array and Boolean rules apply.
    public func encode<T: Encodable>(
        _ request: Request, with value: T, encoder: URLEncodedFormEncoder = URLEncodedFormEncoder()
    ) throws(SluiceError) -> Request {
        try encode(request, with: encoder.parameters(from: value))
    }
}
