import Foundation
import Sluice
import SluiceFormats
import SluiceReachability
import SluiceTesting
import Testing

@Suite("MultipartFormData")
struct MultipartTests {
    // MARK: Round trips through MockServer

    @Test func partsRoundTripThroughTheServer() async throws {
        try await withScratchDirectory { directory in
            let image = directory.appendingPathComponent("avatar.png")
            let imageBytes = MockServer.deterministicBytes(count: 70_001)
            try imageBytes.write(to: image)
            let providerBytes = MockServer.deterministicBytes(count: 5_000, offset: 7)

            var form = MultipartFormData()
            form.append("Ada Lovelace", name: "user")
            form.append(Data("a,b\n1,2\n".utf8), name: "sheet", fileName: "data.csv")
            form.append(Data([0, 1, 2, 255]), name: "blob", fileName: "raw", mimeType: "application/x-custom")
            form.append(fileURL: image, name: "avatar")
            form.append(
                BodyProvider(length: 5_000) { try BodyProvider(data: providerBytes).makeReader() }, name: "generated",
                fileName: "gen.bin")
            try form.append(["page": 2])
            let (body, contentType) = try form.makeBody()

            try await withServer { server, transport in
                let response = try await transport.response(
                    for: Request(
                        method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType], body: body
                    ).prepared()
                ).value
                #expect(response.status == 200)
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.headers["Content-Type"] == contentType)
                #expect(recorded.headers["Content-Length"] == body.knownLength.map(String.init))
                #expect(Int64(recorded.bodyLength) == body.knownLength)

                let parts = try MultipartParser.parse(recorded.body, contentType: contentType)
                #expect(parts.map(\.name) == ["user", "sheet", "blob", "avatar", "generated", "page"])
                #expect(parts.map(\.fileName) == [nil, "data.csv", "raw", "avatar.png", "gen.bin", nil])
                #expect(
                    parts.map(\.contentType) == [
                        nil, "text/csv", "application/x-custom", "image/png", "application/octet-stream", nil,
                    ])
                #expect(parts[0].body == Data("Ada Lovelace".utf8))
                #expect(parts[1].body == Data("a,b\n1,2\n".utf8))
                #expect(parts[2].body == Data([0, 1, 2, 255]))
                #expect(parts[3].body == imageBytes)
                #expect(parts[4].body == providerBytes)
                #expect(parts[5].body == Data("2".utf8))
            }
        }
    }

    @Test func unknownLengthProviderIsSentChunked() async throws {
        let bytes = MockServer.deterministicBytes(count: 300_000)
        var form = MultipartFormData()
        form.append("before", name: "a")
        form.append(
            BodyProvider(length: nil) { try BodyProvider(data: bytes).makeReader() }, name: "stream", fileName: "s.bin")
        let (body, contentType) = try form.makeBody()
        #expect(body.knownLength == nil)

        try await withServer { server, transport in
            _ = try await transport.response(
                for: Request(
                    method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType], body: body
                )
                .prepared()
            ).value
            let recorded = try #require(server.recordedRequests.last)
            #expect(recorded.headers["Transfer-Encoding"]?.lowercased() == "chunked")
            #expect(!recorded.headers.contains("Content-Length"))
            let parts = try MultipartParser.parse(recorded.body, contentType: contentType)
            #expect(parts.map(\.name) == ["a", "stream"])
            #expect(parts[1].body == bytes)
        }
    }

    @Test func fileOver100MBStreamsWithItsLength() async throws {
        try await withScratchDirectory { directory in
            let size = 100 * 1024 * 1024 + 123
            let file = directory.appendingPathComponent("big.bin")
            try await onOwnThread { try writeDeterministicTestFile(file, size: size) }

            let boundary = "sluice.test.boundary"
            var form = MultipartFormData(boundary: boundary)
            form.append("big", name: "description")
            form.append(fileURL: file, name: "file")
            let (body, contentType) = try form.makeBody()

            // The expected body, assembled independently of the reader: headers, file bytes, closing.
            let prefix = Data(
                ("--\(boundary)\r\nContent-Disposition: form-data; name=\"description\"\r\n\r\nbig\r\n"
                    + "--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"big.bin\"\r\n"
                    + "Content-Type: application/octet-stream\r\n\r\n").utf8)
            let suffix = Data("\r\n--\(boundary)--\r\n".utf8)
            var expected = MockServer.Checksum()
            expected.update(prefix)
            var offset = 0
            while offset < size {
                let count = min(4 << 20, size - offset)
                expected.update(MockServer.deterministicBytes(count: count, offset: offset))
                offset += count
            }
            expected.update(suffix)
            let length = prefix.count + size + suffix.count
            #expect(body.knownLength == Int64(length))

            // The provider streamed locally gives the same bytes.
            guard case .stream(let provider) = body else { throw MultipartTestError("not a stream body") }
            #expect(try streamChecksum(of: provider) == expected.value)

            try await withServer { server, transport in
                let response = try await transport.response(
                    for: Request(
                        method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType], body: body
                    ).prepared()
                ).value
                #expect(response.status == 200)
                let recorded = try #require(server.recordedRequests.last)
                #expect(recorded.headers["Content-Length"] == String(length))
                #expect(recorded.headers["Transfer-Encoding"] == nil)
                #expect(recorded.bodyLength == length)
                #expect(recorded.bodyChecksum == expected.value)
            }
        }
    }

    // MARK: Failing files

    @Test func missingFileFailsBeforeAnythingIsSent() async throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-missing-\(UUID()).jpg")
        try await withServer { server, transport in
            var form = MultipartFormData()
            form.append("x", name: "field")
            form.append(fileURL: missing, name: "photo")
            do {
                let (body, contentType) = try form.makeBody()
                _ = try await transport.response(
                    for: Request(
                        method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType], body: body
                    )
                    .prepared()
                ).value
                Issue.record("a missing file was sent")
            } catch let error as SluiceError {
                #expect(error.code == .multipartEncoding)
                #expect(error.isInvalidRequest)
                #expect(error.message.contains(missing.path))
                #expect(error.message.contains("\"photo\""))
            }
            #expect(server.recordedRequests.isEmpty)
        }
    }

    @Test func directoriesAndNonFileURLsAreRefused() throws {
        var form = MultipartFormData()
        form.append(fileURL: FileManager.default.temporaryDirectory, name: "dir")
        #expect(throws: SluiceError.self) { try form.makeBody() }
        var remote = MultipartFormData()
        remote.append(fileURL: URL(string: "https://example.com/a.png")!, name: "remote")
        let error = #expect(throws: SluiceError.self) { try remote.makeBody() }
        #expect(error?.code == .multipartEncoding)
        #expect(error?.message.contains("https://example.com/a.png") == true)
    }

    @Test(.enabled(if: getuid() != 0, "root can read any file"))
    func unreadableFileIsRefused() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("secret.txt")
            try Data("x".utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: file.path)
            var form = MultipartFormData()
            form.append(fileURL: file, name: "secret")
            let error = #expect(throws: SluiceError.self) { try form.makeBody() }
            #expect(error?.code == .multipartEncoding)
            #expect(error?.message.contains(file.path) == true)
        }
    }

    @Test func fileRemovedAfterMakeBodyFailsTheSendWithItsName() async throws {
        try await withScratchDirectory { directory in
            let file = directory.appendingPathComponent("gone.txt")
            try Data("soon gone".utf8).write(to: file)
            var form = MultipartFormData()
            form.append(fileURL: file, name: "doc")
            let (body, contentType) = try form.makeBody()
            try FileManager.default.removeItem(at: file)

            try await withServer { server, transport in
                let error = await expectFailure(.multipartEncoding) {
                    try await transport.response(
                        for: Request(
                            method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType],
                            body: body
                        ).prepared()
                    ).value
                }
                #expect(error?.message.contains(file.path) == true)
                #expect(server.recordedRequests.isEmpty)
            }
        }
    }

    @Test func readerFailsWhenAFileChangesWhileBeingSent() throws {
        try withScratchDirectory { directory in
            let first = directory.appendingPathComponent("first.bin")
            let second = directory.appendingPathComponent("second.bin")
            try MockServer.deterministicBytes(count: 200_000).write(to: first)
            try MockServer.deterministicBytes(count: 1_000).write(to: second)
            var form = MultipartFormData()
            form.append(fileURL: first, name: "first")
            form.append(fileURL: second, name: "second")
            guard case .stream(let provider) = try form.makeBody().body else {
                throw MultipartTestError("not a stream")
            }

            // The second file disappears while the first is being read.
            let reader = try provider.makeReader()
            var buffer = [UInt8](repeating: 0, count: 1_024)
            #expect(try buffer.withUnsafeMutableBytes { try reader.read(into: $0) } == 1_024)
            try FileManager.default.removeItem(at: second)
            #expect(throws: SluiceError.self) { try drainMultipart(reader) }
            #expect(throws: SluiceError.self) { try provider.makeReader() }

            // A file truncated while it is open ends early, which is an error too.
            try MockServer.deterministicBytes(count: 1_000).write(to: second)
            var again = MultipartFormData()
            again.append(fileURL: first, name: "first")
            guard case .stream(let fresh) = try again.makeBody().body else { throw MultipartTestError("not a stream") }
            let partial = try fresh.makeReader()
            _ = try buffer.withUnsafeMutableBytes { try partial.read(into: $0) }
            _ = try buffer.withUnsafeMutableBytes { try partial.read(into: $0) }
            let handle = try FileHandle(forWritingTo: first)
            try handle.truncate(atOffset: 10_000)
            try handle.close()
            let error = #expect(throws: SluiceError.self) { try drainMultipart(partial) }
            #expect(error?.code == .multipartEncoding)
            #expect(error?.message.contains(first.path) == true)
        }
    }

    @Test func providerMustProduceTheLengthItDeclares() throws {
        for (declared, actual) in [(100, 50), (10, 50)] {
            var form = MultipartFormData()
            let bytes = MockServer.deterministicBytes(count: actual)
            form.append(BodyProvider(length: Int64(declared)) { try BodyProvider(data: bytes).makeReader() }, name: "p")
            guard case .stream(let provider) = try form.makeBody().body else {
                throw MultipartTestError("not a stream")
            }
            let error = #expect(throws: SluiceError.self) { try drainMultipart(provider.makeReader()) }
            #expect(error?.code == .multipartEncoding)
            #expect(error?.message.contains("\"p\"") == true)
        }
    }

    // MARK: Streaming

    @Test func readerNeverProducesMoreThanOneChunkPerCall() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("chunks.bin")
            try MockServer.deterministicBytes(count: 3 * 1024 * 1024 + 17).write(to: file)
            var form = MultipartFormData()
            form.append("field", name: "f")
            form.append(fileURL: file, name: "file")
            form.append(
                BodyProvider(length: 200_000) {
                    try BodyProvider(data: MockServer.deterministicBytes(count: 200_000)).makeReader()
                },
                name: "p")
            guard case .stream(let provider) = try form.makeBody().body else {
                throw MultipartTestError("not a stream")
            }

            // A huge buffer is never filled past the reader's fixed chunk size.
            let reader = try provider.makeReader()
            var buffer = [UInt8](repeating: 0, count: 8 << 20)
            var sizes: [Int] = []
            var whole = Data()
            while true {
                let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
                if count == 0 { break }
                sizes.append(count)
                whole.append(contentsOf: buffer[0..<count])
            }
            #expect(sizes.allSatisfy { $0 <= MultipartFormData.readChunkSize })
            #expect(sizes.dropLast().allSatisfy { $0 == MultipartFormData.readChunkSize })
            #expect(Int64(whole.count) == provider.length)
            // Tiny buffers give the same bytes.
            #expect(try drainMultipart(provider.makeReader(), bufferSize: 7) == whole)
        }
    }

    @Test func everyReaderReplaysTheBodyFromTheStart() throws {
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("replay.txt")
            try Data(repeating: 0x41, count: 100_000).write(to: file)
            var form = MultipartFormData()
            form.append("one", name: "a")
            form.append(fileURL: file, name: "b")
            guard case .stream(let provider) = try form.makeBody().body else {
                throw MultipartTestError("not a stream")
            }
            let first = try provider.makeReader()
            let second = try provider.makeReader()
            // Interleaved readers are independent.
            var a = Data()
            var b = Data()
            var buffer = [UInt8](repeating: 0, count: 4_096)
            for _ in 0..<5 {
                let n = try buffer.withUnsafeMutableBytes { try first.read(into: $0) }
                a.append(contentsOf: buffer[0..<n])
            }
            b = try drainMultipart(second)
            a += try drainMultipart(first)
            #expect(a == b)
            #expect(try drainMultipart(provider.makeReader()) == a)
            #expect(Int64(a.count) == provider.length)
        }
    }

    // MARK: Encoding

    @Test func namesAndFileNamesAreEscaped() async throws {
        var form = MultipartFormData(boundary: "b")
        form.append("v1", name: "a\"b\r\nc\nd\re")
        form.append(Data("v2".utf8), name: "file", fileName: "x\"y\r\nz.txt")
        form.append(Data("v3".utf8), name: "naïve 名前", fileName: "résumé 日本.pdf")
        let (body, contentType) = try form.makeBody()
        let text = try #require(String(data: try drainMultipart(body), encoding: .utf8))
        #expect(text.contains("Content-Disposition: form-data; name=\"a%22b%0D%0Ac%0D%0Ad%0D%0Ae\"\r\n\r\nv1\r\n"))
        #expect(
            text.contains(
                "Content-Disposition: form-data; name=\"file\"; filename=\"x%22y%0D%0Az.txt\"\r\nContent-Type: text/plain\r\n"
            ))
        #expect(
            text.contains(
                "Content-Disposition: form-data; name=\"naïve 名前\"; filename=\"résumé 日本.pdf\"; "
                    + "filename*=UTF-8''r%C3%A9sum%C3%A9%20%E6%97%A5%E6%9C%AC.pdf\r\nContent-Type: application/pdf\r\n")
        )

        // Through the server, the escaped names cannot split a part or inject a header.
        try await withServer { server, transport in
            _ = try await transport.response(
                for: Request(
                    method: .post, url: server.url(for: .echo), headers: ["Content-Type": contentType], body: body
                )
                .prepared()
            ).value
            let parts = try MultipartParser.parse(
                try #require(server.recordedRequests.last).body, contentType: contentType)
            #expect(parts.map(\.name) == ["a%22b%0D%0Ac%0D%0Ad%0D%0Ae", "file", "naïve 名前"])
            #expect(parts.map(\.fileName) == [nil, "x%22y%0D%0Az.txt", "résumé 日本.pdf"])
            #expect(parts[2].fileNameStar == "UTF-8''r%C3%A9sum%C3%A9%20%E6%97%A5%E6%9C%AC.pdf")
            #expect(parts.map(\.body) == [Data("v1".utf8), Data("v2".utf8), Data("v3".utf8)])
            #expect(parts.allSatisfy { $0.headers.count == ($0.contentType == nil ? 1 : 2) })
        }
    }

    @Test func mimeTypeWithLineBreaksIsRefused() {
        var form = MultipartFormData()
        form.append(Data(), name: "x", fileName: "x.bin", mimeType: "text/plain\r\nX-Injected: 1")
        let error = #expect(throws: SluiceError.self) { try form.makeBody() }
        #expect(error?.code == .invalidHeader)
    }

    @Test func mimeTypesComeFromTheExtension() throws {
        let table: [String: String] = [
            "png": "image/png", "JPG": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif", "webp": "image/webp",
            "txt": "text/plain", "html": "text/html", "json": "application/json", "xml": "application/xml",
            "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip", "mp4": "video/mp4",
            "mp3": "audio/mpeg", "csv": "text/csv", "bin": "application/octet-stream",
            "unknown": "application/octet-stream", "": "application/octet-stream",
        ]
        for (pathExtension, type) in table {
            #expect(MultipartFormData.mimeType(forPathExtension: pathExtension) == type, "\(pathExtension)")
        }
        try withScratchDirectory { directory in
            let file = directory.appendingPathComponent("photo.JPEG")
            try Data([1]).write(to: file)
            var form = MultipartFormData()
            form.append(fileURL: file, name: "inferred")
            form.append(fileURL: file, name: "overridden", fileName: "other.name", mimeType: "image/x-special")
            form.append(Data(), name: "plain")
            let parts = try MultipartParser.parse(
                try drainMultipart(form.makeBody().body), contentType: form.contentType)
            #expect(parts.map(\.fileName) == ["photo.JPEG", "other.name", nil])
            #expect(parts.map(\.contentType) == ["image/jpeg", "image/x-special", nil])
        }
    }

    @Test func parametersBecomeFieldsWithBracketNames() throws {
        var form = MultipartFormData()
        try form.append([
            "user": ["name": "Ada", "langs": ["swift", "c"]],
            "page": 2, "flag": true, "off": false, "none": nil, "pi": 1.5,
            "tags": .set(["b", "a"]), "empty": [], "nested": [["x": 1], ["x": 2]],
        ])
        let parts = try MultipartParser.parse(try drainMultipart(form.makeBody().body), contentType: form.contentType)
        let fields = parts.map { "\($0.name ?? "?")=\(String(decoding: $0.body, as: UTF8.self))" }
        #expect(
            fields == [
                "flag=1", "nested[][x]=1", "nested[][x]=2", "none=", "off=0", "page=2", "pi=1.5", "tags[]=a",
                "tags[]=b", "user[langs][]=swift", "user[langs][]=c", "user[name]=Ada",
            ])
        #expect(parts.allSatisfy { $0.fileName == nil && $0.contentType == nil })
    }

    @Test func nonFiniteNumbersAreRefusedWithTheirKeyPath() {
        var form = MultipartFormData()
        let error = #expect(throws: SluiceError.self) { try form.append(["a": ["b": .double(.nan)]]) }
        #expect(error?.code == .invalidParameters)
        #expect(error?.keyPath == "a[b]")
        #expect(form.isEmpty)
    }

    @Test func boundariesAreRandomAndChecked() throws {
        let first = MultipartFormData()
        let second = MultipartFormData()
        #expect(first.boundary != second.boundary)
        #expect(first.boundary.hasPrefix("sluice.boundary."))
        let hex = first.boundary.dropFirst("sluice.boundary.".count)
        #expect(hex.count == 32 && hex.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first.contentType == "multipart/form-data; boundary=\(first.boundary)")
        #expect(MultipartFormData(boundary: "a b").contentType == "multipart/form-data; boundary=\"a b\"")
        for invalid in ["", String(repeating: "x", count: 71), "ends in space ", "semi;colon", "naïve"] {
            #expect(throws: SluiceError.self, "\(invalid)") { try MultipartFormData(boundary: invalid).makeBody() }
        }
        // An empty form is just the closing delimiter.
        let (body, contentType) = try MultipartFormData(boundary: "end").makeBody()
        #expect(try drainMultipart(body) == Data("--end--\r\n".utf8))
        #expect(contentType == "multipart/form-data; boundary=end")
        #expect(body.knownLength == 9)
    }
}

