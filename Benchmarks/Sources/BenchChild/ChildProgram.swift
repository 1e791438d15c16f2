#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The entry point of a child binary (`sluice-bench-c`, `sluice-bench-sluice`, …), each of which
/// links one client alone: the parent, `sluice-bench`, runs them to measure each client in a process
/// of its own, so that a child's peak RSS holds no other client's libraries.
public enum ChildProgram {
    /// The subcommand that prints the header lines the client adds to every request, one per line.
    public static let defaultHeadersSubcommand = "__default-headers"

    /// Runs the measurement the command line names and exits with its status:
    /// `__e2e-child <client> …` (`E2EChild`) with the contender `contender` makes, or, when the
    /// client has one, `__transport-download <client> …` (`TransportDownloadChild`) with `download`;
    /// `__default-headers` prints what `defaultHeaders` returns, when the client has it.
    public static func main(
        client: E2EClient,
        contender: (E2EContext) throws -> any E2EContender,
        download: ((_ url: String, _ bytes: Int) -> TransportDownloadChild.Measurement?)? = nil,
        defaultHeaders: (() -> [String])? = nil
    ) -> Never {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch (arguments.first, download) {
        case (E2EChild.subcommand, _):
            exit(E2EChild.run(Array(arguments.dropFirst()), client: client, makeContender: contender))
        case (TransportDownloadChild.subcommand, let download?):
            exit(TransportDownloadChild.run(Array(arguments.dropFirst()), client: client, download: download))
        case (defaultHeadersSubcommand, _) where defaultHeaders != nil:
            for line in defaultHeaders?() ?? [] { print(line) }
            exit(0)
        default:
            var commands = ["\(E2EChild.subcommand) \(client.rawValue) <workload> …"]
            if download != nil {
                commands.append("\(TransportDownloadChild.subcommand) \(client.rawValue) <url> <bytes>")
            }
            if defaultHeaders != nil { commands.append(defaultHeadersSubcommand) }
            note(
                "usage: \(client.executable) " + commands.joined(separator: " | ")
                    + "\n(a child of sluice-bench, which runs it with these arguments; see Docs/Performance.md)")
            exit(2)
        }
    }
}
