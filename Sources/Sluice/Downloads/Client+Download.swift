import FoundationEssentials

// Downloads: a body written to a file as it arrives, run as a task that can be suspended, resumed
// and cancelled (see `RequestTask`). Resumable downloads (resume data, `Range` requests) belong
// here too.

extension Client {
    /// A task that downloads `path` into `file` (written as it arrives, never held in memory),
    /// made suspended (see `RequestTask`); the response's `fileURL` is `file`.
    public func download(
        _ path: String, to file: URL, parameters: Parameters? = nil, headers: HTTPHeaders = [:]
    ) throws(SluiceError) -> RequestTask {
        var request = try makeRequest(.get, path, parameters: parameters, headers: headers)
        request.options.destination = .file(file)
        return task(request)
    }
}
