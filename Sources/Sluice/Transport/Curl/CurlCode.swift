internal import CCurl

/// The one place every libcurl result code is checked.
///
/// Setup calls (`curl_easy_setopt`, `curl_multi_setopt`, …) go through `check`, which turns a
/// failure into an `invalidOption` error naming the call; finished transfers go through
/// `SluiceError(transferResult:…)`, which maps libcurl's code to the error a user can act on.
enum Curl {
    /// Throws if `code` is not `CURLE_OK`.
    static func check(_ code: CURLcode, _ what: @autoclosure () -> String) throws(SluiceError) {
        guard code != CURLE_OK else { return }
        throw SluiceError(
            .invalidOption, "libcurl refused \(what()): \(String(cString: curl_easy_strerror(code))).",
            curlCode: Int(code.rawValue))
    }

    /// Throws if `code` is not `CURLM_OK`.
    static func check(_ code: CURLMcode, _ what: @autoclosure () -> String) throws(SluiceError) {
        guard code != CURLM_OK else { return }
        throw SluiceError(
            .transportFailure,
            "libcurl's multi interface failed in \(what()): \(String(cString: curl_multi_strerror(code))).",
            curlCode: Int(code.rawValue))
    }

    /// Runs `curl_global_init` once per process, before the first handle is made. OpenSSL is told
    /// first to leave its state alone at exit: a process may exit while the loop thread is in it
    /// (see `sluice_openssl_skip_exit_cleanup`).
    static let globalInit: Void = {
        sluice_openssl_skip_exit_cleanup()
        let code = curl_global_init(SLUICE_GLOBAL_DEFAULT)
        precondition(code == CURLE_OK, "curl_global_init failed: \(code)")
    }()
}

/// Why Sluice itself stopped a transfer (libcurl then reports a write or callback error).
enum AbortReason: Equatable {
    case bodyTooLarge(limit: Int64)
    /// A final head announced a body (its Content-Length, not coded) longer than the limit.
    case announcedBodyTooLarge(length: Int64, limit: Int64)
    case headersTooLarge(limit: Int)
    case idleTimeout
    case fileWrite(String)
    case bodyRead(String)
    /// libcurl set out to send a non-idempotent request a second time (`TransferContext.beginAttempt`).
    case notSentAgain
    /// A connection died under an idempotent request whose body could not be read again from its
    /// start (why: an async sequence read once, a file gone), so libcurl could not send it again.
    case bodyNotRepeatable(String)
    /// The response head is invalid: its body's framing is ambiguous (`HeaderBlockParser`), or
    /// libcurl refused one of its lines; the reason completes "The response … is not valid HTTP: ".
    case invalidHead(String)
    /// The server's chain failed a certificate pin or the evaluator (`PeerChainCheck`): the reason.
    case peerRefused(PeerChainCheck.Refusal)
    /// libcurl refused a response header line longer than its own limit (`CURL_MAX_HTTP_HEADER`),
    /// reported as `CURLE_OUT_OF_MEMORY` (see `CurlLoop.finish`).
    case headerLineTooLong(limit: Int)
    /// A forwarding proxy answered 407: it wants credentials, or refused the ones it was given.
    case proxyRefused(proxy: String, hadCredentials: Bool)
    /// A body read to the close of a TLS connection ended without the server's close_notify
    /// (`TransferContext.endedWithoutCloseNotify`): it may have been cut short.
    case closedWithoutNotify
}

extension String {
    /// The text without its final full stop, to go inside a sentence of a message.
    var withoutFinalFullStop: String { hasSuffix(".") ? String(dropLast()) : self }
}

