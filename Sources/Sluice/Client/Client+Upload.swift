import FoundationEssentials

extension Client {
    /// Uploads a multipart form to `path` (POST by default): form fields from `parameters` first,
    /// then the parts the block appends, as AFNetworking did. Files are streamed from disk while
    /// sending; a missing or unreadable file fails with `.multipartEncoding` before anything is sent.
    /// `modify` changes the request before it is sent (see `RequestModifier`).
    public func upload(
        multipartFormData build: (inout MultipartFormData) -> Void,
        to path: String,
        method: HTTPMethod = .post,
        parameters: Parameters? = nil,
        headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            var form = MultipartFormData()
            if let parameters { try form.append(parameters) }
            build(&form)
            let (body, contentType) = try form.makeBody()
            var request = try makeRequest(method, path, headers: headers)
            if !headers.contains("Content-Type") { request.headers["Content-Type"] = contentType }
            request.body = body
            try modify?(&request)
            return send(request)
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// Uploads `source` to `path` (POST by default) as the request's body, with `contentType` as
    /// its `Content-Type` when given (`application/octet-stream` otherwise, unless `headers` has
    /// one); `modify` changes the request before it is sent (see `RequestModifier`). A missing or
    /// unreadable file fails with `.invalidBody` when the request is sent.
    ///
    ///     let response = try await client.upload(.file(archive), to: "backups/2026", method: .put).validate().value
    public func upload(
        _ source: UploadSource, to path: String, method: HTTPMethod = .post, contentType: String? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            return send(try makeUploadRequest(source, path, method, contentType, headers, modify))
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// The same upload as a task, made suspended, whose `uploadProgress` follows the body as it
    /// goes out (see `RequestTask`).
    ///
    ///     let task = try client.uploadTask(.file(video), to: "videos")
    ///     task.uploadProgress.signal.observeValues { print($0.fraction ?? 0) }
    ///     task.resume()
    public func uploadTask(
        _ source: UploadSource, to path: String, method: HTTPMethod = .post, contentType: String? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) throws(SluiceError) -> RequestTask {
        task(try makeUploadRequest(source, path, method, contentType, headers, modify))
    }

    private func makeUploadRequest(
        _ source: UploadSource, _ path: String, _ method: HTTPMethod, _ contentType: String?, _ headers: HTTPHeaders,
        _ modify: RequestModifier?
    ) throws(SluiceError) -> Request {
        var request = try makeRequest(method, path, headers: headers)
        request.body = source.body
        if let contentType {
            request.headers["Content-Type"] = contentType
        } else if !request.headers.contains("Content-Type") {
            request.headers["Content-Type"] = "application/octet-stream"
        }
        try modify?(&request)
        return request
    }
}