// MARK: - Helpers

/// A part parsed back from a multipart body.
private struct ParsedPart {
    var headers: [(name: String, value: String)]
    var body: Data
    var name: String?
    var fileName: String?
    var fileNameStar: String?

    var contentType: String? { headers.first { $0.name.lowercased() == "content-type" }?.value }
}

/// A small, strict multipart/form-data parser for the tests.
private enum MultipartParser {
    static func parse(_ data: Data, contentType: String) throws -> [ParsedPart] {
        guard let range = contentType.range(of: "boundary=") else { throw MultipartTestError("no boundary") }
        var boundary = String(contentType[range.upperBound...])
        if boundary.hasPrefix("\"") { boundary = String(boundary.dropFirst().dropLast()) }
        let bytes = [UInt8](data)
        let delimiter = Array("--\(boundary)".utf8)
        let separator = Array("\r\n--\(boundary)".utf8)
        guard bytes.starts(with: delimiter) else { throw MultipartTestError("no opening delimiter") }
        var position = delimiter.count
        var parts: [ParsedPart] = []
        while true {
            if bytes[position...].starts(with: Array("--\r\n".utf8)) {
                guard position + 4 == bytes.count else { throw MultipartTestError("bytes after the closing delimiter") }
                return parts
            }
            guard bytes[position...].starts(with: [13, 10]) else {
                throw MultipartTestError("no CRLF after a delimiter")
            }
            position += 2
            guard let headerEnd = find([13, 10, 13, 10], in: bytes, from: position) else {
                throw MultipartTestError("unterminated headers")
            }
            let headerText = String(decoding: bytes[position..<headerEnd], as: UTF8.self)
            guard let bodyEnd = find(separator, in: bytes, from: headerEnd + 4) else {
                throw MultipartTestError("unterminated part")
            }
            var part = ParsedPart(headers: [], body: Data(bytes[(headerEnd + 4)..<bodyEnd]))
            for line in headerText.components(separatedBy: "\r\n") {
                guard let colon = line.firstIndex(of: ":") else { throw MultipartTestError("bad header line \(line)") }
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                part.headers.append((String(line[..<colon]), value))
                if line[..<colon].lowercased() == "content-disposition" {
                    let parameters = try dispositionParameters(value)
                    part.name = parameters["name"]
                    part.fileName = parameters["filename"]
                    part.fileNameStar = parameters["filename*"]
                }
            }
            parts.append(part)
            position = bodyEnd + separator.count
        }
    }

