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
        // The integrations with the server-side Swift ecosystem, each a product of its own so that
        // an application that does not use one never builds its dependencies.
        .library(name: "SluiceHTTPTypes", targets: ["SluiceHTTPTypes"]),
        .library(name: "SluiceOpenAPI", targets: ["SluiceOpenAPI"]),
        .library(name: "SluiceTracing", targets: ["SluiceTracing"]),
        .library(name: "SluiceMetrics", targets: ["SluiceMetrics"]),
        .library(name: "SluiceHAR", targets: ["SluiceHAR"]),
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
        // The ecosystem's shared HTTP types (SluiceHTTPTypes, SluiceOpenAPI only).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // OpenAPI-generated clients run on Sluice through its ClientTransport (SluiceOpenAPI only).
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // Spans and context propagation (SluiceTracing only).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        // Counters and timers for any metrics backend (SluiceMetrics only).
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // W3C `traceparent` parsing for the tracing tests' instrument (SluiceEcosystemTests only).
        .package(url: "https://github.com/swift-otel/swift-w3c-trace-context", from: "1.0.0"),
    ],
    targets: [
        // libcurl, through a module map and a header of typed wrappers (Swift cannot call C variadics).
        // SwiftPM does not see a change to a system library's header: after editing shim.h, remove
        // the build folders (`make clean`), or the modules that import it keep the old one.
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
        // Whether a TLS connection ended with close_notify, through OpenSSL found at run time.
        .target(name: "CTLSEnd"),
        // The reactive core: knows nothing of HTTP.
        .target(name: "SluiceSignals"),
        // The networking library: client, interceptor chain, transport, requests, responses,
        // validation, Decodable and text serialization, task events. Re-exports SluiceSignals.
        .target(
            name: "Sluice",
            dependencies: [
                "SluiceSignals", "CCurl", "CNetlink", "CTLSEnd", .product(name: "Logging", package: "swift-log"),
            ]
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
        // Conversions between Sluice's requests, responses and headers and swift-http-types'.
        .target(
            name: "SluiceHTTPTypes",
            dependencies: ["Sluice", .product(name: "HTTPTypes", package: "swift-http-types")]),
        // swift-openapi-runtime's ClientTransport on a Sluice client.
        .target(
            name: "SluiceOpenAPI",
            dependencies: [
                "Sluice", "SluiceHTTPTypes", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ]),
        // A span per request, with the trace context injected into its headers.
        .target(
            name: "SluiceTracing",
            dependencies: ["Sluice", .product(name: "Tracing", package: "swift-distributed-tracing")]),
        // Requests, errors, latency and bytes per host, through swift-metrics.
        .target(
            name: "SluiceMetrics",
            dependencies: ["Sluice", .product(name: "Metrics", package: "swift-metrics")]),
        // HAR 1.2 files of what a client did, for browsers' developer tools and HAR viewers.
        .target(name: "SluiceHAR", dependencies: ["Sluice"]),
        // The guided tour run by `make demo`.
        .executableTarget(
            name: "Playground",
            dependencies: ["Sluice", "SluiceFormats", "SluiceReachability", "SluiceTesting", "SluiceHAR"],
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
        // The client swift-openapi-generator made from Tests/MockServerAPI/openapi.yaml, committed
        // (see that file to regenerate it); a module of its own, as its `Client` is not Sluice's.
        .target(
            name: "MockServerAPI",
            dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")],
            path: "Tests/MockServerAPI", exclude: ["openapi.yaml", "openapi-generator-config.yaml", "postprocess.py"]),
        // The integrations' tests, in one target: each test target is linked four times in CI.
        .testTarget(
            name: "SluiceEcosystemTests",
            dependencies: [
                "Sluice", "SluiceTesting", "SluiceHTTPTypes", "SluiceOpenAPI", "SluiceTracing", "SluiceMetrics",
                "SluiceHAR", "MockServerAPI",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "W3CTraceContext", package: "swift-w3c-trace-context"),
            ]),
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
