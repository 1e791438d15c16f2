extension URLEncoding {
    /// Where the encoded parameters go.
    public enum Destination: Sendable, Hashable {
        /// Into the query for the methods in `queryMethods` (GET, HEAD and DELETE by default), into a
        /// form body for the others.
        case methodDependent
        /// Always into the URL's query.
        case queryString
        /// Always into an `application/x-www-form-urlencoded` body.
        case httpBody
    }

    /// How array and set elements are written.
    public enum ArrayEncoding: Sendable, Hashable {
        /// `key[]=a&key[]=b`, as AFNetworking, Rails and PHP expect (the default).
        case brackets
        /// `key=a&key=b`, as Go, Java servlets and many Python frameworks expect.
        case noBrackets
        /// `key[0]=a&key[1]=b`, which keeps the position of each element, even in nested arrays.
        case indexInBrackets
    }

    /// How Booleans are written.
    public enum BoolEncoding: Sendable, Hashable {
        /// `1` and `0`, as AFNetworking wrote an `NSNumber` Boolean (the default).
        case numeric
        /// `true` and `false`.
        case literal
    }

    /// A custom query serializer: returns the whole query string, already escaped, for `parameters`.
    ///
    /// It replaces the default serialization for both the query and the form body, as AFNetworking's
    /// `setQueryStringSerializationWithBlock:` did; throw `.invalidParameters` to refuse parameters.
    /// Return escaped text: in a URL, Foundation escapes what is left (a space becomes `%20`) and a
    /// `#` starts the fragment; a form body is sent exactly as returned.
    public typealias QuerySerializer = @Sendable (Parameters) throws(SluiceError) -> String
}
