import BenchChild
import Sluice

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// `sluice-bench-sluice`: Sluice's child. It links the harness and Sluice, and its own code uses
// FoundationEssentials, not Foundation: whatever else is resident is what Sluice itself brings.
// It also runs the soak suite (`SoakChild`), which is Sluice's alone.
if CommandLine.arguments.dropFirst().first == SoakChild.subcommand {
    exit(SluiceSoak.run(Array(CommandLine.arguments.dropFirst(2))))
}
ChildProgram.main(
    client: .sluice, contender: { try SluiceContender(context: $0) }, download: SluiceDownload.run,
    // What a `Client` made with the default configuration adds to every request, as this process
    // sends it (the User-Agent names the executable): the C client sends the same lines in the rows
    // that tell what they cost.
    defaultHeaders: { Client.Configuration().defaultHeaders.map { "\($0.name): \($0.value)" } })
