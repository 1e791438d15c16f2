import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// A `multipart/form-data` body built part by part, as an HTML form or AFNetworking's
/// `AFMultipartFormData` would send it.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("Ada", name: "user")
/// form.append(fileURL: avatarURL, name: "avatar")  // image/png, "avatar.png"
/// try form.append(["tags": ["a", "b"]])             // tags[]=a, tags[]=b
/// let (body, contentType) = try form.makeBody()
/// let request = Request(method: .post, url: url, headers: ["Content-Type": contentType], body: body)
/// ```
///
/// Nothing is read or encoded until `makeBody()`, which checks every file and returns a
/// streaming body: files are read from disk as they are sent, a fixed-size piece at a time, so
/// memory stays small however large they are. The body can be sent again from the start (after a
/// redirect or for a retry). Names and file names are escaped as the HTML standard's
/// multipart/form-data encoding says; the bytes of every value are sent as given.
public struct MultipartFormData: Sendable {
    /// One part of the form, as appended.
    struct Part: Sendable {
        /// Where a part's bytes come from.
        enum Content: Sendable {
            case data(Data)
            case file(URL)
            case provider(BodyProvider)
        }

        var name: String
        var fileName: String?
        var mimeType: String?
        var content: Content
    }

    /// The boundary that separates the parts (without the leading `--`).
    public let boundary: String

    /// The parts, in the order they were appended.
    private(set) var parts: [Part] = []

    /// Creates an empty form with a random boundary, or the given one (1 to 70 characters of
    /// RFC 2046's boundary alphabet, checked by `makeBody()`).
    public init(boundary: String = MultipartFormData.randomBoundary()) {
        self.boundary = boundary
    }

    /// A fresh boundary: `sluice.boundary.` followed by 16 random bytes in hexadecimal.
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return "sluice.boundary." + String(decoding: hex, as: UTF8.self)
    }

    /// The `Content-Type` header value for this form, naming its boundary (quoted when it must be).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { !"()<>@,;:\\\"/[]?= ".utf8.contains($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The number of parts appended so far.
    public var count: Int { parts.count }

    /// Whether no part has been appended.
    public var isEmpty: Bool { parts.isEmpty }

    /// Appends bytes; with a file name the part is a file upload whose MIME type, unless given, is
    /// inferred from the file name's extension.
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
        parts.append(
            Part(
                name: name, fileName: fileName, mimeType: Self.resolvedMIMEType(mimeType, fileName),
                content: .data(data)))
    }

    /// Appends a text field, sent as its UTF-8 bytes with no `Content-Type` (as a browser sends one).
    public mutating func append(_ string: String, name: String) {
        parts.append(Part(name: name, fileName: nil, mimeType: nil, content: .data(Data(string.utf8))))
    }

    /// Appends a file, read from disk as it is sent; the file name defaults to the URL's last path
    /// component and the MIME type to the one its extension names (`application/octet-stream` for
    /// an unknown one). `makeBody()` fails if the file is missing or unreadable.
    public mutating func append(fileURL: URL, name: String, fileName: String? = nil, mimeType: String? = nil) {
        let fileName = fileName ?? fileURL.lastPathComponent
        let type = mimeType ?? Self.mimeType(forPathExtension: fileURL.pathExtension)
        parts.append(Part(name: name, fileName: fileName, mimeType: type, content: .file(fileURL)))
    }

    /// Appends bytes produced on demand, of known or unknown length (an unknown length makes the
    /// whole form be sent with chunked transfer encoding); a provider that declares a length must
    /// produce exactly that many bytes.
    public mutating func append(
        _ provider: BodyProvider, name: String, fileName: String? = nil, mimeType: String? = nil
    ) {
        parts.append(
            Part(
                name: name, fileName: fileName, mimeType: Self.resolvedMIMEType(mimeType, fileName),
                content: .provider(provider)))
    }

    /// The given MIME type, or the one a file name's extension implies, or none for a plain field.
    private static func resolvedMIMEType(_ mimeType: String?, _ fileName: String?) -> String? {
        if let mimeType { return mimeType }
        guard let fileName else { return nil }
        return Self.mimeType(forPathExtension: pathExtension(of: fileName))
    }

    /// The extension of a file name's last path component, without its dot (`tar.gz` gives `gz`); empty
    /// when it has none or is a hidden file's name (`.profile`).
    static func pathExtension(of fileName: String) -> String {
        let name = fileName.split(separator: "/").last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }

    /// Checks every part and returns the form as a streaming body with its `Content-Type` value.
    ///
    /// Fails with `.multipartEncoding`, before anything is sent, for an invalid boundary or a file
    /// that is missing, a directory or unreadable (the message names the file and the part), and
    /// with `.invalidHeader` for a MIME type containing CR, LF or NUL. The body's length is known
    /// when every part's length is; a reader of the body fails with `.multipartEncoding` if a file
    /// disappears or changes size, or a provider produces a different length than it declared.
    public func makeBody() throws(SluiceError) -> (body: RequestBody, contentType: String) {
        try Self.validateBoundary(boundary)
        var segments: [MultipartSegment] = []
        var pending = Data()
        for part in parts {
            pending.append(Self.delimiter(boundary))
            pending.append(try Self.headerBlock(for: part))
            switch part.content {
            case .data(let data):
                pending.append(data)
            case .file(let url):
                let file = try MultipartFile(checking: url, partName: part.name)
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.file(file))
            case .provider(let provider):
                segments.append(.bytes(pending))
                pending = Data()
                segments.append(.provider(provider, partName: part.name))
            }
            pending.append(Self.crlf)
        }
        pending.append(Self.closingDelimiter(boundary))
        segments.append(.bytes(pending))

        var length: Int64? = 0
        for segment in segments {
            guard let total = length, let size = segment.length else {
                length = nil
                break
            }
            length = total + size
        }
        let plan = segments
        let provider = BodyProvider(length: length) { () throws(SluiceError) -> any BodyReader in
            try MultipartBodyReader(segments: plan)
        }
        return (.stream(provider), contentType)
    }

    static let crlf = Data("\r\n".utf8)

    static func delimiter(_ boundary: String) -> Data { Data("--\(boundary)\r\n".utf8) }

    static func closingDelimiter(_ boundary: String) -> Data { Data("--\(boundary)--\r\n".utf8) }

    /// Checks a boundary against RFC 2046 §5.1.1: 1 to 70 `bchars`, not ending in a space.
    private static func validateBoundary(_ boundary: String) throws(SluiceError) {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        let bytes = Array(boundary.utf8)
        guard (1...70).contains(bytes.count), bytes.allSatisfy(allowed.contains), bytes.last != UInt8(ascii: " ")
        else {
            throw SluiceError(
                .multipartEncoding,
                "The boundary \(boundary.debugDescription) is not 1 to 70 characters of RFC 2046's boundary alphabet.")
        }
    }
}
