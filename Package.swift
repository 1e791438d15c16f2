// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceSignals", targets: ["SluiceSignals"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
    ],
    targets: [
        // libcurl, through a module map and a header of typed wrappers (Swift cannot call C variadics).
        .systemLibrary(
            name: "CCurl",
            path: "Sources/CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // The reactive core: knows nothing of HTTP.
        .target(name: "SluiceSignals"),
        // The networking library; re-exports SluiceSignals.
        .target(name: "Sluice", dependencies: ["SluiceSignals", "CCurl"]),
        // Test support for Sluice users and for our own tests.
        .target(name: "SluiceTesting", dependencies: ["Sluice", "SluiceSignals"]),
        // The guided tour run by `make demo`.
        .executableTarget(name: "Playground", dependencies: ["Sluice", "SluiceTesting"], path: "Playground"),
        .testTarget(name: "SluiceSignalsTests", dependencies: ["SluiceSignals", "SluiceTesting"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting"]),
    ],
    swiftLanguageModes: [.v6]
)
