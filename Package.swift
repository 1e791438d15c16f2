// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceSignals", targets: ["SluiceSignals"]),
        .library(name: "SluiceFormats", targets: ["SluiceFormats"]),
        .library(name: "SluiceReachability", targets: ["SluiceReachability"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
    ],
    dependencies: [
        // SwiftNIO runs MockServer, the loopback HTTP server in SluiceTesting.
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        // TLS for MockServer (SluiceTesting only): HTTPS test servers with certificates the tests make.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.0"),
        // The logging interceptor writes through swift-log, so applications choose the backend.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `make docs`: the API documentation, built with DocC (a command plugin: nothing is built
        // with it unless asked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // Property-based tests (SluiceTests only).
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        // libcurl, through a module map and a header of typed wrappers (Swift cannot call C variadics).
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // zlib, for MockServer's gzip routes (SluiceTesting only).
        .systemLibrary(
            name: "CZlib",
            path: "Sources/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The kernel's netlink headers and two _GNU_SOURCE calls (thread names, network namespaces).
        .target(name: "CNetlink"),
        // The reactive core: knows nothing of HTTP.
        .target(name: "SluiceSignals"),
        // The networking library: client, interceptor chain, transport, requests, responses,
        // validation, Decodable and text serialization, task events. Re-exports SluiceSignals.
        .target(
            name: "Sluice",
            dependencies: ["SluiceSignals", "CCurl", "CNetlink", .product(name: "Logging", package: "swift-log")]
        ),
        // Untyped documents, as an optional product: JSONValue, XML and property lists, with
        // Sluice's own parsers and their serializers.
        .target(name: "SluiceFormats", dependencies: ["Sluice"]),
        // Network reachability from the kernel's netlink messages, the client's `reachability` and
        // the offline retry interceptor.
        .target(name: "SluiceReachability", dependencies: ["Sluice", "CNetlink"]),
        // Test support for Sluice users and for our own tests.
        .target(
            name: "SluiceTesting",
            dependencies: [
                "Sluice",
                "SluiceSignals",
                "CZlib",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The guided tour run by `make demo`.
        .executableTarget(
            name: "Playground", dependencies: ["Sluice", "SluiceFormats", "SluiceReachability", "SluiceTesting"],
            path: "Playground"),
        // A process that exits while the transport's loop thread works, run as children by the
        // exit tests (SluiceTests only).
        .executableTarget(name: "SluiceExitChild", dependencies: ["Sluice"], path: "Tests/SluiceExitChild"),
        // The fuzz targets of Sluice's own parsers, one executable chosen by SLUICE_FUZZ_TARGET (`make fuzz`).
        // A plain build replays files through them; `make fuzz` builds them with libFuzzer.
        .executableTarget(
            name: "SluiceFuzz", dependencies: ["Sluice", "SluiceFormats", "SluiceReachability", "QueryStringDecoding"],
            path: "Fuzz/SluiceFuzz"),
        // A reader of the query strings URLEncoding writes, for the round-trip tests and the query
        // fuzz target (test support, not a product).
        .target(name: "QueryStringDecoding", dependencies: ["Sluice"], path: "Tests/QueryStringDecoding"),
        .testTarget(name: "SluiceSignalsTests", dependencies: ["SluiceSignals"]),
        .testTarget(
            name: "SluiceTests",
            dependencies: [
                "Sluice", "SluiceFormats", "SluiceReachability", "SluiceTesting", "SluiceExitChild",
                "QueryStringDecoding",
                .product(name: "PropertyBased", package: "swift-property-based"),
                // A TLS front for the HTTPS-proxy tests (TLSFront).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
