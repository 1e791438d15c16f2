/// `CurlTransport`'s defaults that the C client copies, so that both clients run under the same
/// limits and buffer.
///
/// The C child does not link Sluice (its peak RSS is that of a program on libcurl alone), so it
/// cannot read them from `CurlTransport.Configuration`; the parent, which links Sluice, checks at
/// start that the first three still match (the receive buffer is internal to Sluice).
public enum SluiceDefaults {
    /// Connections open at once, in all (`CURLMOPT_MAX_TOTAL_CONNECTIONS`).
    public static let maximumConnections = 256
    /// Connections open at once to one host (`CURLMOPT_MAX_HOST_CONNECTIONS`).
    public static let maximumConnectionsPerHost = 64
    /// Idle connections the multi handle keeps (`CURLMOPT_MAXCONNECTS`).
    public static let connectionCacheSize = 128
    /// libcurl's receive buffer for a download to a file (`CURLOPT_BUFFERSIZE`).
    public static let downloadBufferSize = 512 * 1024
}
