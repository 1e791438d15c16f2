import FoundationEssentials

/// Entry points for the fuzz targets (`Fuzz/`, `make fuzz`): each runs one of Sluice's parsers over
/// arbitrary bytes, reads everything it made, and stops the process (`preconditionFailure`) when
/// an invariant that the rest of the library relies on does not hold. Not for applications.
package enum SluiceFuzzing {
    /// Feeds `bytes`, split after each LF, to the response header block parser one line at a
    /// time, as libcurl's header callback does, and reads every block's fields.
    package static func headerBlock(_ bytes: UnsafeBufferPointer<UInt8>) {
        var parser = HeaderBlockParser()
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            if end < bytes.count { end += 1 }
            let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end
            switch parser.read(line) {
            case .status, .field:
                break
            case .end:
                readAll(parser.takeHeaders())
            case .invalid:
                precondition(parser.problem != nil, "an invalid line without a problem")
                return
            }
            if let length = parser.contentLength { precondition(length >= 0, "a negative Content-Length") }
        }
        readAll(parser.takeHeaders())
    }

    /// Parses `text` as a Netscape cookie file; every cookie it yields can be stored, and its line
    /// reads back as the same cookie (for expiries a `Double` holds exactly).
    package static func cookieFile(_ text: String) {
        guard let cookies = try? NetscapeCookieFile.parse(text, source: "the input") else { return }
        for cookie in cookies {
            precondition(cookie.problem() == nil, "a parsed cookie that cannot be stored")
            if let expires = cookie.expires, expires.timeIntervalSince1970 > 9.0e15 { continue }
            let line = NetscapeCookieFile.line(for: cookie)
            let again = try? NetscapeCookieFile.parseLine(Substring(line))
            precondition(again == cookie, "a cookie's line reads back differently")
        }
    }

    /// Reads `bytes` as a block of raw header lines, and compares its lookups with its fields.
    package static func rawHeaderLines(_ bytes: UnsafeBufferPointer<UInt8>) {
        var lines = Array(bytes)
        if let last = lines.last, last != 0x0A { lines.append(0x0A) }
        readAll(HTTPHeaders(lines: RawHeaderLines(bytes: lines)))
    }

    private static func readAll(_ headers: HTTPHeaders) {
        let fields = Array(headers)
        for field in fields.prefix(8) {
            precondition(headers.contains(field.name), "a field that its headers do not contain")
            precondition(headers[field.name] != nil, "a field without a value by its name")
        }
        precondition(headers == HTTPHeaders(fields), "headers unequal to their own fields")
        _ = headers.hashValue
    }

    /// Parses `text` as a Content-Type, and as an `Accept` list, by bytes and by characters: the
    /// two readings must agree.
    package static func mediaTypes(_ text: String) {
        let type = Serialization.MediaType(text)
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            precondition(
                type == Serialization.MediaType.parseCharacters(text),
                "Content-Type read differently by bytes and by characters")
            precondition(
                MediaRange.list(text) == MediaRange.characterList(text),
                "Accept read differently by bytes and by characters")
        }
        if let type {
            _ = type.matches("application/json")
            _ = type.matches(text)
        }
        let ranges = MediaRange.list(text)
        for range in ranges {
            precondition((0...1).contains(range.quality), "a quality outside 0...1")
            _ = MediaRange.isAcceptable(range, in: ranges)
        }
        _ = MediaRange.acceptsAnything(ranges)
        _ = MediaRange.describe(ranges)
    }

    /// Reads `text` as an HTTP date and as a `Retry-After` value.
    package static func dates(_ text: String) {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        _ = HTTPDate.parse(text, now: now)
        if let delay = RetryAfter.delay(text, now: now) {
            precondition(delay >= .zero, "a negative Retry-After delay")
        }
    }

    /// Reads `text` as a `Content-Range` and as a digest in hexadecimal: what either makes must
    /// hold together (a range within its length; as many bytes as half the digits, written back
    /// the same).
    package static func downloadFields(_ text: String) {
        if let range = ContentRange(text) {
            if let bytes = range.bytes {
                precondition(bytes.lowerBound >= 0 && bytes.lowerBound <= bytes.upperBound, "a reversed range")
                precondition(bytes.upperBound < Int64.max, "a range whose end cannot be counted")
                if let length = range.completeLength { precondition(bytes.upperBound < length, "a range past its end") }
            } else {
                precondition(range.completeLength != nil, "an unsatisfied range without a length")
            }
        }
        if let bytes = ExpectedDigest.bytes(hex: text) {
            precondition(ExpectedDigest.hex(bytes) == text.trimmingWhitespace().lowercased(), "hex not read back")
        }
    }

    /// Reads a multipart body made of `parts` (bytes, or providers that declare `declaredLength`
    /// and produce `data`) through buffers of the sizes in `bufferSizes`, in turn. The body must be
    /// the parts' bytes in order, or, when a provider's length is not what it produces, an error.
    package static func multipart(
        _ parts: [(data: [UInt8], isProvider: Bool, declaredLength: Int64?)], bufferSizes: [Int]
    ) {
        var segments: [MultipartSegment] = []
        var expected: [UInt8] = []
        var mismatched = false
        for (index, part) in parts.enumerated() {
            expected += part.data
            if part.isProvider {
                let data = Data(part.data)
                if let length = part.declaredLength, length != Int64(data.count) { mismatched = true }
                let provider = BodyProvider(length: part.declaredLength) { DataBodyReader(data) }
                segments.append(.provider(provider, partName: "part\(index)"))
            } else {
                segments.append(.bytes(Data(part.data)))
            }
        }
        let sizes = bufferSizes.isEmpty ? [7] : bufferSizes.map { max(1, $0) }
        do {
            let reader = try MultipartBodyReader(segments: segments)
            var body: [UInt8] = []
            var turn = 0
            while true {
                let size = sizes[turn % sizes.count]
                turn += 1
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
                defer { buffer.deallocate() }
                let count = try reader.read(into: buffer)
                precondition((0...size).contains(count), "a read beyond its buffer")
                if count == 0 { break }
                body += buffer[0..<count]
                precondition(body.count <= expected.count + size, "a body longer than its parts")
            }
            precondition(!mismatched, "a provider's wrong length was not reported")
            precondition(body == expected, "a body that is not its parts in order")
        } catch {
            precondition(mismatched, "an error from a body whose parts are right: \(error)")
        }
    }
}
