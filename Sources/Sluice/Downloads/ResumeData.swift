import FoundationEssentials

/// What a cancelled or failed download leaves to resume it with, as URLSession's and
/// AFNetworking's resume data: where it came from, what identified the content, how many bytes
/// arrived and the temporary file that holds them. `Codable`, so it can be saved and a download
/// resumed after the process restarts:
///
///     let saved = try JSONEncoder().encode(task.resumeData)
///     // … later, maybe in another process:
///     let data = try JSONDecoder().decode(ResumeData.self, from: saved)
///     let task = try client.download(resuming: data)
///
/// Resuming asks for the rest with `Range: bytes=N-` and `If-Range`; when the content changed
/// meanwhile the server sends all of it again and the download starts over (the task reports
/// `downloadRestarted`). A download whose response carried no strong validator (`ETag` or
/// `Last-Modified`) has none: its bytes cannot be known to belong to the content resumed.
public struct ResumeData: Sendable, Hashable, Codable {
    /// The URL the download came from (after redirects, the last hop's).
    public var url: URL
    /// What identified the content the temporary file holds.
    public var validator: DownloadValidator
    /// How many bytes of the body the temporary file holds.
    public var bytesReceived: Int64
    /// The length of the whole body, if the server said.
    public var expectedLength: Int64?
    /// The temporary file beside the destination, holding the bytes received.
    public var temporaryFile: URL
    /// Where the finished download goes.
    public var destination: URL

    /// Creates resume data (downloads make it; see `RequestTask.resumeData`).
    public init(
        url: URL, validator: DownloadValidator, bytesReceived: Int64, expectedLength: Int64? = nil,
        temporaryFile: URL, destination: URL
    ) {
        self.url = url
        self.validator = validator
        self.bytesReceived = bytesReceived
        self.expectedLength = expectedLength
        self.temporaryFile = temporaryFile
        self.destination = destination
    }
}