    /// `form-data; name="a"; filename="b"` as a dictionary; quoted strings have no escapes.
    static func dispositionParameters(_ value: String) throws -> [String: String] {
        var scalars = Substring(value)
        guard scalars.hasPrefix("form-data") else { throw MultipartTestError("not form-data: \(value)") }
        scalars = scalars.dropFirst("form-data".count)
        var result: [String: String] = [:]
        while !scalars.isEmpty {
            guard scalars.hasPrefix("; ") else { throw MultipartTestError("bad parameters: \(value)") }
            scalars = scalars.dropFirst(2)
            guard let equals = scalars.firstIndex(of: "=") else { throw MultipartTestError("no = in \(value)") }
            let key = String(scalars[..<equals])
            scalars = scalars[scalars.index(after: equals)...]
            if scalars.hasPrefix("\"") {
                scalars = scalars.dropFirst()
                guard let close = scalars.firstIndex(of: "\"") else {
                    throw MultipartTestError("unclosed quote: \(value)")
                }
                result[key] = String(scalars[..<close])
                scalars = scalars[scalars.index(after: close)...]
            } else {
                let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
                result[key] = String(scalars[..<end])
                scalars = scalars[end...]
            }
        }
        return result
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index..<(index + needle.count)].elementsEqual(needle) {
                return index
            }
            index += 1
        }
        return nil
    }
}

