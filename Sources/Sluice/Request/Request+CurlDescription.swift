import FoundationEssentials

extension Request {
    /// The request as an equivalent `curl` command line, with credentials shown as `***`.
    public var curlDescription: String { curlDescription(redactingAuthorization: true) }

    /// The request as an equivalent `curl` command line to paste into a POSIX shell.
    ///
    /// For example `curl -v -X POST -H 'Content-Type: application/json' --data-binary '{"a":1}'
    /// 'https://example.com/'`. Every argument that is not a plain word is single-quoted (a `'`
    /// inside becomes `'\''`). `-X` is left out for a GET without a body, `--head` stands for
    /// HEAD. Options appear when they differ from curl's behaviour or Sluice's defaults:
    /// `--compressed`, `--connect-timeout` (when not 10 s), `--max-time`, `--insecure`, the proxy
    /// (`--proxy`, `--proxy-user`, `--noproxy`, `--proxy-insecure`), host overrides
    /// (`--connect-to`), `-4` or `-6`, `--unix-socket`, the HTTP version and `-o` for a download
    /// to a file, with `-C` for the offset a resumed download continues from (its `Range` header
    /// is then left to `-C`). An HTTPS proxy's own CA certificates are not shown.
    ///
    /// A UTF-8 body is given inline (`--data-raw` when it starts with `@`, which curl would read
    /// as a file name); a file body as `--data-binary @path`; up to 64 KiB of binary data is
    /// piped in from base64 (`printf '%s' '…' | base64 -d | curl … --data-binary @-`); a longer
    /// binary body or a stream (a multipart form) is read from standard input, with a trailing
    /// comment saying what to pipe in.
    ///
    /// It shows the request's own headers: the client's default headers are added by the chain as
    /// the request is sent, so use `client.curlDescription(for:)` to see them too (or the
    /// `curlDescription` of `response.request`, the request the last hop sent).
    ///
    /// Unless `redactingAuthorization` is false, the values of `Authorization`,
    /// `Proxy-Authorization` and `Cookie` and the passwords in the URL and of the proxy are `***`.
    public func curlDescription(redactingAuthorization: Bool = true) -> String {
        var arguments = ["curl", "-v"]
        let body = CurlBodyArguments(body)
        switch method {
        case .head:
            arguments.append("--head")
        case .get where body.arguments.isEmpty:
            break
        default:
            arguments += ["-X", CurlShell.word(method.rawValue)]
        }
        let resumeOffset = self.resumeOffset
        for field in headers {
            // A resumed download's range is curl's `-C` (below), which appends to the file: with
            // `-H 'Range: …'` and `-o`, curl would write the rest over the start of the file.
            if let resumeOffset, field.name.caseInsensitiveEquals("Range"), field.value == "bytes=\(resumeOffset)-" {
                continue
            }
            let redacted =
                redactingAuthorization
                && CurlShell.redactedHeaderNames.contains { field.name.caseInsensitiveEquals($0) }
            let value = redacted ? "***" : field.value
            // curl's syntax for a header with an empty value is "Name;" ("Name:" would remove it).
            arguments += ["-H", CurlShell.quoted(value.isEmpty ? "\(field.name);" : "\(field.name): \(value)")]
        }
        arguments += optionArguments(redactingAuthorization: redactingAuthorization)
        arguments += body.arguments
        let url = redactingAuthorization ? CurlShell.redactingPassword(in: url.absoluteString) : url.absoluteString
        arguments.append(CurlShell.quoted(url))
        return body.pipePrefix + arguments.joined(separator: " ") + body.comment
    }

    /// Arguments for the transfer options that change what curl would do.
    private func optionArguments(redactingAuthorization: Bool) -> [String] {
        var arguments: [String] = []
        if options.decompress { arguments.append("--compressed") }
        if options.connectTimeout != RequestOptions().connectTimeout {
            arguments += ["--connect-timeout", CurlShell.seconds(options.connectTimeout)]
        }
        if let timeout = options.timeout { arguments += ["--max-time", CurlShell.seconds(timeout)] }
        if options.tls.isInsecure { arguments.append("--insecure") }
        arguments += connectionArguments(redactingAuthorization: redactingAuthorization)
        switch options.httpVersion {
        case .automatic: break
        case .http1_1: arguments.append("--http1.1")
        case .http2: arguments.append("--http2-prior-knowledge")
        }
        if let resumeOffset { arguments += ["-C", String(resumeOffset)] }
        if let destination = options.destination.openedFile {
            arguments += ["-o", CurlShell.quoted(destination.path)]
        }
        return arguments
    }

