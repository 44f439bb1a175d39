// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Imago",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Imago", targets: ["Imago"]),
        .library(name: "ImagoCorpus", targets: ["ImagoCorpus"]),
        .executable(name: "imago", targets: ["ImagoCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
    ],
    targets: [
        // System libraries: the only way the codec libraries enter the build.
        .systemLibrary(
            name: "CLibPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CLibJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CLibWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(
            name: "CLibWebPDemux", pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(
            name: "CLibWebPMux", pkgConfig: "libwebpmux",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        // The one C surface Swift imports: prefixed functions, caller-allocated output,
        // setjmp/longjmp confined to C.
        .target(
            name: "CImagoCodecs",
            dependencies: ["CLibPNG", "CLibJPEG", "CLibWebP", "CLibWebPDemux", "CLibWebPMux"]),
        .target(
            name: "Imago",
            dependencies: [
                "CImagoCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "ImagoCorpus",
            dependencies: [
                "CImagoCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "ImagoBench",
            dependencies: ["Imago", "ImagoCorpus", "CImagoCodecs"]),
        .executableTarget(
            name: "ImagoCLI",
            dependencies: [
                "Imago", "ImagoCorpus", "ImagoBench",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .testTarget(
            name: "ImagoTests",
            dependencies: ["Imago", "ImagoCorpus"],
            resources: []),
    ],
    swiftLanguageModes: [.v6]
)