private struct MultipartTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Everything a reader produces, read `bufferSize` bytes at a time.
private func drainMultipart(_ reader: any BodyReader, bufferSize: Int = 16_384) throws -> Data {
    var result = Data()
    var buffer = [UInt8](repeating: 0, count: bufferSize)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return result }
        result.append(contentsOf: buffer[0..<count])
    }
}

/// Everything a stream body produces.
private func drainMultipart(_ body: RequestBody) throws -> Data {
    guard case .stream(let provider) = body else { throw MultipartTestError("not a stream body") }
    return try drainMultipart(provider.makeReader())
}

/// The checksum of everything a provider produces, streamed without keeping the bytes.
private func streamChecksum(of provider: BodyProvider) throws -> String {
    let reader = try provider.makeReader()
    var checksum = MockServer.Checksum()
    var buffer = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return checksum.value }
        buffer.withUnsafeBytes { checksum.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}

/// Writes `size` deterministic bytes to `url`, 4 MiB at a time.
private func writeDeterministicTestFile(_ url: URL, size: Int) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
        throw MultipartTestError("cannot create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var offset = 0
    while offset < size {
        let count = min(4 << 20, size - offset)
        try handle.write(contentsOf: MockServer.deterministicBytes(count: count, offset: offset))
        offset += count
    }
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
private func withScratchDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-multipart-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
private func withScratchDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-multipart-\(UUID())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}
