// swift-tools-version: 6.1
import Foundation
import PackageDescription

// A blog-style image loader and its conformance adapter: what an adopter of ImagoConformance
// writes. Depends on Imago's package by path; `make example` builds and runs it.

// A path dependency's identity is its directory's name (the checkout may be called anything).
let imagoIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
    name: "BlogLoader",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "blog-conformance", targets: ["BlogConformance"]),
    ],
    dependencies: [
        .package(path: "../.."),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
    ],
    targets: [
        // The loader as a blog post would write it. It decodes with Imago's decoder (Linux has no
        // UIImage); everything else (fetching, caching, the model) is its own.
        .target(
            name: "BlogLoader",
            dependencies: [
                .product(name: "Imago", package: imagoIdentity),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // The adapter: what the conformance suite drives, and the score the loader is known to get.
        .target(
            name: "BlogAdapter",
            dependencies: [
                "BlogLoader",
                .product(name: "ImagoConformance", package: imagoIdentity),
            ]),
        // Runs the suite without XCTest, writes the Markdown report, checks the expected score.
        .executableTarget(
            name: "BlogConformance",
            dependencies: [
                "BlogAdapter",
                .product(name: "ImagoConformance", package: imagoIdentity),
            ]),
        // The same through XCTest (the README's assertConforms snippet); `make example` runs both.
        .testTarget(
            name: "BlogLoaderConformanceTests",
            dependencies: [
                "BlogAdapter",
                .product(name: "ImagoConformance", package: imagoIdentity),
                .product(name: "ImagoConformanceXCTest", package: imagoIdentity),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
