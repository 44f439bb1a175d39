// swift-tools-version: 6.1
import Foundation
import PackageDescription

// libFuzzer targets for Imago's decoders. A package of its own so that the main package never
// carries sanitizer or `-parse-as-library` flags: consumers of Imago build nothing from here.
// Built and run only through `make fuzz` (see the Makefile), which passes
// `--sanitize fuzzer --sanitize address` so Imago and CImagoCodecs are instrumented too.

// A path dependency's identity is its directory's name (the checkout may be called anything).
let imagoIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().lastPathComponent.lowercased()

// libFuzzer supplies `main`; each target only exports LLVMFuzzerTestOneInput.
let fuzzerSettings: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "ImagoFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fuzz-png", targets: ["FuzzPNG"]),
        .executable(name: "fuzz-jpeg", targets: ["FuzzJPEG"]),
        .executable(name: "fuzz-webp", targets: ["FuzzWebP"]),
        .executable(name: "fuzz-decode", targets: ["FuzzDecode"]),
    ],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // Plain libjpeg-turbo (Debian's libjpeg62-turbo-dev headers), the chunked JPEG fuzzer's
        // witness: nothing of Imago's in it.
        .target(name: "FuzzLibJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "Imago", package: imagoIdentity), "FuzzLibJPEG"]),
        .executableTarget(name: "FuzzPNG", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSettings),
        .executableTarget(name: "FuzzJPEG", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSettings),
        .executableTarget(name: "FuzzWebP", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSettings),
        .executableTarget(name: "FuzzDecode", dependencies: ["FuzzSupport"], swiftSettings: fuzzerSettings),
    ],
    swiftLanguageModes: [.v6]
)
