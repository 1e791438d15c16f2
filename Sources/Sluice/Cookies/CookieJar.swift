import FoundationEssentials

/// A client's cookies: what servers set, stored and sent back by libcurl's cookie engine on every
/// request and every redirect hop (see `Client.Configuration.cookies`), and what you list, add,
/// remove, load from a file and save to one.
///
/// libcurl applies the rules: a cookie is sent only to the host that set it (and its subdomains
/// when it named a `Domain`), on its path, over https when `Secure`, until it expires; a cookie for
/// a public suffix (`Domain=co.uk`) is refused, by the public suffix list of the system's libpsl.
///
///     let jar = CookieJar()
///     _ = try? jar.load(from: cookiesFile)      // what an earlier run saved
///     var configuration = Client.Configuration()
///     configuration.cookies = jar
///     let client = try Client(baseURL: "https://example.com/", configuration: configuration)
///     …
///     try jar.save(to: cookiesFile)             // persistent cookies, mode 0600
///
/// Every method may be called from any thread. Loading and saving read and write a file on the
/// calling thread: do not call them from an observer of a response, which runs on the transport's
/// thread and would hold up every transfer.
public final class CookieJar: Sendable {
    let share: CookieShare
    private let pipe = Signal<Change, Never>.countingPipe()

    /// An empty jar, kept in memory.
    public init() {
        do throws(SluiceError) {
            share = try CookieShare()
        } catch {
            // Only when memory ran out: nothing else can make a share handle fail.
            fatalError("\(error)")
        }
    }

    /// A change to the jar.
    public enum Change: Sendable, Equatable {
        /// A response from `url` set cookies (libcurl stored those its rules accept).
        case received(from: URL)
        /// A cookie was added by hand (or replaced the one with its name, domain and path).
        case added(Cookie)
        /// A cookie was removed by hand.
        case removed(Cookie)
        /// Every cookie was removed, or only the session cookies.
        case removedAll(sessionOnly: Bool)
        /// Cookies were loaded from a file.
        case loaded(count: Int, from: URL)
    }

    /// The jar's changes, as a hot signal: observers see those made while they observe. A change a
    /// response makes is sent on the transport's thread (keep the observer short); the others on
    /// the thread that made them.
    public var changes: Signal<Change, Never> { pipe.output }

    /// Every cookie in the jar that has not expired, in libcurl's order.
    public var all: [Cookie] {
        let now = Date()
        return share.lines().compactMap { line in
            guard let cookie = try? NetscapeCookieFile.parseLine(Substring(line)) else { return nil }
            return cookie.hasExpired(at: now) ? nil : cookie
        }
    }

    /// The cookie named `name`, if the jar holds one (the first, when several domains or paths
    /// have one of that name).
    public subscript(name: String) -> Cookie? {
        all.first { $0.name == name }
    }

    /// Adds `cookie`, replacing the one with the same name, domain and path; throws
    /// `invalidCookie` when it cannot be stored (see `Cookie`). A cookie that has expired removes
    /// the one it replaces.
    public func add(_ cookie: Cookie) throws(SluiceError) {
        if let problem = cookie.problem() {
            throw SluiceError(
                .invalidCookie, "The cookie \(cookie.name.debugDescription) cannot be stored: \(problem).")
        }
        try share.send([NetscapeCookieFile.line(for: cookie)])
        send(.added(cookie))
    }

    /// Removes the cookie with `cookie`'s name, domain and path, if there is one.
    public func remove(_ cookie: Cookie) {
        guard cookie.problem() == nil else { return }
        var expired = cookie
        // libcurl has no removal of one cookie: an expired one in its place is swept away.
        expired.expires = Date(timeIntervalSince1970: 1)
        guard (try? share.send([NetscapeCookieFile.line(for: expired)])) != nil else { return }
        send(.removed(cookie))
    }

    /// Removes every cookie, or only the session cookies (those without an expiry).
    public func removeAll(sessionOnly: Bool = false) {
        guard (try? share.send([sessionOnly ? "SESS" : "ALL"])) != nil else { return }
        send(.removedAll(sessionOnly: sessionOnly))
    }

    /// Adds the cookies of a Netscape cookie file (as curl's `--cookie-jar`, wget and browser
    /// exporters write it) and returns how many it held; expired ones are skipped. Throws
    /// `invalidCookieFile` when the file cannot be read or a line is not a cookie, and then adds
    /// none.
    @discardableResult
    public func load(from file: URL) throws(SluiceError) -> Int {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw SluiceError(
                .invalidCookieFile, "The cookie file \(file.path) cannot be read: \(error).", underlyingError: error)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SluiceError(.invalidCookieFile, "The cookie file \(file.path) is not UTF-8 text.")
        }
        let now = Date()
        let cookies = try NetscapeCookieFile.parse(text, source: file.path).filter { !$0.hasExpired(at: now) }
        try share.send(cookies.map(NetscapeCookieFile.line(for:)))
        send(.loaded(count: cookies.count, from: file))
        return cookies.count
    }

    /// Writes the jar's cookies to `file` in the Netscape format, replacing it whole: written to a
    /// temporary file beside it with mode 0600 (cookies are credentials), then renamed over it, so
    /// a reader never sees half a file. Session cookies are left out unless
    /// `includingSessionCookies`. Throws `fileWriteFailed`, and leaves `file` as it was.
    public func save(to file: URL, includingSessionCookies: Bool = false) throws(SluiceError) {
        let cookies = all.filter { includingSessionCookies || !$0.isSession }
        try AtomicFile.write(Data(NetscapeCookieFile.text(of: cookies).utf8), to: file, mode: 0o600)
    }

    private func send(_ change: Change) {
        if pipe.observers.isObserved { pipe.input.send(value: change) }
    }

    /// Tells the observers that a response from `url` set cookies (on the transport's thread).
    func noteReceived(from url: URL) {
        send(.received(from: url))
    }
}

/// A jar in `RequestOptions`, which compare equal when they hold the same jar.
struct CookieJarReference: Sendable, Equatable {
    let jar: CookieJar

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.jar === rhs.jar }
}

extension RequestOptions {
    /// The cookie store of the jar this request's transfers use, or nil.
    var cookieShare: CookieShare? { usesCookies ? cookieJar?.jar.share : nil }
}
