internal import CZlib
import Foundation
internal import NIOCore

extension MockServer {
    /// The byte at `index` of the endless sequence that byte-serving routes send: `UInt8(index % 251)`.
    public static func deterministicByte(at index: Int) -> UInt8 {
        UInt8(index % DeterministicBytes.period)
    }

    /// `count` bytes of the deterministic sequence, starting at `offset` (for small sizes: this builds them).
    public static func deterministicBytes(count: Int, offset: Int = 0) -> Data {
        var data = Data(capacity: count)
        var position = offset
        var remaining = count
        while remaining > 0 {
            let length = min(remaining, DeterministicBytes.blockLength)
            let start = position % DeterministicBytes.period
            DeterministicBytes.pattern.withUnsafeBufferPointer { data.append(contentsOf: $0[start..<start + length]) }
            position += length
            remaining -= length
        }
        return data
    }

    /// The checksum of `count` deterministic bytes from `offset`, computed without building them (fast for any size).
    public static func deterministicChecksum(count: Int, offset: Int = 0) -> String {
        Checksum.format(DeterministicBytes.crc(offset: offset, count: count))
    }

    /// The checksum of `count` zero bytes (what `Endpoint.gzipBomb` decodes to), computed without building them.
    public static func zeroBytesChecksum(count: Int) -> String {
        let zeros = [UInt8](repeating: 0, count: DeterministicBytes.blockLength)
        return zeros.withUnsafeBufferPointer {
            Checksum.format(DeterministicBytes.crc(repeating: $0.baseAddress!, count: count))
        }
    }
}

/// The sequence `byte[i] = i % 251`, served in zero-copy slices of one shared buffer.
///
/// 251 is prime, so the pattern never lines up with power-of-two buffer sizes and a misplaced
/// chunk changes the checksum.
enum DeterministicBytes {
    static let period = 251
    /// The streaming chunk size: a whole number of periods, so every block starting at the same
    /// phase holds the same bytes.
    static let blockLength = period * 256

    /// One block plus one period, so a block-sized slice can start at any phase.
    static let pattern: [UInt8] = (0..<(blockLength + period)).map { UInt8($0 % period) }

    static let patternBuffer: ByteBuffer = ByteBuffer(bytes: pattern)

    /// The `length` bytes (at most `blockLength`) that start at `offset` of the sequence.
    static func chunk(offset: Int, length: Int) -> ByteBuffer {
        precondition(length <= blockLength)
        return patternBuffer.getSlice(at: offset % period, length: length)!
    }

    /// `length` bytes from `offset`: a zero-copy slice up to `blockLength`, a new buffer beyond.
    static func buffer(offset: Int, length: Int) -> ByteBuffer {
        if length <= blockLength { return chunk(offset: offset, length: length) }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(length)
        var position = offset
        while position < offset + length {
            var piece = chunk(offset: position, length: min(blockLength, offset + length - position))
            position += piece.readableBytes
            buffer.writeBuffer(&piece)
        }
        return buffer
    }

    /// The CRC-32 of `count` bytes from `offset`, by combining block CRCs (logarithmic in `count`).
    static func crc(offset: Int, count: Int) -> UInt32 {
        // Every block is a whole number of periods, so all blocks from one phase hold the same bytes.
        pattern.withUnsafeBufferPointer { crc(repeating: $0.baseAddress! + offset % period, count: count) }
    }

    /// The CRC-32 of the first `count` bytes of the block at `block` repeated: `blockLength` bytes
    /// that repeat whole, then a prefix of them.
    static func crc(repeating block: UnsafePointer<UInt8>, count: Int) -> UInt32 {
        let blocks = count / blockLength
        var total: uLong = 0
        if blocks > 0 {
            // `power` is the CRC of 2^k blocks; `total` collects the powers that make up `blocks`.
            var power = crc32_z(0, block, blockLength)
            var powerLength = blockLength
            var remaining = blocks
            var started = false
            while remaining > 0 {
                if remaining & 1 == 1 {
                    total = started ? crc32_combine(total, power, powerLength) : power
                    started = true
                }
                remaining >>= 1
                if remaining > 0 {
                    power = crc32_combine(power, power, powerLength)
                    powerLength *= 2
                }
            }
        }
        let rest = count % blockLength
        if rest > 0 { total = crc32_z(total, block, rest) }
        return UInt32(total)
    }
}
