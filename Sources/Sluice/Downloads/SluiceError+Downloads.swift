extension SluiceError.Code {
    /// A download's digest differs from the `ExpectedDigest` it was given; the file was deleted,
    /// never put at its destination. `message` has both digests.
    public static let digestMismatch = SluiceError.Code("digestMismatch")
    /// The digest an `ExpectedDigest` asks for cannot be computed in this process (libcurl was
    /// built with a TLS library other than OpenSSL, whose digests Sluice uses).
    public static let digestUnavailable = SluiceError.Code("digestUnavailable")
    /// A download cannot go on: its resume data or temporary file cannot be used, or the server's
    /// answers to a range request stayed inconsistent after starting over.
    public static let downloadFailed = SluiceError.Code("downloadFailed")
}
