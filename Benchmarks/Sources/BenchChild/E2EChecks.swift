#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Fails `outcome` unless the downloaded file at `destination` is exactly `expected` bytes long.
public func checkFileSize(destination: String, expected: Int, _ outcome: inout E2EOutcome) {
    let size = fileSize(destination)
    if size != expected, outcome.succeeded > 0 {
        outcome.succeeded -= 1
        outcome.failed += 1
        outcome.firstFailure = "the downloaded file has \(size) bytes instead of \(expected)"
    }
}

/// Fails `outcome` unless nginx's answer (the request's length, head included) covers the whole file.
public func checkUploadAnswer(_ answer: String, bodyBytes: Int, _ outcome: inout E2EOutcome) {
    let words = answer.split(whereSeparator: \.isWhitespace)
    let length = words.count == 1 ? Int(words[0]) ?? -1 : -1
    if length < bodyBytes, outcome.succeeded > 0 {
        outcome.succeeded -= 1
        outcome.failed += 1
        outcome.firstFailure = "nginx read \(length) request bytes, fewer than the \(bodyBytes)-byte file"
    }
}

/// The size of the file at `path` in bytes, -1 if it cannot be read (`stat(2)`: the harness has no
/// Foundation for `FileManager`).
public func fileSize(_ path: String) -> Int {
    var info = stat()
    return stat(path, &info) == 0 ? Int(info.st_size) : -1
}
