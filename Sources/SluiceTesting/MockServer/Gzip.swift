internal import CZlib
import Foundation
internal import NIOCore
import Synchronization

/// The gzip bodies `MockServer` serves, compressed once per kind and size and then cached.
///
/// Input is fed to zlib in blocks, so a 1 GiB decoded body never exists in memory; only the
/// compressed form (about 1 MB for 1 GiB of zeros) is kept.
enum GzipBodies {
    /// What a gzip body decodes to.
    enum Content: Hashable, Sendable {
        /// `count` deterministic bytes (see `MockServer.deterministicBytes(count:offset:)`).
        case deterministic(count: Int)
        /// `count` zero bytes: the gzip bomb.
        case zeros(count: Int)
    }

    /// One cached body; its lock is held while it is first compressed, so concurrent requests wait
    /// for one compression instead of each running their own.
    private final class Entry: Sendable {
        let body = Mutex<ByteBuffer?>(nil)
    }

    private static let entries = Mutex<[Content: Entry]>([:])

    /// The gzip-compressed body for `content`; slow the first time for large sizes (run it off the event loop).
    static func body(for content: Content) -> ByteBuffer {
        let entry = entries.withLock { entries in
            if let entry = entries[content] { return entry }
            let entry = Entry()
            entries[content] = entry
            return entry
        }
        return entry.body.withLock { body in
            if let body { return body }
            let compressed = compress(content)
            body = compressed
            return compressed
        }
    }

    private static func compress(_ content: Content) -> ByteBuffer {
        // Run-length matching finds the same 258-byte matches in zeros as a full search, many times faster.
        let deflater: GzipDeflater
        switch content {
        case .deterministic: deflater = GzipDeflater(strategy: Z_DEFAULT_STRATEGY)
        case .zeros: deflater = GzipDeflater(strategy: Z_RLE)
        }
        var output = ByteBuffer()
        switch content {
        case .deterministic(let count):
            var offset = 0
            DeterministicBytes.pattern.withUnsafeBytes { pattern in
                while offset < count {
                    let length = min(DeterministicBytes.blockLength, count - offset)
                    let start = offset % DeterministicBytes.period
                    deflater.deflate(UnsafeRawBufferPointer(rebasing: pattern[start..<start + length]), into: &output)
                    offset += length
                }
            }
        case .zeros(let count):
            let zeros = [UInt8](repeating: 0, count: 1 << 20)
            var offset = 0
            zeros.withUnsafeBytes { zeros in
                while offset < count {
                    let length = min(zeros.count, count - offset)
                    deflater.deflate(UnsafeRawBufferPointer(rebasing: zeros[0..<length]), into: &output)
                    offset += length
                }
            }
        }
        deflater.finish(into: &output)
        return output
    }
}

/// A zlib deflate stream writing the gzip format; used on one thread, then discarded.
private final class GzipDeflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private var scratch = [UInt8](repeating: 0, count: 1 << 16)

    init(strategy: Int32) {
        stream.initialize(to: z_stream())
        // windowBits 15 + 16 selects the gzip wrapper; memLevel 9 and level 9 give the best ratio.
        let status = deflateInit2_(
            stream, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 9, strategy,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
    }

    deinit {
        deflateEnd(stream)
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// Compresses `input`, appending whatever output zlib produces.
    func deflate(_ input: UnsafeRawBufferPointer, into output: inout ByteBuffer) {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(input.count)
        while stream.pointee.avail_in > 0 {
            run(flush: Z_NO_FLUSH, into: &output)
        }
    }

    /// Flushes the rest and writes the gzip trailer.
    func finish(into output: inout ByteBuffer) {
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while run(flush: Z_FINISH, into: &output) != Z_STREAM_END {}
    }

    @discardableResult
    private func run(flush: Int32, into output: inout ByteBuffer) -> Int32 {
        let stream = self.stream
        let (status, produced) = scratch.withUnsafeMutableBufferPointer { scratch in
            stream.pointee.next_out = scratch.baseAddress
            stream.pointee.avail_out = uInt(scratch.count)
            let status = CZlib.deflate(stream, flush)
            return (status, scratch.count - Int(stream.pointee.avail_out))
        }
        precondition(status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR, "deflate failed: \(status)")
        scratch.withUnsafeBytes { _ = output.writeBytes(UnsafeRawBufferPointer(rebasing: $0[0..<produced])) }
        return status
    }
}
