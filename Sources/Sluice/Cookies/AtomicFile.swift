import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file whole, so that nobody ever reads half of it and a failure leaves the old one.
enum AtomicFile {
    /// Writes `data` to a new file beside `file` (created with `mode`, never an existing one),
    /// flushes it to disk, then renames it over `file`; throws `fileWriteFailed` naming the step
    /// that failed, after removing the new file.
    static func write(_ data: Data, to file: URL, mode: mode_t) throws(SluiceError) {
        let path = file.path
        let temporary = "\(path).\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw failure("create \(temporary)", path) }
        var failed: SluiceError? = nil
        // The mode given to `open` passes through the umask, which may only take bits away; set
        // again, in case the umask was unusual.
        if fchmod(descriptor, mode) != 0 { failed = failure("set the mode of \(temporary)", path) }
        if failed == nil {
            let complete = data.withUnsafeBytes { bytes in writeAll(bytes, to: descriptor) }
            if !complete { failed = failure("write \(temporary)", path) }
        }
        if failed == nil, fsync(descriptor) != 0 { failed = failure("flush \(temporary)", path) }
        if close(descriptor) != 0, failed == nil { failed = failure("close \(temporary)", path) }
        if failed == nil, rename(temporary, path) != 0 { failed = failure("rename \(temporary) to \(path)", path) }
        if let failed {
            unlink(temporary)
            throw failed
        }
    }

    private static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    private static func failure(_ step: String, _ path: String) -> SluiceError {
        SluiceError(.fileWriteFailed, "Cannot save \(path): could not \(step): \(String(cString: strerror(errno))).")
    }
}
