import FoundationEssentials

// The format of an entry on disk: a fixed header, then the payload.
//
//     "SLCE"  format version (1 byte)  payload length (8 bytes, LE)  FNV-1a 64 of the payload (8, LE)
//     payload: key, variant, status, version, headers, times, body (lengths before every field)
//
// A file that is shorter or longer than its header says, whose checksum differs, or whose payload
// does not read to its exact end is no entry at all: the cache treats it as a miss and removes it.

extension CacheEntry {
    static let magic: [UInt8] = Array("SLCE".utf8)
    static let formatVersion: UInt8 = 1
    static let headerSize = 4 + 1 + 8 + 8

    /// The entry as the bytes of a file.
    func encoded() -> Data {
        var payload = ByteWriter()
        payload.string(primaryKey)
        payload.integer(UInt64(variant.count))
        for field in variant {
            payload.string(field.name)
            payload.byte(field.value == nil ? 0 : 1)
            payload.string(field.value ?? "")
        }
        payload.integer(UInt64(status))
        payload.string(httpVersion.rawValue)
        payload.integer(UInt64(headers.count))
        for field in headers {
            payload.string(field.name)
            payload.string(field.value)
        }
        payload.integer(requestTime.timeIntervalSince1970.bitPattern)
        payload.integer(responseTime.timeIntervalSince1970.bitPattern)
        payload.data(body)
        var file = ByteWriter()
        file.bytes.append(contentsOf: Self.magic)
        file.byte(Self.formatVersion)
        file.integer(UInt64(payload.bytes.count))
        file.integer(payload.bytes.withUnsafeBytes { FNV1a.hash($0) })
        file.bytes.append(contentsOf: payload.bytes)
        return Data(file.bytes)
    }

    /// The entry `bytes` hold, or nil when they are not exactly one intact entry of this format.
    init?(decoding bytes: UnsafeRawBufferPointer) {
        var header = ByteReader(bytes)
        guard header.bytes(4).map(Array.init) == Self.magic, header.byte() == Self.formatVersion,
            let length = header.integer(), let checksum = header.integer(),
            length == UInt64(bytes.count - Self.headerSize)
        else { return nil }
        let payloadBytes = UnsafeRawBufferPointer(rebasing: bytes[Self.headerSize...])
        guard FNV1a.hash(payloadBytes) == checksum else { return nil }
        var payload = ByteReader(payloadBytes)
        guard let key = payload.string(), let variantCount = payload.count() else { return nil }
        var variant: [VaryField] = []
        for _ in 0..<variantCount {
            guard let name = payload.string(), let present = payload.byte(), let value = payload.string() else {
                return nil
            }
            variant.append(VaryField(name: name, value: present == 0 ? nil : value))
        }
        guard let status = payload.integer(), (100...999).contains(status),
            let versionText = payload.string(), let version = HTTPVersion(rawValue: versionText),
            let headerCount = payload.count()
        else { return nil }
        var headers = HTTPHeaders()
        for _ in 0..<headerCount {
            guard let name = payload.string(), let value = payload.string() else { return nil }
            headers.add(name: name, value: value)
        }
        guard let requested = payload.integer(), let responded = payload.integer(), let body = payload.data(),
            payload.isAtEnd
        else { return nil }
        let requestTime = Double(bitPattern: requested)
        let responseTime = Double(bitPattern: responded)
        guard requestTime.isFinite, responseTime.isFinite else { return nil }
        self.init(
            primaryKey: key, variant: variant, status: Int(status), headers: headers, httpVersion: version, body: body,
            requestTime: Date(timeIntervalSince1970: requestTime),
            responseTime: Date(timeIntervalSince1970: responseTime))
    }
}

/// Appends little-endian integers and length-prefixed fields.
private struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func integer(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ text: String) {
        integer(UInt64(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }

    mutating func data(_ data: Data) {
        integer(UInt64(data.count))
        bytes.append(contentsOf: data)
    }
}

/// Reads what `ByteWriter` wrote; every read is nil past the end, so a truncated input never reads
/// out of bounds.
private struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var index = 0

    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }

    var isAtEnd: Bool { index == buffer.count }

    mutating func bytes(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= buffer.count - index else { return nil }
        defer { index += count }
        return UnsafeRawBufferPointer(rebasing: buffer[index..<(index + count)])
    }

    mutating func byte() -> UInt8? { bytes(1)?[0] }

    mutating func integer() -> UInt64? {
        guard let raw = bytes(8) else { return nil }
        return raw.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A count or length, which cannot exceed what is left to read.
    mutating func count() -> Int? {
        guard let value = integer(), value <= UInt64(buffer.count - index) else { return nil }
        return Int(value)
    }

    mutating func string() -> String? {
        guard let length = count(), let raw = bytes(length) else { return nil }
        return String(decoding: raw, as: UTF8.self)
    }

    mutating func data() -> Data? {
        guard let length = count(), let raw = bytes(length) else { return nil }
        return Data(raw)
    }
}