extension SluiceError {
    /// The error for a transfer that libcurl finished with `code`. `totalTimeoutExpired` tells
    /// which of libcurl's two timers a CURLE_OPERATION_TIMEDOUT comes from (see
    /// `TransferContext.totalTimeoutExpired`): the total timeout's when it had expired, else the
    /// connect timeout's.
    init(
        transferResult code: CURLcode, message: String, abort: AbortReason?, totalTimeoutExpired: Bool, url: String
    ) {
        let curlCode = Int(code.rawValue)
        // Each message below ends with its own full stop.
        let detail = (message.isEmpty ? String(cString: curl_easy_strerror(code)) : message).withoutFinalFullStop
        if let abort {
            switch abort {
            case .bodyTooLarge(let limit):
                self.init(
                    .responseTooLarge, "The response body from \(url) exceeded the limit of \(limit) bytes.",
                    curlCode: curlCode)
            case .announcedBodyTooLarge(let length, let limit):
                self.init(
                    .responseTooLarge,
                    "The response from \(url) announces a body of \(length) bytes, past the limit of \(limit) bytes.",
                    curlCode: curlCode)
            case .headersTooLarge(let limit):
                self.init(
                    .headersTooLarge, "The response headers from \(url) exceeded the limit of \(limit) bytes.",
                    curlCode: curlCode)
            case .idleTimeout:
                self.init(
                    .timedOut, "No data moved to or from \(url) within the idle timeout.", timeout: .idle,
                    curlCode: curlCode)
            case .fileWrite(let reason):
                self.init(.fileWriteFailed, "Writing the download from \(url) failed: \(reason).", curlCode: curlCode)
            case .bodyRead(let reason):
                self.init(.invalidBody, "Reading the request body for \(url) failed: \(reason).", curlCode: curlCode)
            case .notSentAgain:
                self.init(.connectionLost, Self.notSentAgain(url), curlCode: curlCode)
            case .bodyNotRepeatable(let reason):
                self.init(
                    .connectionLost,
                    "The connection to \(url) was lost before any response arrived; the request was not sent "
                        + "again because its body cannot be read again from the start: \(reason.withoutFinalFullStop).",
                    curlCode: curlCode)
            case .invalidHead(let reason):
                self.init(.protocolError, "The response from \(url) is not valid HTTP: \(reason).", curlCode: curlCode)
            case .peerRefused(let refusal):
                self.init(
                    .tlsFailure, "TLS with \(url) failed: \(refusal.message); nothing was sent.",
                    curlCode: curlCode, tlsFailure: refusal.reason)
            case .headerLineTooLong(let limit):
                self.init(
                    .headersTooLarge,
                    "A header line of the response from \(url) exceeded libcurl's limit of \(limit) bytes per line.",
                    curlCode: curlCode)
            case .proxyRefused(let proxy, let hadCredentials):
                self.init(proxyRefused: proxy, hadCredentials: hadCredentials, url: url, curlCode: curlCode)
            case .closedWithoutNotify:
                self.init(
                    .connectionLost,
                    "The connection to \(url) was closed without TLS close_notify while its body was read to the "
                        + "close: the body may have been cut short.",
                    // libcurl reported success: no code of its names the fault.
                    curlCode: nil)
            }
            return
        }
        switch code {
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self.init(.dnsFailure, "Could not resolve the host of \(url): \(detail).", curlCode: curlCode)
        case CURLE_COULDNT_CONNECT:
            self.init(.cannotConnect, "Could not connect to \(url): \(detail).", curlCode: curlCode)
        case CURLE_OPERATION_TIMEDOUT:
            if totalTimeoutExpired {
                self.init(
                    .timedOut, "The transfer from \(url) exceeded its total timeout: \(detail).", timeout: .total,
                    curlCode: curlCode)
            } else {
                self.init(
                    .timedOut, "Connecting to \(url) exceeded the connect timeout: \(detail).", timeout: .connect,
                    curlCode: curlCode)
            }
        case CURLE_RECV_ERROR where detail.contains("chunked-encoding"):
            // libcurl reports a malformed chunk (size, data or line end) as a receive error.
            self.init(.protocolError, "The chunked body from \(url) is not valid HTTP: \(detail).", curlCode: curlCode)
        case CURLE_RECV_ERROR where detail.contains(" alert "), CURLE_SEND_ERROR where detail.contains(" alert "):
            // A TLS alert after the handshake: with TLS 1.3 a server checks the client's certificate
            // after the client finished, so refusing it shows on the first read.
            self.init(
                .tlsFailure, "TLS with \(url) failed: \(detail).", curlCode: curlCode,
                tlsFailure: TLSFailureReason(curlCode: curlCode, message: detail))
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            self.init(
                .connectionLost, "The connection to \(url) was lost before the response was complete: \(detail).",
                curlCode: curlCode)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_USE_SSL_FAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_SHUTDOWN_FAILED,
            CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS,
            CURLE_SSL_CLIENTCERT:
            self.init(
                .tlsFailure, "TLS with \(url) failed: \(detail).", curlCode: curlCode,
                tlsFailure: TLSFailureReason(curlCode: curlCode, message: detail))
        case CURLE_WEIRD_SERVER_REPLY, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING,
            CURLE_UNSUPPORTED_PROTOCOL, CURLE_HTTP3:
            self.init(.protocolError, "The reply from \(url) is not valid HTTP: \(detail).", curlCode: curlCode)
        case CURLE_URL_MALFORMAT:
            self.init(.invalidURL, "libcurl could not parse \(url): \(detail).", curlCode: curlCode)
        case CURLE_FILESIZE_EXCEEDED:
            self.init(.responseTooLarge, "The response body from \(url) is too large: \(detail).", curlCode: curlCode)
        case CURLE_SEND_FAIL_REWIND:
            // A connection died under a non-idempotent request; Sluice refused to replay it.
            self.init(.connectionLost, Self.notSentAgain(url), curlCode: curlCode)
        case CURLE_READ_ERROR:
            self.init(.invalidBody, "The request body for \(url) could not be sent: \(detail).", curlCode: curlCode)
        default:
            self.init(.transportFailure, "The transfer from \(url) failed: \(detail).", curlCode: curlCode)
        }
    }

    /// A connection died under a non-idempotent request before any answer, and Sluice did not let
    /// libcurl send it again: its first attempt may have reached the server.
    private static func notSentAgain(_ url: String) -> String {
        "The connection to \(url) was lost before any response arrived; the request was not sent again because its method is not idempotent."
    }
}
