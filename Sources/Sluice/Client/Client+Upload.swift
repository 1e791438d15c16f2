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
}
