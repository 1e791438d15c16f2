import FoundationEssentials

extension JSONEncoding {
    /// Returns `request` with an `Encodable` value as the JSON body, written by `encoder`.
    ///
    /// The encoder's own settings apply (its key, date and output formatting); `options` do not. A
    /// value it refuses (NaN or infinity, unless the encoder has a strategy for them) fails with
    /// `.invalidParameters` whose `keyPath` is the coding path, such as `user.scores[2]`.
    public func encode<T: Encodable>(
        _ request: Request, with value: T, encoder: JSONEncoder = JSONEncoder()
    ) throws(SluiceError) -> Request {
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch let error as EncodingError {
            throw URLEncodedFormEncoder.sluiceError(for: error, encoding: "JSON")
        } catch {
            throw SluiceError(
                .invalidParameters, "Encoding \(T.self) as JSON failed: \(error).", underlyingError: error)
        }
        return Self.setBody(body, of: request)
    }
}
