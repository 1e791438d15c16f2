import Sluice

/// A strict RFC 8259 JSON parser that turns a document into a `JSONValue`, in pure Swift.
///
/// Why Sluice has its own: `JSONSerialization` is not in FoundationEssentials, and decoding a
/// `JSONValue` through `JSONDecoder` has to find each value's kind by trial, where every failed try
/// builds an error whose coding path costs time proportional to the square of its depth. A hostile
/// body of 5 KB (1,000 strings inside 500 nested arrays) took seconds of CPU that way; this parser
/// reads any document in one pass, in time proportional to its length.
///
/// What it accepts: any JSON value at the top (as `JSONSerialization` with fragments allowed and
/// `JSONDecoder` do), in UTF-8 with or without a byte order mark, or in UTF-16 or UTF-32 as RFC 4627
/// detected them. A repeated object key keeps its last value, as `JSONSerialization` did. A number
/// too large for a `Double` is an error; one too small to tell from zero reads as zero.
///
/// Arrays and objects being read wait on an explicit stack bounded by `maximumDepth`, so a deeply
/// nested document is an error, never a stack overflow.
///
/// One parser lives for one `parse` call: it borrows the caller's buffer, which outlives it.
struct JSONDocumentParser {
    /// How deeply arrays and objects may nest, as `JSONDecoder` allows: enough for any real document,
    /// and it bounds what a hostile one can cost (the tree's recursive equality and destruction too).
    static let maximumDepth = 512

    /// The document's bytes, UTF-8; every read goes through `byte(at:)` or is behind a bounds check.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the document starts: after a byte order mark, so columns do not count it.
    var documentStart = 0
    /// The offset of the next byte to read.
    var position = 0

    /// Creates a parser at the start of `bytes`.
    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The value of the JSON document in `bytes`, or the first syntax error with its line and column.
    static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        try withContiguousBytes(of: bytes) { buffer throws(JSONSyntaxError) in try parse(buffer) }
    }

    /// The value of the JSON document in `buffer`; see `parse(_:)`.
    static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        if let wide = try utf8Copy(ofWideText: buffer) {
            return try wide.withUnsafeBufferPointer { utf8 in
                Result { () throws(JSONSyntaxError) in
                    var parser = JSONDocumentParser(bytes: utf8)
                    return try parser.readDocument()
                }
            }.get()
        }
        var parser = JSONDocumentParser(bytes: buffer)
        if buffer.starts(with: [0xEF, 0xBB, 0xBF]) {
            parser.documentStart = 3
            parser.position = 3
        }
        return try parser.readDocument()
    }

    /// The arrays and objects whose elements are being read, innermost last. Their elements wait in
    /// separate stacks, so that each is appended to in place rather than copied out and back.
    struct OpenContainers {
        /// Whether each open container is an array (else an object), outermost first.
        var isArray: [Bool] = []
        /// The elements so far of each open array.
        var arrays: [[JSONValue]] = []
        /// The members so far of each open object.
        var objects: [[String: JSONValue]] = []
        /// For each open object, the key of the member whose value is being read.
        var keys: [String] = []
    }

    /// Reads the one value the document holds, and checks that only whitespace follows it.
    mutating func readDocument() throws(JSONSyntaxError) -> JSONValue {
        var open = OpenContainers()
        while true {
            skipWhitespace()
            var value: JSONValue
            switch byte(at: position) {
            case UInt8(ascii: "["):
                position += 1
                try checkDepth(of: open)
                skipWhitespace()
                if byte(at: position) == UInt8(ascii: "]") {
                    position += 1
                    value = .array([])
                } else {
                    open.isArray.append(true)
                    open.arrays.append([])
                    continue
                }
            case UInt8(ascii: "{"):
                position += 1
                try checkDepth(of: open)
                skipWhitespace()
                if byte(at: position) == UInt8(ascii: "}") {
                    position += 1
                    value = .object([:])
                } else {
                    let key = try readKey()
                    open.isArray.append(false)
                    open.objects.append([:])
                    open.keys.append(key)
                    continue
                }
            default:
                value = try readScalar()
            }
            // A value is complete: add it to the containers it ends, until one expects another.
            while true {
                guard let isArray = open.isArray.last else {
                    skipWhitespace()
                    if position < bytes.count { throw error("\(describe(position)) after the JSON value") }
                    return value
                }
                skipWhitespace()
                let next = byte(at: position)
                position += 1
                if isArray {
                    open.arrays[open.arrays.count - 1].append(value)
                    if next == UInt8(ascii: "]") {
                        open.isArray.removeLast()
                        value = .array(open.arrays.removeLast())
                        continue
                    }
                    guard next == UInt8(ascii: ",") else {
                        throw error("\(describe(position - 1)) where ',' or ']' was expected", at: position - 1)
                    }
                } else {
                    open.objects[open.objects.count - 1][open.keys.removeLast()] = value
                    if next == UInt8(ascii: "}") {
                        open.isArray.removeLast()
                        value = .object(open.objects.removeLast())
                        continue
                    }
                    guard next == UInt8(ascii: ",") else {
                        throw error("\(describe(position - 1)) where ',' or '}' was expected", at: position - 1)
                    }
                    skipWhitespace()
                    open.keys.append(try readKey())
                }
                break
            }
        }
    }

    /// Refuses to open one more container when `maximumDepth` are open already.
    func checkDepth(of open: OpenContainers) throws(JSONSyntaxError) {
        if open.isArray.count >= Self.maximumDepth {
            throw error("arrays and objects nested more than \(Self.maximumDepth) deep", at: position - 1)
        }
    }

    /// Reads an object member's key and the `:` after it, from the key's opening quote.
    mutating func readKey() throws(JSONSyntaxError) -> String {
        guard byte(at: position) == UInt8(ascii: "\"") else {
            throw error("\(describe(position)) where an object key (a string) was expected")
        }
        let key = try readString()
        skipWhitespace()
        guard byte(at: position) == UInt8(ascii: ":") else {
            throw error("\(describe(position)) where ':' was expected after an object key")
        }
        position += 1
        return key
    }

    /// Reads a string, number, `true`, `false` or `null`.
    mutating func readScalar() throws(JSONSyntaxError) -> JSONValue {
        switch byte(at: position) ?? 0 {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try readNumber())
        case UInt8(ascii: "t"): return try readLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try readLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try readLiteral("null", .null)
        default: throw error("\(describe(position)) where a value was expected")
        }
    }

    /// Reads the literal `word`, which stands for `value`.
    mutating func readLiteral(_ word: StaticString, _ value: JSONValue) throws(JSONSyntaxError) -> JSONValue {
        let matches = word.withUTF8Buffer { word in
            position + word.count <= bytes.count && (0..<word.count).allSatisfy { bytes[position + $0] == word[$0] }
        }
        guard matches else { throw error("invalid literal, expected \(word)") }
        position += word.utf8CodeUnitCount
        return value
    }

    /// Skips the four characters JSON counts as whitespace: space, tab, LF and CR.
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// The byte at `offset`, or nil past the end.
    func byte(at offset: Int) -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }
}
