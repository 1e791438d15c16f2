import BenchChild
import CRawCurl

/// The transport suite's download by the C client: one GET on raw libcurl multi, the body counted
/// and dropped, with the receive buffer Sluice uses for downloads to a file.
enum RawCurlDownload {
    /// Downloads `url` once; nil (having said why) when it failed.
    static func run(_ url: String, bytes _: Int) -> TransportDownloadChild.Measurement? {
        guard let raw = raw_curl_client_create(SluiceDefaults.connectionCacheSize) else {
            note("transport: the C client could not initialise libcurl")
            return nil
        }
        defer { raw_curl_client_destroy(raw) }
        var result = raw_curl_result()
        let baseline = Measure.residentKiB() ?? 0
        let elapsed = Measure.time {
            raw_curl_client_get(
                raw, url, 1, 1, SluiceDefaults.downloadBufferSize, TransportDownloadChild.deadlineSeconds * 1000,
                &result)
        }
        guard elapsed.result == 0, result.succeeded == 1 else {
            note("transport: C download failed: error \(result.first_error), timed out: \(result.timed_out)")
            return nil
        }
        return TransportDownloadChild.Measurement(
            nanoseconds: elapsed.nanoseconds, bytes: Int(result.bytes), baselineKiB: baseline)
    }
}
