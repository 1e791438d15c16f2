import FoundationEssentials

/// Decodes the body as text: with the given encoding, else the Content-Type's charset, else
/// UTF-8, else ISO-8859-1 (which never fails).
public struct StringResponseSerializer: ResponseSerializer {
    /// Any content type.
    public static let acceptableContentTypes = ["*/*"]

    /// The encoding to use whatever the Content-Type says, if any.
    public let encoding: String.Encoding?

    /// Any content type.
    public var acceptableContentTypes: [String] { Self.acceptableContentTypes }

    /// Creates a serializer; nil `encoding` means the charset of the Content-Type, else UTF-8 or ISO-8859-1.
    public init(encoding: String.Encoding? = nil) {
        self.encoding = encoding
    }

    /// The text of the body; an empty body is the empty string.
    public func serialize(_ response: Response) throws(SluiceError) -> String {
        if response.body.isEmpty { return "" }
        if let encoding {
            return try Self.decode(response, as: encoding, named: "\(encoding)")
        }
        let charset = response.headers["Content-Type"].flatMap { Serialization.MediaType($0)?.parameters["charset"] }
        if let charset {
            guard let declared = Self.encoding(forCharset: charset) else {
                throw Serialization.failure(response, "unsupported charset \(charset.debugDescription)")
            }
            return try Self.decode(response, as: declared, named: charset)
        }
        if let text = String(data: response.body, encoding: .utf8) { return text }
        return Self.latin1(response.body)
    }

    /// The text of the body in `encoding`, or a failure naming it.
    private static func decode(_ response: Response, as encoding: String.Encoding, named name: String)
        throws(SluiceError)
        -> String
    {
        if encoding == .isoLatin1 { return latin1(response.body) }
        guard let text = String(data: response.body, encoding: encoding) else {
            throw Serialization.failure(response, "the body is not valid \(name)")
        }
        return text
    }

    /// ISO-8859-1 text: each byte is the Unicode scalar of the same value.
    private static func latin1(_ data: Data) -> String {
        var text = ""
        text.unicodeScalars.reserveCapacity(data.count)
        for byte in data { text.unicodeScalars.append(Unicode.Scalar(byte)) }
        return text
    }

    /// The encoding of an IANA charset name, for the ones in common use; nil for others.
    static func encoding(forCharset name: String) -> String.Encoding? {
        switch name.lowercased() {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "iso8859-1", "latin1", "iso-latin-1", "l1": return .isoLatin1
        case "us-ascii", "ascii": return .ascii
        case "iso-8859-2", "latin2": return .isoLatin2
        case "windows-1252", "cp1252": return .windowsCP1252
        case "windows-1250", "cp1250": return .windowsCP1250
        case "windows-1251", "cp1251": return .windowsCP1251
        case "utf-16": return .utf16
        case "utf-16le": return .utf16LittleEndian
        case "utf-16be": return .utf16BigEndian
        case "utf-32": return .utf32
        case "utf-32le": return .utf32LittleEndian
        case "utf-32be": return .utf32BigEndian
        case "shift_jis", "shift-jis", "sjis": return .shiftJIS
        case "euc-jp": return .japaneseEUC
        default: return nil
        }
    }
}

extension SignalProducer where Value == Response, Failure == SluiceError {
    /// Decodes each response's body as text: `encoding` if given, else the Content-Type's charset,
    /// else UTF-8, else ISO-8859-1.
    public func string(encoding: String.Encoding? = nil) -> SignalProducer<String, SluiceError> {
        serialize(using: StringResponseSerializer(encoding: encoding))
    }
}
