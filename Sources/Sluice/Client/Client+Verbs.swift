import FoundationEssentials

extension Client {
    /// `GET path`; parameters go in the query string unless `encoding` says otherwise; `modify`
    /// changes the request before it is sent (its options, say: see `RequestModifier`).
    public func get(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.get, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `HEAD path`; parameters go in the query string unless `encoding` says otherwise; `modify`
    /// changes the request before it is sent (its options, say: see `RequestModifier`).
    public func head(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.head, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `DELETE path`; parameters go in the query string unless `encoding` says otherwise; `modify`
    /// changes the request before it is sent (its options, say: see `RequestModifier`).
    public func delete(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.delete, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `OPTIONS path`; `modify` changes the request before it is sent (see `RequestModifier`).
    public func options(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.options, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `POST path`; parameters go in the body, form-encoded unless `encoding` says otherwise;
    /// `modify` changes the request before it is sent (see `RequestModifier`).
    public func post(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `PUT path`; parameters go in the body, form-encoded unless `encoding` says otherwise;
    /// `modify` changes the request before it is sent (see `RequestModifier`).
    public func put(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.put, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `PATCH path`; parameters go in the body, form-encoded unless `encoding` says otherwise;
    /// `modify` changes the request before it is sent (see `RequestModifier`).
    public func patch(
        _ path: String, parameters: Parameters? = nil, encoding: (any ParameterEncoding)? = nil,
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.patch, path, parameters: parameters, encoding: encoding, headers: headers, modify: modify)
    }

    /// `method path` with an Encodable value as a JSON body (`Content-Type: application/json`).
    public func request<Body: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(),
        headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            var request = try JSONEncoding.default.encode(
                try makeRequest(method, path, headers: headers), with: body, encoder: encoder)
            try modify?(&request)
            return send(request)
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// `method path` with an Encodable value as a form body (`application/x-www-form-urlencoded`),
    /// encoded with the same nested-key rules as query parameters.
    public func request<Body: Encodable & Sendable>(
        _ method: HTTPMethod, _ path: String, form body: Body, headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        do throws(SluiceError) {
            var request = try URLEncoding.httpBody.encode(try makeRequest(method, path, headers: headers), with: body)
            try modify?(&request)
            return send(request)
        } catch {
            return SignalProducer(error: error)
        }
    }

    /// `POST path` with an Encodable value as a JSON body.
    public func post<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, json: body, encoder: encoder, headers: headers, modify: modify)
    }

    /// `PUT path` with an Encodable value as a JSON body.
    public func put<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.put, path, json: body, encoder: encoder, headers: headers, modify: modify)
    }

    /// `PATCH path` with an Encodable value as a JSON body.
    public func patch<Body: Encodable & Sendable>(
        _ path: String, json body: Body, encoder: JSONEncoder = JSONEncoder(), headers: HTTPHeaders = [:],
        modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.patch, path, json: body, encoder: encoder, headers: headers, modify: modify)
    }

    /// `POST path` with an Encodable value as a form body.
    public func post<Body: Encodable & Sendable>(
        _ path: String, form body: Body, headers: HTTPHeaders = [:], modify: RequestModifier? = nil
    ) -> SignalProducer<Response, SluiceError> {
        request(.post, path, form: body, headers: headers, modify: modify)
    }
}
