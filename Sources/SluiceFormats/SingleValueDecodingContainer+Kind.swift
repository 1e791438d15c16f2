import Sluice

extension SingleValueDecodingContainer {
    /// The value decoded as `type`, or nil when it is of another kind: how `JSONValue` and
    /// `PropertyListObject`, whose kind a decoder offers no way to ask, try each kind in turn.
    ///
    /// A type mismatch only means "not this kind"; any other error (a number that does not fit, a
    /// malformed string deep inside an array) is the value's own and is thrown as it is, rather than
    /// hidden behind the last kind's type mismatch.
    func decodeIfKind<T: Decodable>(_ type: T.Type) throws -> T? {
        do {
            return try decode(type)
        } catch DecodingError.typeMismatch {
            return nil
        } catch let error as DecodingError {
            throw error
        } catch {
            // A decoder's own parse error (a leading zero, a control character in a string), which
            // `JSONDecoder` would turn into a bare "The given data was not valid JSON.": wrapped so
            // that it keeps its name and its line and column.
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: codingPath, debugDescription: "\(error)", underlyingError: error))
        }
    }
}
