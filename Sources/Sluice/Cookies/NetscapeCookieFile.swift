import FoundationEssentials

/// The Netscape cookie file format that curl, wget and browser exporters read and write: one cookie
/// a line, seven fields separated by tabs (domain, whether subdomains match, path, secure, expiry
/// in seconds since 1970 with 0 for a session cookie, name, value). A domain prefixed `#HttpOnly_`
/// is an HttpOnly cookie; other lines that start with `#`, and blank lines, are comments.
///
/// libcurl's own list of its cookies (CURLINFO_COOKIELIST) is in this format too, so the jar reads
/// that with the same parser.
enum NetscapeCookieFile {
    /// The first line of a file this writes, as curl writes it.
    static let header = "# Netscape HTTP Cookie File\n# Written by Sluice. Edit at your own risk.\n\n"

    private static let httpOnlyPrefix = "#HttpOnly_"

    /// The cookies in `text`, in order; throws `invalidCookieFile` naming the first line that is
    /// not a cookie (`source` names the file in the message).
    static func parse(_ text: String, source: String) throws(SluiceError) -> [Cookie] {
        var cookies: [Cookie] = []
        var number = 0
        // CR LF is one Character in Swift, not an LF: both end a line.
        for line in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            var line = Substring(line)
            if line.hasSuffix("\r") { line = line.dropLast() }
            do throws(LineProblem) {
                if let cookie = try parseLine(line) { cookies.append(cookie) }
            } catch {
                throw SluiceError(.invalidCookieFile, "Line \(number) of \(source) is not a cookie: \(error.reason).")
            }
        }
        return cookies
    }

    /// Why a line is not a cookie.
    struct LineProblem: Error {
        let reason: String
    }

    /// The cookie on one line, or nil for a comment or a blank line.
    static func parseLine(_ line: Substring) throws(LineProblem) -> Cookie? {
        // Prefixes are compared scalar by scalar: as Characters, a `.`, `#` or `_` followed by a
        // combining mark is one Character that no longer starts with it (the fuzzer found a
        // domain starting with U+065A that read back with its dot).
        var line = line
        var isHTTPOnly = false
        if line.unicodeScalars.starts(with: httpOnlyPrefix.unicodeScalars) {
            isHTTPOnly = true
            line = Substring(line.unicodeScalars.dropFirst(httpOnlyPrefix.unicodeScalars.count))
        } else if line.unicodeScalars.first == "#" || line.unicodeScalars.allSatisfy({ $0 == " " || $0 == "\t" }) {
            return nil
        }
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        // curl writes an empty value as nothing after the last tab, and some exporters leave out
        // that tab too.
        guard fields.count == 7 || fields.count == 6 else {
            throw LineProblem(reason: "it has \(fields.count) tab-separated fields, not 7")
        }
        var domain = fields[0]
        let includesSubdomains = try flag(fields[1], "the subdomain flag")
        if domain.unicodeScalars.first == "." { domain = Substring(domain.unicodeScalars.dropFirst()) }
        let isSecure = try flag(fields[3], "the secure flag")
        guard let seconds = Int64(fields[4]), seconds >= 0 else {
            throw LineProblem(reason: "its expiry \(String(fields[4]).debugDescription) is not a number of seconds")
        }
        let cookie = Cookie(
            name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "", domain: String(domain),
            includesSubdomains: includesSubdomains, path: String(fields[2]), isSecure: isSecure,
            isHTTPOnly: isHTTPOnly, expires: seconds == 0 ? nil : Date(timeIntervalSince1970: Double(seconds)))
        if let problem = cookie.problem() { throw LineProblem(reason: problem) }
        return cookie
    }

    private static func flag(_ field: Substring, _ what: String) throws(LineProblem) -> Bool {
        switch field {
        case "TRUE": return true
        case "FALSE": return false
        default: throw LineProblem(reason: "\(what) is \(String(field).debugDescription), not TRUE or FALSE")
        }
    }

    /// The line of `cookie` (without a newline); an expiry at or before 1970 is written as 1, the
    /// earliest one that is not a session cookie's 0.
    static func line(for cookie: Cookie) -> String {
        let domain = (cookie.isHTTPOnly ? httpOnlyPrefix : "") + (cookie.includesSubdomains ? "." : "") + cookie.domain
        let expiry = cookie.expires.map { seconds(of: $0) } ?? 0
        return [
            domain, cookie.includesSubdomains ? "TRUE" : "FALSE", cookie.path, cookie.isSecure ? "TRUE" : "FALSE",
            String(expiry), cookie.name, cookie.value,
        ].joined(separator: "\t")
    }

    /// Whole seconds since 1970, at least 1, and at most what a 64-bit count holds (a date past
    /// that, or not a number, is the latest expiry there is).
    private static func seconds(of date: Date) -> Int64 {
        let interval = date.timeIntervalSince1970.rounded(.down)
        guard interval < 9.0e18 else { return Int64.max }
        guard interval >= 1 else { return 1 }
        return Int64(interval)
    }

    /// A whole file of `cookies`.
    static func text(of cookies: [Cookie]) -> String {
        var text = header
        for cookie in cookies {
            text += line(for: cookie)
            text += "\n"
        }
        return text
    }
}
