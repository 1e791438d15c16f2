#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a line to standard error (progress, usage errors), keeping standard output for the report
/// (the parent's) or the one result line (a child's).
public func note(_ text: String) {
    // `write` on the descriptor: the C `stderr` global is shared mutable state to Swift 6.
    var line = text + "\n"
    line.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}
