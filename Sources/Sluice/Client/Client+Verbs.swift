import FoundationEssentials

extension Client {
    /// `GET path`; parameters go in the query string.
    public func get(_ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) -> SignalProducer<
        Response, SluiceError
    > {
        request(.get, path, parameters: parameters, headers: headers)
    }

    /// `HEAD path`; parameters go in the query string.
    public func head(_ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) -> SignalProducer<
        Response, SluiceError
    > {
        request(.head, path, parameters: parameters, headers: headers)
    }

    /// `DELETE path`; parameters go in the query string.
    public func delete(_ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) -> SignalProducer<
        Response, SluiceError
    > {
        request(.delete, path, parameters: parameters, headers: headers)
    }

    /// `OPTIONS path`.
    public func options(_ path: String, parameters: Parameters? = nil, headers: HTTPHeaders = [:]) -> SignalProducer<
        Response, SluiceError
    > {
        request(.options, path, parameters: parameters, headers: headers)
    }

    /// `POST path`; parameters go in the body, form-encoded unless `encoding` says otherwise.
    public func post(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// `PUT path`; parameters go in the body, form-encoded unless `encoding` says otherwise.
    public func put(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.put, path, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// `PATCH path`; parameters go in the body, form-encoded unless `encoding` says otherwise.
    public func patch(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.patch, path, parameters: parameters, encoding: encoding, headers: headers)
    }

    /// `method path` with an Encodable value as a JSON body (`Content-Type: application/json`).
    public func request<Body: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            let request = try makeRequest(method, path, headers: headers)
            return send(try JSONEncoding.default.encode(request, with: body, encoder: encoder))
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// `method path` with an Encodable value as a form body (`application/x-www-form-urlencoded`),
    /// encoded with the same nested-key rules as query parameters.
    public func request<Body: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, form body: Body, headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            let request = try makeRequest(method, path, headers: headers)
            return send(try URLEncoding.httpBody.encode(request, with: body))
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// `POST path` with an Encodable value as a JSON body.
    public func post<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, json: body, encoder: encoder, headers: headers)
    }

    /// `PUT path` with an Encodable value as a JSON body.
    public func put<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.put, path, json: body, encoder: encoder, headers: headers)
    }

    /// `PATCH path` with an Encodable value as a JSON body.
    public func patch<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.patch, path, json: body, encoder: encoder, headers: headers)
    }

    /// `POST path` with an Encodable value as a form body.
    public func post<Body: Encodable & Sendable>(
        _ path: String, form body: Body, headers: HTTPHeaders = [:]
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, form: body, headers: headers)
    }
}
