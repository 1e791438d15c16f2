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
        // `sluice-bench <suite> [--json]`: one subcommand per workload.
        .executableTarget(
            name: "sluice-bench",
            dependencies: [
                "CRawCurl",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceSignals", package: "Sluice"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "_NIOFileSystem", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
