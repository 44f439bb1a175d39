// swift-tools-version: 6.1
import PackageDescription

// A blog-style image loader and its conformance adapter: what an adopter of ImagoConformance
// writes. Depends on Imago's package by path; `make example` builds and runs it.

let package = Package(
    name: "BlogLoader",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "blog-conformance", targets: ["BlogConformance"]),
        .executable(name: "blog-bench", targets: ["BlogBench"]),
    ],
    dependencies: [
        // A path dependency's identity is its folder's name, which a checkout may choose freely;
        // `name:` gives it the name the products below use, whatever the folder is called.
        .package(name: "Imago", path: "../.."),
        // An app that is already on the newest releases of packages Imago also uses: Imago's
        // ranges must admit them (`make example` checks swift-nio resolves to 2.101.3 here).
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    ],
    targets: [
        // The loader as a blog post would write it. It decodes with Imago's decoder (Linux has no
        // UIImage); everything else (fetching, caching, the model) is its own.
        .target(
            name: "BlogLoader",
            dependencies: [
                .product(name: "Imago", package: "Imago"),
                .product(name: "Crypto", package: "swift-crypto"),
                // Stands for the app's own use of swift-nio (an unused package dependency is
                // only a warning, and would not show that the ranges meet in one graph).
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        // The adapter: what the conformance suite drives, and the score the loader is known to get.
        .target(
            name: "BlogAdapter",
            dependencies: [
                "BlogLoader",
                .product(name: "ImagoConformance", package: "Imago"),
            ]),
        // Runs the suite without XCTest, writes the Markdown report, checks the expected score.
        .executableTarget(
            name: "BlogConformance",
            dependencies: [
                "BlogAdapter",
                .product(name: "ImagoConformance", package: "Imago"),
            ]),
        // Benches the loader against the raw control (ImagoLoaderBench): time to pixels, requests,
        // throughput, each beside the control and as overhead over it.
        .executableTarget(
            name: "BlogBench",
            dependencies: [
                "BlogAdapter",
                .product(name: "ImagoLoaderBench", package: "Imago"),
            ]),
        // The same through XCTest (the assertConforms snippet of ImagoConformance's DocC article Adopting the Suite); `make example` runs both.
        .testTarget(
            name: "BlogLoaderConformanceTests",
            dependencies: [
                "BlogAdapter",
                .product(name: "ImagoConformance", package: "Imago"),
                .product(name: "ImagoConformanceXCTest", package: "Imago"),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
