import BenchChild
import Dispatch
import Sluice
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The transport suite's download by Sluice: one GET on `CurlTransport` to `.file(/dev/null)`, as a
/// user downloads to a file.
enum SluiceDownload {
    /// Downloads `url` (`bytes` long) once; nil (having said why) when it failed.
    static func run(_ url: String, bytes: Int) -> TransportDownloadChild.Measurement? {
        let transport = CurlTransport()
        guard let location = URL(string: url) else {
            note("transport: the download URL is invalid: \(url)")
            return nil
        }
        var request = Request(url: location)
        request.options.destination = .file(URL(fileURLWithPath: "/dev/null"))
        request.options.maximumBodySize = Int64(bytes) + 1
        // The same request head as the C client's, which sends no Accept-Encoding (as the suite's
        // small GETs do; see `TransportBenchmark`).
        request.options.decompress = false
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
        guard done.wait(timeout: .now() + .seconds(TransportDownloadChild.deadlineSeconds)) == .success else {
            disposable.dispose()
            note("transport: the Sluice download passed its deadline")
            return nil
        }
        let elapsed = Measure.now() &- start
        switch outcome.withLock({ $0 }) {
        case .success(let response) where response.status == 200:
            return TransportDownloadChild.Measurement(
                nanoseconds: elapsed, bytes: Int(response.metrics?.bytesReceived ?? 0), baselineKiB: baseline)
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
