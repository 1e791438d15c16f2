import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

extension MultipartFormData {
    /// The most bytes a multipart body's reader produces in one read call. The reader copies file
    /// and provider bytes straight into the transport's buffer, a piece of at most this size at a
    /// time, and keeps no copy: memory stays this small however large the files are.
    public static let readChunkSize = 64 * 1024
}

/// One stretch of a multipart body: encoded boundaries and headers, a file, or a provider's bytes.
enum MultipartSegment: Sendable {
    case bytes(Data)
    case file(MultipartFile)
    case provider(BodyProvider, partName: String)

    /// The stretch's length in bytes, when it is known before sending.
    var length: Int64? {
        switch self {
        case .bytes(let data): return Int64(data.count)
        case .file(let file): return file.length
        case .provider(let provider, _): return provider.length
        }
    }
}

/// A file part that was checked when the body was made: it exists, is not a directory and opens.
struct MultipartFile: Sendable {
    /// The file's path.
    let path: String
    /// The name of the part it is sent in, for error messages.
    let partName: String
    /// The size of a regular file; nil for other kinds (a pipe, a device), sent to their end.
    let length: Int64?

    /// Checks the file at `url` by opening it, and records its size.
    init(checking url: URL, partName: String) throws(SluiceError) {
        guard url.isFileURL else {
            throw SluiceError(
                .multipartEncoding, "The file \(url.absoluteString) of part \"\(partName)\" is not a file URL.")
        }
        path = url.path
        self.partName = partName
        let descriptor = try Self.open(path, partName: partName)
        defer { close(descriptor) }
        length = try Self.size(of: descriptor, path: path, partName: partName)
    }

    /// Opens the file for reading, or fails with `.multipartEncoding` naming it.
    func open() throws(SluiceError) -> Int32 {
        let descriptor = try Self.open(path, partName: partName)
        let size: Int64?
        do throws(SluiceError) {
            size = try Self.size(of: descriptor, path: path, partName: partName)
        } catch {
            close(descriptor)
            throw error
        }
        guard size == length else {
            close(descriptor)
            throw SluiceError(
                .multipartEncoding,
                "The file \(path) of part \"\(partName)\" changed size after the form was made "
                    + "(\(length.map(String.init) ?? "unknown") bytes, now \(size.map(String.init) ?? "unknown")).")
        }
        return descriptor
    }

    private static func open(_ path: String, partName: String) throws(SluiceError) -> Int32 {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw SluiceError(
                .multipartEncoding,
                "The file \(path) of part \"\(partName)\" cannot be read: \(String(cString: strerror(errno))).")
        }
        return descriptor
    }

    /// The size of a regular file, nil for another kind; a directory fails.
    private static func size(of descriptor: Int32, path: String, partName: String) throws(SluiceError) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw SluiceError(
                .multipartEncoding,
                "The file \(path) of part \"\(partName)\" cannot be examined: \(String(cString: strerror(errno))).")
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            throw SluiceError(.multipartEncoding, "The file \(path) of part \"\(partName)\" is a directory.")
        case S_IFREG:
            return Int64(info.st_size)
        default:
            return nil
        }
    }
}

/// Reads a multipart body from its segments, in order, opening each file only when its turn
/// comes and closing it when it is done. A new reader starts again from the beginning.
final class MultipartBodyReader: BodyReader {
    private enum Cursor {
        case idle
        case bytes(offset: Int)
        case file(descriptor: Int32, produced: Int64)
        case provider(any BodyReader, produced: Int64)
    }

    private let segments: [MultipartSegment]
    private var index = 0
    private var cursor = Cursor.idle

    /// Fails with `.multipartEncoding` if a file has gone since the form was made.
    init(segments: [MultipartSegment]) throws(SluiceError) {
        for case .file(let file) in segments { close(try file.open()) }
        self.segments = segments
    }

    deinit { closeFile() }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let limit = min(buffer.count, MultipartFormData.readChunkSize)
        var filled = 0
        while filled < limit, index < segments.count {
            let count = try read(segments[index], into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<limit]))
            if count == 0 {
                closeFile()
                cursor = .idle
                index += 1
            } else {
                filled += count
            }
        }
        return filled
    }

    /// Reads the next bytes of `segment` into `target` (never empty); 0 when the segment is done.
    private func read(_ segment: MultipartSegment, into target: UnsafeMutableRawBufferPointer) throws -> Int {
        switch segment {
        case .bytes(let data):
            var offset = 0
            if case .bytes(let current) = cursor { offset = current }
            let count = min(target.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                target.baseAddress!.copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            cursor = .bytes(offset: offset + count)
            return count
        case .file(let file):
            if case .idle = cursor { cursor = .file(descriptor: try file.open(), produced: 0) }
            guard case .file(let descriptor, let produced) = cursor else { return 0 }
            let count = try readCounted(
                expected: file.length, produced: produced, into: target,
                source: "The file \(file.path) of part \"\(file.partName)\""
            ) { buffer throws(SluiceError) in
                try Self.read(descriptor, into: buffer, file: file)
            }
            cursor = .file(descriptor: descriptor, produced: produced + Int64(count))
            return count
        case .provider(let provider, let partName):
            if case .idle = cursor {
                do {
                    cursor = .provider(try provider.makeReader(), produced: 0)
                } catch {
                    throw Self.wrap(error, "The body of part \"\(partName)\" cannot be started")
                }
            }
            guard case .provider(let reader, let produced) = cursor else { return 0 }
            let count = try readCounted(
                expected: provider.length, produced: produced, into: target,
                source: "The body of part \"\(partName)\""
            ) { buffer throws(SluiceError) in
                do {
                    return try reader.read(into: buffer)
                } catch {
                    throw Self.wrap(error, "The body of part \"\(partName)\" failed")
                }
            }
            cursor = .provider(reader, produced: produced + Int64(count))
            return count
        }
    }

    /// Reads through `read`, checking that a source of known length produces exactly that many
    /// bytes: once the length is reached, one more read must report the end.
    private func readCounted(
        expected: Int64?, produced: Int64, into target: UnsafeMutableRawBufferPointer, source: String,
        _ read: (UnsafeMutableRawBufferPointer) throws(SluiceError) -> Int
    ) throws(SluiceError) -> Int {
        guard let expected else { return try read(target) }
        let remaining = expected - produced
        let window = remaining > 0 ? min(target.count, Int(clamping: remaining)) : target.count
        let count = try read(UnsafeMutableRawBufferPointer(rebasing: target[0..<window]))
        if remaining > 0 && count == 0 {
            throw SluiceError(
                .multipartEncoding, "\(source) ended after \(produced) of its \(expected) bytes.")
        }
        if remaining <= 0 && count > 0 {
            throw SluiceError(.multipartEncoding, "\(source) is longer than its \(expected) bytes.")
        }
        return count
    }

    private static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, file: MultipartFile
    ) throws(SluiceError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw SluiceError(
                .multipartEncoding,
                "Reading the file \(file.path) of part \"\(file.partName)\" failed: \(String(cString: strerror(errno)))."
            )
        }
    }

    private static func wrap(_ error: any Error, _ context: String) -> SluiceError {
        if let error = error as? SluiceError { return error }
        return SluiceError(.multipartEncoding, "\(context): \(error).", underlyingError: error)
    }

    private func closeFile() {
        if case .file(let descriptor, _) = cursor { close(descriptor) }
    }
}
