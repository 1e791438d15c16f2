import Foundation
import QueryStringDecoding
import Sluice
import SluiceFormats
import SluiceReachability

/// A parser under fuzzing; its raw value names it in `SLUICE_FUZZ_TARGET` and `Fuzz/corpus/`.
enum FuzzTarget: String, CaseIterable, Sendable {
    case json
    case xml
    case binaryPlist = "binary-plist"
    case xmlPlist = "xml-plist"
    case headerBlock = "header-block"
    case rawHeaderLines = "raw-header-lines"
    case mediaType = "media-type"
    case httpDate = "http-date"
    case netlink
    case multipart
    case baseURL = "base-url"
    case query
    case eventStream = "event-stream"
    case cacheControl = "cache-control"
    case cacheEntry = "cache-entry"
    case cookieFile = "cookie-file"
    case downloadFields = "download-fields"

    /// Runs one input.
    func run(_ bytes: UnsafeBufferPointer<UInt8>) {
        switch self {
        case .json: SluiceFormatsFuzzing.json(bytes)
        case .xml: SluiceFormatsFuzzing.xml(bytes)
        case .binaryPlist: SluiceFormatsFuzzing.binaryPropertyList(bytes)
        case .xmlPlist: SluiceFormatsFuzzing.xmlPropertyList(bytes)
        case .headerBlock: SluiceFuzzing.headerBlock(bytes)
        case .rawHeaderLines: SluiceFuzzing.rawHeaderLines(bytes)
        case .mediaType: SluiceFuzzing.mediaTypes(String(decoding: bytes, as: UTF8.self))
        case .httpDate: SluiceFuzzing.dates(String(decoding: bytes, as: UTF8.self))
        case .netlink: SluiceReachabilityFuzzing.netlink(Array(bytes))
        case .multipart: Self.multipart(bytes)
        case .baseURL: Self.baseURL(bytes)
        case .query: Self.query(bytes)
        case .eventStream: SluiceFuzzing.eventStream(bytes)
        case .cacheControl: SluiceFuzzing.cacheControl(String(decoding: bytes, as: UTF8.self))
        case .cacheEntry: SluiceFuzzing.cacheEntry(bytes)
        case .cookieFile: SluiceFuzzing.cookieFile(String(decoding: bytes, as: UTF8.self))
        case .downloadFields: SluiceFuzzing.downloadFields(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Parts and buffer sizes read from the input: a count, then for each part a flag byte (a
    /// provider, with a declared length, off by how much), a length and its bytes; the rest are
    /// buffer sizes.
    private static func multipart(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = ByteReader(bytes)
        var parts: [(data: [UInt8], isProvider: Bool, declaredLength: Int64?)] = []
        for _ in 0..<(input.byte() % 6) {
            let flags = input.byte()
            let data = input.bytes(count: Int(input.byte()))
            var declared: Int64?
            if flags & 2 != 0 { declared = max(0, Int64(data.count) + Int64(flags >> 2) % 3 - 1) }
            parts.append((data, flags & 1 != 0, declared))
        }
        let sizes = input.rest().prefix(16).map { Int($0) + 1 }
        SluiceFuzzing.multipart(parts, bufferSizes: sizes)
    }

    /// A base URL and a path, separated by the first line break.
    private static func baseURL(_ bytes: UnsafeBufferPointer<UInt8>) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        guard let resolution = try? BaseURLResolution(String(parts[0])) else { return }
        let path = parts.count > 1 ? String(parts[1]) : ""
        _ = try? resolution.resolve(path)
        _ = resolution == resolution
    }

    /// Parameters made from the input, written as a query string and read back by an independent
    /// decoder: the round trip must give the parameters (scalars as text).
    private static func query(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = ByteReader(bytes)
        let indexed = input.byte() & 1 != 0
        let boolEncoding: URLEncoding.BoolEncoding = input.byte() & 1 != 0 ? .literal : .numeric
        var parameters: Parameters = [:]
        for _ in 0..<(1 + input.byte() % 3) {
            parameters[input.key()] = input.value(depth: 3, scalarArraysOnly: !indexed)
        }
        let arrayEncoding: URLEncoding.ArrayEncoding = indexed ? .indexInBrackets : .brackets
        let query = URLEncoding.queryString(parameters, arrayEncoding: arrayEncoding, boolEncoding: boolEncoding)
        let decoded = QueryDecoder.decode(query, arrayEncoding: arrayEncoding)
        let expected = QueryDecoder.expectedDecoding(of: .dictionary(parameters), boolEncoding: boolEncoding)
        precondition(decoded == expected, "the query \(query) does not read back as \(parameters)")
    }
}

/// Reads a fuzzer's input as a stream of choices; past its end, every byte is 0.
struct ByteReader {
    private var bytes: ArraySlice<UInt8>

    init(_ buffer: UnsafeBufferPointer<UInt8>) { bytes = ArraySlice(buffer) }

    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    mutating func bytes(count: Int) -> [UInt8] {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return Array(taken)
    }

    mutating func rest() -> [UInt8] { bytes(count: bytes.count) }

    /// Text of up to `maxLength` bytes, read as UTF-8 (an invalid sequence becomes U+FFFD).
    mutating func text(maxLength: Int) -> String {
        String(decoding: bytes(count: Int(byte()) % (maxLength + 1)), as: UTF8.self)
    }

    /// A dictionary key: non-empty, without brackets, and not all digits (which reads as an index).
    mutating func key() -> String {
        let scalars = text(maxLength: 8).unicodeScalars.filter { $0 != "[" && $0 != "]" }
        let key = String(String.UnicodeScalarView(scalars))
        return key.isEmpty || key.isASCIIDigits ? "k" + key : key
    }

    /// Arrays, sets and dictionaries are never empty (an empty one writes nothing); with
    /// `scalarArraysOnly`, arrays hold only scalars, all that `key[]` can carry unambiguously.
    mutating func value(depth: Int, scalarArraysOnly: Bool) -> Parameter {
        let choice = depth == 0 ? 0 : byte() % 10
        switch choice {
        case 0..<5:
            return scalar()
        case 5..<7:
            return .array(
                (0...(byte() % 3)).map { _ in
                    scalarArraysOnly ? scalar() : value(depth: depth - 1, scalarArraysOnly: false)
                })
        case 7:
            return .set(
                Set(
                    (0...(byte() % 3)).map { _ in
                        byte() & 1 != 0 ? .int(Int(Int8(bitPattern: byte()))) : .string(text(maxLength: 6))
                    }))
        default:
            var dictionary: [String: Parameter] = [:]
            for _ in 0...(byte() % 3) {
                dictionary[key()] = value(depth: depth - 1, scalarArraysOnly: scalarArraysOnly)
            }
            return .dictionary(dictionary)
        }
    }

    mutating func scalar() -> Parameter {
        switch byte() % 6 {
        case 0:
            return .int(Int(truncatingIfNeeded: UInt64(littleEndian: integer())))
        case 1:
            let double = Double(bitPattern: integer())
            return .double(double.isFinite ? double : 0)
        case 2: return .bool(byte() & 1 != 0)
        case 3: return .null
        default: return .string(text(maxLength: 12))
        }
    }

    private mutating func integer() -> UInt64 {
        bytes(count: 8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
