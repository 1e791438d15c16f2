/// Runs a parser over `bytes` as one contiguous buffer: in place for `Data` and arrays, which are
/// contiguous, and over a copy otherwise. Sluice's own parsers (XML, JSON, binary property
/// lists) read buffers.
///
/// `withContiguousStorageIfAvailable` only rethrows untyped errors, so the parser's typed result
/// crosses it as a `Result`.
package func withContiguousBytes<Value, Failure: Error>(
    of bytes: some Collection<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Value
) throws(Failure) -> Value {
    let result = bytes.withContiguousStorageIfAvailable { buffer in
        Result { () throws(Failure) in try body(buffer) }
    }
    if let result { return try result.get() }
    let copy = Array(bytes)
    return try copy.withUnsafeBufferPointer { buffer in
        Result { () throws(Failure) in try body(buffer) }
    }.get()
}
