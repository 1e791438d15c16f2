import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

@Suite("RetryPolicy")
struct RetryPolicyTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func head(_ status: Int, retryAfter: String? = nil) -> ResponseHead {
        var headers = HTTPHeaders()
        if let retryAfter { headers["Retry-After"] = retryAfter }
        return ResponseHead(status: status, headers: headers, httpVersion: .http1_1)
    }

    @Test func backoffDoublesUpToTheCapWithoutJitter() {
        var policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(10))
        policy.jitter = .none
        #expect((1...6).map { policy.backoff(afterAttempt: $0) } == [1, 2, 4, 8, 10, 10].map { .seconds($0) })
    }

    @Test func fullJitterStaysBetweenZeroAndTheBackoff() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(1), maxDelay: .seconds(30))
        var seen = Set<Duration>()
        for _ in 0..<200 {
            let delay = policy.backoff(afterAttempt: 3)
            #expect(delay >= .zero && delay <= .seconds(4))
            seen.insert(delay)
        }
        #expect(seen.count > 100, "full jitter spreads the waits")
    }

    @Test func onlyIdempotentMethodsAndTransientFailuresAreRetried() {
        var policy = RetryPolicy()
        policy.jitter = .none
        for status in [408, 429, 500, 502, 503, 504] {
            #expect(policy.delay(after: .response(head(status)), attempt: 1, method: .get) == .milliseconds(500))
        }
        for status in [200, 301, 400, 401, 404, 501] {
            #expect(policy.delay(after: .response(head(status)), attempt: 1, method: .get) == nil)
        }
        for method in [HTTPMethod.post, .patch, .connect] {
            #expect(policy.delay(after: .response(head(503)), attempt: 1, method: method) == nil)
        }
        for method in [HTTPMethod.get, .head, .put, .delete, .options, .trace] {
            #expect(policy.delay(after: .response(head(503)), attempt: 1, method: method) != nil)
        }
        for code in [SluiceError.Code.cannotConnect, .connectionLost, .timedOut] {
            #expect(policy.delay(after: .failure(SluiceError(code, "x")), attempt: 1, method: .get) != nil)
        }
        for code in [SluiceError.Code.tlsFailure, .invalidURL, .cancelled, .responseTooLarge] {
            #expect(policy.delay(after: .failure(SluiceError(code, "x")), attempt: 1, method: .get) == nil)
        }
        #expect(policy.delay(after: .response(head(503)), attempt: 3, method: .get) == nil, "three attempts in all")
    }

    @Test func retryAfterInSecondsAsADateAsGarbageAndHuge() {
        var policy = RetryPolicy(maxRetryAfter: .seconds(60))
        policy.jitter = .none
        func delay(_ value: String) -> Duration? {
            policy.delay(after: .response(head(503, retryAfter: value)), attempt: 1, method: .get, now: now)
        }
        #expect(delay("7") == .seconds(7))
        #expect(delay(" 0 ") == .zero)
        let date = now.addingTimeInterval(12)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        #expect(delay(formatter.string(from: date)) == .seconds(12))
        formatter.dateFormat = "EEEE, dd-MMM-yy HH:mm:ss 'GMT'"
        #expect(delay(formatter.string(from: date)) == .seconds(12), "RFC 850 dates are accepted")
        #expect(delay(formatter.string(from: now.addingTimeInterval(-3600))) == .zero, "a past date means now")
        #expect(delay("soon") == .milliseconds(500), "garbage falls back to the backoff")
        #expect(delay("-5") == .milliseconds(500))
        #expect(delay("99999999999999999999999") == .seconds(60), "a huge value waits the cap")
        #expect(delay("86400") == .seconds(60))
    }

    @Test func aDeadlineStopsRetriesThatWouldStartTooLate() {
        var policy = RetryPolicy(maxAttempts: 10, baseDelay: .seconds(4), deadline: .seconds(10))
        policy.jitter = .none
        #expect(policy.delay(after: .response(head(503)), attempt: 1, method: .get, elapsed: .seconds(5)) != nil)
        #expect(policy.delay(after: .response(head(503)), attempt: 1, method: .get, elapsed: .seconds(7)) == nil)
    }
}
