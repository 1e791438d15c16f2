import FoundationEssentials

// Downloads: a body written to a temporary file beside the destination as it arrives, moved into
// place only when all of it arrived (and matched its digest), run as a task that can be suspended,
// resumed, cancelled and resumed again later from its resume data (see `RequestTask`,
// `ResumeData`, `DownloadRun`).

extension Client {
    /// A task that downloads `path` to `file`, made idle: `resume()`, or awaiting its `response`,
    /// starts it (see `RequestTask`).
    ///
    /// The body is written as it arrives into a temporary file beside `file` (never held in
    /// memory; bounded by `RequestOptions.maximumDownloadSize`, no limit by default), which is
    /// moved to `file` atomically once the response is complete and, with `expectedDigest`, its
    /// digest matched: a failed download never leaves a partial file at `file`. The response's
    /// `fileURL` is `file`. A response with a status other than 2xx keeps its body in memory (for
    /// `validate()` and error messages) and leaves `file` as it was.
    ///
    /// A download that is cancelled or fails keeps its temporary file when it can be resumed, and
    /// its task's `resumeData` says how (`download(resuming:)`). Downloads ask for the content as
    /// the server stores it (`Accept-Encoding: identity`, unless `headers` name another) and write
    /// it undecoded, so that ranges, lengths and digests all apply to the same bytes. `modify`
    /// changes the request before it is sent (see `RequestModifier`).
    public func download(
        _ path: String, to file: URL, parameters: Parameters? = nil, headers: HTTPHeaders = [:],
        expectedDigest: ExpectedDigest? = nil, modify: RequestModifier? = nil
    ) throws(SluiceError) -> RequestTask {
        var request = try makeRequest(.get, path, parameters: parameters, headers: headers, modify: modify)
        request.asStoredBytes()
        let plan = DownloadPlan(url: request.url, destination: file, expectedDigest: expectedDigest, resumedFrom: nil)
        return RequestTask(client: self, request: request, downloadPlan: plan)
    }

    /// A task that resumes a download from `resumeData` (from a `RequestTask`, perhaps of an earlier
    /// process): it asks for the bytes the temporary file lacks with `Range` and `If-Range`, and
    /// starts over, reporting `downloadRestarted`, when the content changed, the server serves no
    /// ranges or the temporary file lost bytes. Made idle, as `download(_:to:)`.
    public func download(
        resuming resumeData: ResumeData, headers: HTTPHeaders = [:], expectedDigest: ExpectedDigest? = nil,
        modify: RequestModifier? = nil
    ) throws(SluiceError) -> RequestTask {
        var request = try makeRequest(.get, resumeData.url.absoluteString, headers: headers, modify: modify)
        request.asStoredBytes()
        let plan = DownloadPlan(
            url: request.url, destination: resumeData.destination, expectedDigest: expectedDigest,
            resumedFrom: resumeData)
        return RequestTask(client: self, request: request, downloadPlan: plan)
    }
}

extension Request {
    /// Asks for the content's bytes as stored, and keeps them so: a range of an encoded body is a
    /// range of the encoding, which cannot be decoded from its middle.
    fileprivate mutating func asStoredBytes() {
        options.decompress = false
        if headers["Accept-Encoding"] == nil { headers["Accept-Encoding"] = "identity" }
    }
}
