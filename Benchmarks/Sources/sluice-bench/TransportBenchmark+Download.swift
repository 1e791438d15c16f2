import CRawCurl
import Dispatch
import Foundation
import Sluice
import Synchronization

/// The peak and starting memory of every download child, by client key, in the order they ran.
final class PeakMemoryLog {
    /// VmHWM at the end of each child's download, in KiB.
    var peakKiB: [String: [Int]] = [:]
    /// VmRSS just before each child's download started, in KiB.
    var baselineKiB: [String: [Int]] = [:]
}

extension TransportBenchmark {
    /// Runs one download in a fresh child process and returns its sample; its memory goes to `log`.
    static func downloadInChild(client: String, url: String, bytes: Int, log: PeakMemoryLog) -> Sample {
        let outcome: (status: Int32, output: String)
        do {
            outcome = try Subprocess.run(
                Subprocess.currentExecutable(), [downloadSubcommand, client, url, String(bytes)])
        } catch {
            abort("transport: the download child did not start: \(error)")
        }
        // The child's one line: nanoseconds, bytes, 1 if it went well, peak KiB, baseline KiB.
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard outcome.status == 0, fields.count == 5 else {
            abort("transport: the \(client) download child failed (status \(outcome.status)): \(outcome.output)")
        }
        log.peakKiB["\(client)_download", default: []].append(fields[3])
        log.baselineKiB["\(client)_download", default: []].append(fields[4])
        return Sample(elapsed: UInt64(fields[0]), operations: 1, delivered: fields[1], checksum: fields[2])
    }

    /// The child's side: `<c | sluice> <url> <bytes>`. Downloads `url` once, discarding the body,
    /// prints its line and returns the exit status.
    static func downloadChild(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let bytes = Int(arguments[2]), ["c", "sluice"].contains(arguments[0]) else {
            note("usage: sluice-bench \(downloadSubcommand) <c | sluice> <url> <bytes>")
            return 2
        }
        let url = arguments[1]
        guard url.hasPrefix("http://127.0.0.1:") else {
            note("transport: downloads only from 127.0.0.1, not \(url)")
            return 2
        }
        let measured = arguments[0] == "c" ? rawDownload(url) : sluiceDownload(url, bytes: bytes)
        guard let measured else { return 1 }
        let ok = measured.bytes == bytes ? 1 : 0
        let peak = Measure.peakResidentKiB() ?? 0
        print("\(measured.nanoseconds) \(measured.bytes) \(ok) \(peak) \(measured.baselineKiB)")
        return 0
    }

    private typealias Measured = (nanoseconds: UInt64, bytes: Int, baselineKiB: Int)

    /// One download by the C client, with the receive buffer Sluice uses for downloads to a file.
    private static func rawDownload(_ url: String) -> Measured? {
        guard let raw = raw_curl_client_create(connectionCacheSize) else { return nil }
        defer { raw_curl_client_destroy(raw) }
        var result = raw_curl_result()
        let baseline = Measure.residentKiB() ?? 0
        let elapsed = Measure.time {
            raw_curl_client_get(raw, url, 1, 1, downloadBufferSize, runDeadlineSeconds * 1000, &result)
        }
        guard elapsed.result == 0, result.succeeded == 1 else {
            note("transport: C download failed: error \(result.first_error), timed out: \(result.timed_out)")
            return nil
        }
        return (elapsed.nanoseconds, Int(result.bytes), baseline)
    }

    /// One download by `CurlTransport` to /dev/null, as a user downloads to a file.
    private static func sluiceDownload(_ url: String, bytes: Int) -> Measured? {
        let transport = CurlTransport()
        var request = Request(url: URL(string: url)!)
        request.options.destination = .file(URL(fileURLWithPath: "/dev/null"))
        request.options.maximumBodySize = Int64(bytes) + 1
        let prepared: PreparedRequest
        do {
            prepared = try request.prepared()
        } catch {
            note("transport: the download request is invalid: \(error)")
            return nil
        }
        let outcome = Mutex<Result<Response, SluiceError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let baseline = Measure.residentKiB() ?? 0
        let start = Measure.now()
        let disposable = transport.response(for: prepared).start { event in
            switch event {
            case .value(let response): outcome.withLock { $0 = .success(response) }
            case .failed(let error): outcome.withLock { $0 = .failure(error) }
            case .completed, .interrupted: done.signal()
            }
            if case .failed = event { done.signal() }
        }
        guard done.wait(timeout: .now() + .seconds(runDeadlineSeconds)) == .success else {
            disposable.dispose()
            note("transport: the Sluice download passed its deadline")
            return nil
        }
        let elapsed = Measure.now() &- start
        switch outcome.withLock({ $0 }) {
        case .success(let response) where response.status == 200:
            return (elapsed, Int(response.metrics?.bytesReceived ?? 0), baseline)
        case .success(let response):
            note("transport: the Sluice download got status \(response.status)")
        case .failure(let error):
            note("transport: the Sluice download failed: \(error)")
        case nil:
            note("transport: the Sluice download ended without a response")
        }
        return nil
    }
}
