import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import Testing

/// The query rules of `URLEncoding`, with exact expected strings (AFNetworking's output).
@Suite("Parameter encoding")
struct ParameterEncodingTests {
    static let base = URL(string: "http://example.com/api/items")!

    func query(
        _ parameters: Parameters, _ arrays: URLEncoding.ArrayEncoding = .brackets,
        _ bools: URLEncoding.BoolEncoding = .numeric
    ) -> String {
        URLEncoding.queryString(parameters, arrayEncoding: arrays, boolEncoding: bools)
    }

    // MARK: Nesting and order

    @Test func topLevelKeysAreSorted() {
        #expect(query(["b": 2, "a": "x", "c": -3]) == "a=x&b=2&c=-3")
        #expect(query([:]).isEmpty)
    }

    @Test func nestedDictionariesUseSortedBracketedKeys() {
        let parameters: Parameters = [
            "user": ["name": "Ada", "address": ["zip": "75001", "city": "Paris"], "age": 36]
        ]
        #expect(
            query(parameters)
                == "user%5Baddress%5D%5Bcity%5D=Paris&user%5Baddress%5D%5Bzip%5D=75001"
                + "&user%5Bage%5D=36&user%5Bname%5D=Ada")
    }

    @Test func arraysOfScalarsInEachArrayEncoding() {
        let parameters: Parameters = ["ids": [3, 1, 2]]
        #expect(query(parameters, .brackets) == "ids%5B%5D=3&ids%5B%5D=1&ids%5B%5D=2")
        #expect(query(parameters, .noBrackets) == "ids=3&ids=1&ids=2")
        #expect(query(parameters, .indexInBrackets) == "ids%5B0%5D=3&ids%5B1%5D=1&ids%5B2%5D=2")
    }

    @Test func nestedArraysInEachArrayEncoding() {
        let parameters: Parameters = ["m": [[1, 2], [3]]]
        #expect(query(parameters, .brackets) == "m%5B%5D%5B%5D=1&m%5B%5D%5B%5D=2&m%5B%5D%5B%5D=3")
        #expect(query(parameters, .noBrackets) == "m=1&m=2&m=3")
        #expect(query(parameters, .indexInBrackets) == "m%5B0%5D%5B0%5D=1&m%5B0%5D%5B1%5D=2&m%5B1%5D%5B0%5D=3")
    }

    @Test func arraysOfDictionariesAndDictionariesOfArrays() {
        let parameters: Parameters = ["items": [["q": 2, "id": 1], ["id": 3]], "f": ["tags": ["x", "y"]]]
        #expect(
            query(parameters)
                == "f%5Btags%5D%5B%5D=x&f%5Btags%5D%5B%5D=y"
                + "&items%5B%5D%5Bid%5D=1&items%5B%5D%5Bq%5D=2&items%5B%5D%5Bid%5D=3")
        #expect(
            query(parameters, .indexInBrackets)
                == "f%5Btags%5D%5B0%5D=x&f%5Btags%5D%5B1%5D=y"
                + "&items%5B0%5D%5Bid%5D=1&items%5B0%5D%5Bq%5D=2&items%5B1%5D%5Bid%5D=3")
    }

    @Test func setsAreSortedByTheirEncodedText() {
        // "é" encodes as %C3%A9, which sorts before letters ("%" < "a").
        #expect(query(["s": .set(["z", "é", "a"])]) == "s%5B%5D=%C3%A9&s%5B%5D=a&s%5B%5D=z")
        #expect(query(["s": .set([10, 2, 1])], .indexInBrackets) == "s%5B0%5D=1&s%5B1%5D=10&s%5B2%5D=2")
        // Elements that encode alike still come out in one fixed order.
        let mixed: Parameters = ["s": .set([1, "1", true, 2])]
        #expect(query(mixed) == "s%5B%5D=1&s%5B%5D=1&s%5B%5D=1&s%5B%5D=2")
        #expect(query(["s": .set([["b": 1], ["a": 2]])]) == "s%5B%5D%5Ba%5D=2&s%5B%5D%5Bb%5D=1")
    }

    @Test func nullIsTheBareKey() {
        #expect(query(["flag": nil, "a": 1]) == "a=1&flag")
        #expect(query(["u": ["x": nil, "y": 1]]) == "u%5Bx%5D&u%5By%5D=1")
        #expect(query(["l": [nil, 1]]) == "l%5B%5D&l%5B%5D=1")
    }

    @Test func booleansInBothEncodings() {
        let parameters: Parameters = ["t": true, "f": false, "n": ["b": true]]
        #expect(query(parameters, .brackets, .numeric) == "f=0&n%5Bb%5D=1&t=1")
        #expect(query(parameters, .brackets, .literal) == "f=false&n%5Bb%5D=true&t=true")
    }

    @Test func numbersAsSwiftPrintsThem() {
        #expect(
            query(["d": 1.5, "e": 100.0, "f": 1e-7, "g": -0.25, "i": .int(Int.min)])
                == "d=1.5&e=100.0&f=1e-07&g=-0.25&i=-9223372036854775808")
    }

    @Test func emptyContainersWriteNothing() {
        #expect(query(["a": [], "b": [:], "c": .set([]), "d": 1]) == "d=1")
    }

    // MARK: Escaping

    @Test func reservedCharactersAreEscapedButQuestionMarkAndSlashAreKept() {
        #expect(query(["q": ":#[]@!$&'()*+,;="]) == "q=%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D")
        #expect(query(["path": "a/b?c=d"]) == "path=a/b?c%3Dd")
        #expect(query(["u": "AZaz09-._~"]) == "u=AZaz09-._~")
        #expect(query(["s": "a b%c\"<>\\^`{|}"]) == "s=a%20b%25c%22%3C%3E%5C%5E%60%7B%7C%7D")
        #expect(query(["ctl": "\n\t\r\0\u{7F}"]) == "ctl=%0A%09%0D%00%7F")
        #expect(query(["key with space&=": "v"]) == "key%20with%20space%26%3D=v")
    }

    @Test func unicodeIsEscapedCharacterByCharacter() {
        // Family (ZWJ sequence), thumbs up with a skin tone, a flag: every byte of each cluster.
        #expect(query(["e": "👨‍👩‍👧"]) == "e=%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7")
        #expect(query(["e": "👍🏽"]) == "e=%F0%9F%91%8D%F0%9F%8F%BD")
        #expect(query(["e": "🇫🇷"]) == "e=%F0%9F%87%AB%F0%9F%87%B7")
        // Combining marks: the unreserved base letter stays, the marks are escaped (RFC 3986 §6.2.2.2).
        #expect(query(["c": "e\u{301}"]) == "c=e%CC%81")
        #expect(query(["c": "é"]) == "c=%C3%A9")
        #expect(query(["c": "a\u{308}\u{323}"]) == "c=a%CC%88%CC%A3")
        #expect(query(["中文": "汉字 ok"]) == "%E4%B8%AD%E6%96%87=%E6%B1%89%E5%AD%97%20ok")
    }

    @Test func longRunsOfClustersSurviveWhole() {
        // AFNetworking escaped in batches of 50 and had to avoid cutting an emoji in half.
        let clusters = ["👨‍👩‍👧", "👍🏽", "e\u{301}", "🇫🇷", "中", "\r\n"]
        let text = (0..<120).map { clusters[$0 % clusters.count] }.joined()
        let encoded = query(["t": .string(text)])
        let value = try! #require(encoded.split(separator: "=").last.map(String.init))
        #expect(value.removingPercentEncoding == text)
        #expect(value.removingPercentEncoding?.count == 120)
        #expect(value.utf8.allSatisfy { $0 < 0x80 })
    }

    // MARK: Requests

    @Test func queryMethodsAppendToTheURL() throws {
        for method: HTTPMethod in [.get, .head, .delete] {
            let request = try URLEncoding.default.encode(Request(method: method, url: Self.base), with: ["a": 1])
            #expect(request.url.absoluteString == "http://example.com/api/items?a=1")
            #expect(request.body.isNoBody)
            #expect(request.headers["Content-Type"] == nil)
        }
    }

    @Test func bodyMethodsSendAForm() throws {
        for method: HTTPMethod in [.post, .put, .patch, .options, "PROPFIND"] {
            let request = try URLEncoding.default.encode(
                Request(method: method, url: Self.base), with: ["b": [1, 2], "a": "x y"])
            #expect(request.url == Self.base)
            #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(request.body.encodedText == "a=x%20y&b%5B%5D=1&b%5B%5D=2")
        }
    }

    @Test func theQueryMethodsAreConfigurable() throws {
        let encoding = URLEncoding(queryMethods: [.get, .post])
        let post = try encoding.encode(Request(method: .post, url: Self.base), with: ["a": 1])
        #expect(post.url.query == "a=1")
        #expect(post.body.isNoBody)
        let delete = try encoding.encode(Request(method: .delete, url: Self.base), with: ["a": 1])
        #expect(delete.url.query == nil)
        #expect(delete.body.encodedText == "a=1")
    }

    @Test func fixedDestinationsIgnoreTheMethod() throws {
        let post = try URLEncoding.queryString.encode(Request(method: .post, url: Self.base), with: ["a": 1])
        #expect(post.url.query == "a=1")
        #expect(post.body.isNoBody)
        let get = try URLEncoding.httpBody.encode(Request(method: .get, url: Self.base), with: ["a": 1])
        #expect(get.url == Self.base)
        #expect(get.body.encodedText == "a=1")
        #expect(get.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test func queriesAreAppendedToExistingQueriesAndBeforeFragments() throws {
        let cases: [(String, String)] = [
            ("http://h.test/p?x=1", "http://h.test/p?x=1&a=1&b%5B%5D=2"),
            ("http://h.test/p?", "http://h.test/p?a=1&b%5B%5D=2"),
            ("http://h.test/p?x=1&", "http://h.test/p?x=1&a=1&b%5B%5D=2"),
            ("http://h.test/p#top", "http://h.test/p?a=1&b%5B%5D=2#top"),
            ("http://h.test/p?x=%20#top", "http://h.test/p?x=%20&a=1&b%5B%5D=2#top"),
            ("http://h.test", "http://h.test?a=1&b%5B%5D=2"),
        ]
        for (url, expected) in cases {
            let request = try URLEncoding.default.encode(Request(url: URL(string: url)!), with: ["a": 1, "b": [2]])
            #expect(request.url.absoluteString == expected)
        }
    }

    @Test func emptyParametersLeaveTheURLAndMakeAnEmptyForm() throws {
        let url = URL(string: "http://h.test/p?x=1")!
        let get = try URLEncoding.default.encode(Request(url: url), with: [:])
        #expect(get.url == url)
        let emptyOnly = try URLEncoding.default.encode(Request(url: url), with: ["e": []])
        #expect(emptyOnly.url == url)
        let post = try URLEncoding.default.encode(Request(method: .post, url: url), with: [:])
        #expect(post.body.encodedText == "")
        #expect(post.body.knownLength == 0)
        #expect(post.headers["Content-Type"] == "application/x-www-form-urlencoded")
        _ = try post.prepared()
    }

    @Test func anExistingContentTypeIsKept() throws {
        let request = Request(
            method: .post, url: Self.base, headers: ["content-type": "application/x-www-form-urlencoded; charset=utf-8"]
        )
        let encoded = try URLEncoding.default.encode(request, with: ["a": 1])
        #expect(encoded.headers.values(for: "Content-Type") == ["application/x-www-form-urlencoded; charset=utf-8"])
        #expect(encoded.body.encodedText == "a=1")
    }

    @Test func aCustomSerializerReplacesTheQueryAndTheForm() throws {
        let encoding = URLEncoding { parameters throws(SluiceError) in
            parameters.keys.sorted().map { "\($0.uppercased())-\(parameters.count)" }.joined(separator: ";")
        }
        let get = try encoding.encode(Request(url: URL(string: "http://h.test/p?x=1")!), with: ["a": 1, "b": 2])
        #expect(get.url.absoluteString == "http://h.test/p?x=1&A-2;B-2")
        let post = try encoding.encode(Request(method: .post, url: Self.base), with: ["a": 1])
        #expect(post.body.encodedText == "A-1")
        #expect(post.headers["Content-Type"] == "application/x-www-form-urlencoded")
    }

    @Test func unescapedCustomQueriesAreEscapedByURL() throws {
        let encoding = URLEncoding { _ throws(SluiceError) in "a b=é" }
        let request = try encoding.encode(Request(url: Self.base), with: ["x": 1])
        #expect(request.url.query(percentEncoded: true) == "a%20b=%C3%A9")
        _ = try request.prepared()
    }

    @Test func aCustomSerializerCanRefuseParameters() {
        let encoding = URLEncoding { _ throws(SluiceError) in
            throw SluiceError(.invalidParameters, "No parameters allowed.", keyPath: "secret")
        }
        let error = #expect(throws: SluiceError.self) {
            try encoding.encode(Request(url: Self.base), with: ["secret": 1])
        }
        #expect(error?.keyPath == "secret")
        #expect(error?.message == "No parameters allowed.")
    }

    @Test func nonFiniteNumbersAreRefusedWithTheirKeyPath() {
        let parameters: Parameters = ["user": ["scores": [1.0, 2.0, .double(.nan)], "name": "x"], "a": 1]
        let error = #expect(throws: SluiceError.self) {
            try URLEncoding.default.encode(Request(url: Self.base), with: parameters)
        }
        #expect(error?.code == .invalidParameters)
        #expect(error?.keyPath == "user.scores[2]")
        #expect(error?.message.contains("user.scores[2]") == true)
        #expect(error?.message.contains("nan") == true)
        let infinity = #expect(throws: SluiceError.self) {
            try URLEncoding.default.encode(Request(method: .post, url: Self.base), with: ["x": .double(-.infinity)])
        }
        #expect(infinity?.keyPath == "x")
        // The helper writes what Swift prints; only `encode` refuses.
        #expect(URLEncoding.queryString(["x": .double(.infinity)]) == "x=inf")
    }

    @Test func encodedRequestsPassPreparation() throws {
        let parameters: Parameters = ["q": "👨‍👩‍👧 a/b?c", "n": [1, nil, ["x": true]], "s": .set(["a", "b"])]
        let request = try URLEncoding.default.encode(Request(url: Self.base), with: parameters)
        let prepared = try request.prepared()
        #expect(prepared.request.url.query?.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F } == true)
    }
}

extension RequestBody {
    /// The bytes of a `.data` body (empty for `.empty`).
    var encodedBytes: Data? {
        switch self {
        case .empty: return Data()
        case .data(let data): return data
        default: return nil
        }
    }

    /// The body as UTF-8 text.
    var encodedText: String? { encodedBytes.flatMap { String(data: $0, encoding: .utf8) } }

    /// Whether this is `.empty`.
    var isNoBody: Bool {
        if case .empty = self { return true }
        return false
    }
}
