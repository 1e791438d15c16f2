// swift-tools-version: 6.0
import PackageDescription

// The benchmarks live in their own package so that users of Sluice never fetch their dependencies.
let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // The library under test, from the enclosing repository (SluiceSignals for the signals suite,
        // Sluice for the transport and end-to-end suites).
        // Named, because a path dependency is otherwise known by its folder's name, which varies
        // between clones.
        .package(name: "Sluice", path: ".."),
        // The reference for the reactive core: Combine's API, portable to Linux.
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        // The end-to-end suite's SwiftNIO-based contender: the HTTP client of the Swift server ecosystem,
        // and the SwiftNIO it runs on (ByteBuffer, and NIOFileSystem to stream its upload from a file).
        .package(url: "https://github.com/swift-server/async-http-client", exact: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        // The transport and end-to-end suites' reference client: plain C on libcurl's multi interface.
        .target(name: "CRawCurl", linkerSettings: [.linkedLibrary("curl")]),

        // The child side of every measurement that reads a peak RSS: one executable per client, each
        // linking that client alone, so that a child's peak RSS is what a program using that client
        // would have, without the other clients' libraries (when all lived in one binary, the C
        // client's peak was ~32 MiB, against ~17 MiB in its own). The parent finds them next to its
        // own executable by these names (`E2EClient.executable`).

        // The harness the children share: the command line, the workloads, the measurement and the
        // one result line. It imports neither Foundation nor Dispatch, so that it adds nothing to the
        // C child beyond the Swift runtime.
        .target(name: "BenchChild"),
        // What the children of the async and callback clients add to it: a tally of operations that
        // finish on any thread, and blocking on async work (Dispatch and Synchronization).
        .target(name: "BenchChildAsync", dependencies: ["BenchChild"]),
        .executableTarget(name: "sluice-bench-c", dependencies: ["BenchChild", "CRawCurl"]),
        .executableTarget(
            name: "sluice-bench-sluice",
            dependencies: ["BenchChild", "BenchChildAsync", .product(name: "Sluice", package: "Sluice")]
        ),
        .executableTarget(name: "sluice-bench-urlsession", dependencies: ["BenchChild", "BenchChildAsync"]),
        .executableTarget(
            name: "sluice-bench-ahc",
            dependencies: [
                "BenchChild", "BenchChildAsync",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ]
        ),

        // `sluice-bench <suite> [--json]`: one subcommand per workload. It runs the suites and the
        // in-process workloads, and the children above for the rest. Depending on them makes SwiftPM
        // build them with it (`swift run … sluice-bench` too); their code is not linked into it, but
        // SwiftPM links their library dependencies (SwiftNIO, AsyncHTTPClient) into it, unused. That
        // is harmless: of this process's memory only the signals suite's peak RSS is reported, for the
        // record, and this binary held those libraries before the children were split out too.
        .executableTarget(
            name: "sluice-bench",
            dependencies: [
                "BenchChild",
                "CRawCurl",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceSignals", package: "Sluice"),
                .product(name: "SluiceFormats", package: "Sluice"),
                // MockServer, for the resume suite's server that resets and changes its content.
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                "sluice-bench-c", "sluice-bench-sluice", "sluice-bench-urlsession", "sluice-bench-ahc",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
