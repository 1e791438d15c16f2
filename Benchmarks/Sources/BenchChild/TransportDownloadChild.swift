/// The transport suite's download in a child: `__transport-download <client> <url> <bytes>`.
///
/// The child downloads `url` once, discarding the body, and prints one line,
/// `ns bytes ok peak-KiB RSS-before-KiB` (`ok` is 1 when `bytes` arrived). The process holds that
/// client alone, so the peak RSS it reads belongs to that download and that client only.
public enum TransportDownloadChild {
    /// The subcommand, first on a child's command line.
    public static let subcommand = "__transport-download"
    /// The longest the download may take before the child gives up.
    public static let deadlineSeconds = 300

    /// What one download measured.
    public struct Measurement: Sendable {
        /// Wall time of the download.
        public var nanoseconds: UInt64
        /// Body bytes received.
        public var bytes: Int
        /// VmRSS just before the download started, in KiB.
        public var baselineKiB: Int

        /// A measurement of these values.
        public init(nanoseconds: UInt64, bytes: Int, baselineKiB: Int) {
            self.nanoseconds = nanoseconds
            self.bytes = bytes
            self.baselineKiB = baselineKiB
        }
    }

    /// Runs `arguments` (the ones after the subcommand) with `download`, the download of `client`,
    /// the one client of this binary, which returns nil (having said why) when it failed. Returns the
    /// exit status: 0 when the line was printed, 1 when the download failed, 2 on a usage error.
    static func run(
        _ arguments: [String], client: E2EClient, download: (_ url: String, _ bytes: Int) -> Measurement?
    ) -> Int32 {
        guard arguments.count == 3, arguments[0] == client.rawValue, let bytes = Int(arguments[2]) else {
            note("usage: \(client.executable) \(subcommand) \(client.rawValue) <url> <bytes>")
            return 2
        }
        let url = arguments[1]
        guard url.hasPrefix("http://127.0.0.1:") else {
            note("transport: downloads only from 127.0.0.1, not \(url)")
            return 2
        }
        guard let measured = download(url, bytes) else { return 1 }
        let ok = measured.bytes == bytes ? 1 : 0
        let peak = Measure.peakResidentKiB() ?? 0
        print("\(measured.nanoseconds) \(measured.bytes) \(ok) \(peak) \(measured.baselineKiB)")
        return 0
    }
}
