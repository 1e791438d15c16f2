import BenchChild

/// The peak and starting memory of every download child, by client key, in the order they ran.
final class PeakMemoryLog {
    /// VmHWM at the end of each child's download, in KiB.
    var peakKiB: [String: [Int]] = [:]
    /// VmRSS just before each child's download started, in KiB.
    var baselineKiB: [String: [Int]] = [:]
}

extension TransportBenchmark {
    /// Runs one download in a fresh process of the child binary of `client` (`TransportDownloadChild`
    /// there) and returns its sample; its memory goes to `log`.
    static func downloadInChild(client: E2EClient, url: String, bytes: Int, log: PeakMemoryLog) -> Sample {
        let outcome: (status: Int32, output: String)
        do {
            outcome = try Subprocess.run(
                Subprocess.child(client), [TransportDownloadChild.subcommand, client.rawValue, url, String(bytes)])
        } catch {
            abort("transport: the download child did not start: \(error)")
        }
        // The child's one line: nanoseconds, bytes, 1 if it went well, peak KiB, baseline KiB.
        let fields = outcome.output.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        guard outcome.status == 0, fields.count == 5 else {
            abort(
                "transport: the \(client.rawValue) download child failed (status \(outcome.status)): \(outcome.output)")
        }
        log.peakKiB["\(client.rawValue)_download", default: []].append(fields[3])
        log.baselineKiB["\(client.rawValue)_download", default: []].append(fields[4])
        return Sample(elapsed: UInt64(fields[0]), operations: 1, delivered: fields[1], checksum: fields[2])
    }
}