    /// Where a resumed download continues its partial file (`BodyDestination.partialFile`), when
    /// it continues one that has bytes already.
    private var resumeOffset: Int64? {
        guard case .partialFile(_, let offset) = options.destination, offset > 0 else { return nil }
        return offset
    }
}

extension Request {
    /// Arguments for where the connection goes: the proxy, host overrides, IP version, Unix socket.
    private func connectionArguments(redactingAuthorization: Bool) -> [String] {
        var arguments: [String] = []
        if let proxy = options.proxy {
            arguments += ["--proxy", CurlShell.quoted(proxy.url)]
            if let credentials = proxy.credentials {
                let password = redactingAuthorization ? "***" : credentials.password
                arguments += ["--proxy-user", CurlShell.quoted("\(credentials.username):\(password)")]
            }
            if let bypass = proxy.bypassText { arguments += ["--noproxy", CurlShell.quoted(bypass)] }
            if proxy.kind == .https && !proxy.tls.verifiesCertificate { arguments.append("--proxy-insecure") }
        }
        for override in options.hostOverrides { arguments += ["--connect-to", CurlShell.quoted(override.line)] }
        switch options.ipPreference {
        case .any: break
        case .ipv4: arguments.append("-4")
        case .ipv6: arguments.append("-6")
        }
        if let path = options.unixSocketPath { arguments += ["--unix-socket", CurlShell.quoted(path)] }
        return arguments
    }
}

/// How a request body appears on a curl command line.
private struct CurlBodyArguments {
    /// Binary bodies up to this size are piped in from base64; longer ones are left out.
    static let inlineBinaryLimit = 64 * 1024

    var pipePrefix = ""
    var arguments: [String] = []
    var comment = ""

    init(_ body: RequestBody) {
        switch body {
        case .empty:
            break
        case .data(let data):
            if let text = String(data: data, encoding: .utf8), !text.utf8.contains(0) {
                arguments = [text.hasPrefix("@") ? "--data-raw" : "--data-binary", CurlShell.quoted(text)]
            } else if data.count <= Self.inlineBinaryLimit {
                pipePrefix = "printf '%s' \(CurlShell.quoted(data.base64EncodedString())) | base64 -d | "
                arguments = ["--data-binary", "@-"]
            } else {
                arguments = ["--data-binary", "@-"]
                comment = " # pipe in the body: \(data.count) bytes of binary data, not shown"
            }
        case .file(let url):
            arguments = ["--data-binary", CurlShell.quoted("@" + url.path)]
        case .stream(let provider):
            arguments = ["--data-binary", "@-"]
            let size = provider.length.map { "\($0) bytes" } ?? "unknown length"
            comment = " # pipe in the body: a stream of \(size), not shown"
        }
    }
}

/// Quoting for POSIX shells, and the other small pieces of a curl command line.
enum CurlShell {
    /// Headers whose values are credentials.
    static let redactedHeaderNames = ["Authorization", "Proxy-Authorization", "Cookie"]

    /// `text` in single quotes, each `'` inside written `'\''`.
    ///
    /// By scalar, not by `Character`: a `'` followed by a combining mark is one `Character` that is
    /// not `'`, yet its quote byte still ends the shell's quoting.
    static func quoted(_ text: String) -> String {
        var result = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" {
                result += #"'\''"#
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "'"
    }

    /// `text` as is when it is a plain word the shell leaves alone, quoted otherwise.
    static func word(_ text: String) -> String {
        let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.,/:@%+=".utf8)
        return !text.isEmpty && text.utf8.allSatisfy(plain.contains) ? text : quoted(text)
    }

    /// A duration in seconds, as curl's options take it: `10`, `2.5`, `0.25`.
    static func seconds(_ duration: Duration) -> String {
        let milliseconds = duration.wholeMilliseconds
        guard milliseconds % 1000 != 0 else { return String(milliseconds / 1000) }
        var fraction = String(milliseconds % 1000)
        fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(milliseconds / 1000).\(fraction)"
    }

    /// A URL with the password of its user information replaced by `***`.
    static func redactingPassword(in url: String) -> String {
        guard var components = URLComponents(string: url), components.percentEncodedPassword != nil else { return url }
        components.percentEncodedPassword = "***"
        return components.string ?? url
    }
}
