// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Imago",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Imago", targets: ["Imago"]),
        .library(name: "ImagoCorpus", targets: ["ImagoCorpus"]),
        .library(name: "ImagoTestServer", targets: ["ImagoTestServer"]),
        .library(name: "ImagoConformance", targets: ["ImagoConformance"]),
        .library(name: "ImagoConformanceXCTest", targets: ["ImagoConformanceXCTest"]),
        .library(name: "ImagoLoaderBench", targets: ["ImagoLoaderBench"]),
        .executable(name: "imago", targets: ["ImagoCLI"]),
        .executable(name: "imago-bench-count", targets: ["ImagoBenchCount"]),
    ],
    dependencies: [
        // Ranges, not pins: an app that already depends on a newer compatible release of any of
        // these must be able to add Imago. Each lower bound is the release the code was built and
        // tested with (the oldest one available to this project's builds).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Imago uses only SHA256, which swift-crypto 3 and 4 both provide; 4 is what new apps get.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The Linux transport (AsyncHTTPClientTransport). NIOSSL (the transport's TLS) and
        // NIOHTTPCompression (the test server's gzip) come with it; they are named here only
        // because a target may use a product of a package it declares.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // The test server's HTTP/2 (TestServer.TLS); async-http-client brings it anyway.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        // Diagnostics (`Configuration.Diagnostics.logger`) and metrics (`metricsFactory`), the
        // server-side conventions an app already bootstraps. swift-log comes with async-http-client too.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        // `make docs`: swift package generate-documentation (the DocC catalogs in Sources/*/*.docc).
        // A plugin only: nothing of it is linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
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
        // libdeflate, the PNG fast path's whole-buffer inflate (about twice zlib's speed here);
        // zlib stays for libpng, the push decoder and Content-Encoding.
        .systemLibrary(
            name: "CLibDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
        // ISA-L's inflate, the PNG fast path's row-by-row inflate (files, reduced sizes): it takes the
        // stream in pieces, as zlib does, at libdeflate's speed or better (Debian 12 has no zlib-ng).
        .systemLibrary(
            name: "CLibIsal", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"]), .brew(["isa-l"])]),
        // zlib, for a Content-Encoding a server sends although Imago asked for identity.
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // The one C surface Imago imports: prefixed functions, caller-allocated output,
        // setjmp/longjmp confined to C. Decoding only: what an app links.
        .target(
            name: "CImagoCodecs",
            dependencies: ["CLibPNG", "CLibJPEG", "CLibWebP", "CLibWebPDemux", "CZlib", "CLibDeflate", "CLibIsal"]),
        // Test code in C: the encoders (corpus, test images) and the plain library decoders the
        // bench measures Imago against. Never linked by Imago or the conformance suite.
        .target(
            name: "CImagoTestCodecs",
            dependencies: ["CImagoCodecs", "CLibPNG", "CLibJPEG", "CLibWebP", "CLibWebPMux"]),
        .target(
            name: "Imago",
            dependencies: [
                "CImagoCodecs",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
            ]),
        // SplitMix64, the one seeded generator: the corpus, the bench's traces and the conformance
        // suite's operation sequences repeat exactly from a seed.
        .target(name: "ImagoRandom"),
        .target(
            name: "ImagoCorpus",
            dependencies: [
                "CImagoCodecs", "CImagoTestCodecs", "ImagoRandom",
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        // Loopback HTTP/1.1 server with fault injection, shared by the loading pipeline's
        // integration tests, the conformance suite and the benchmark harness; over TLS it also
        // speaks HTTP/2 (ALPN), each stream served as one HTTP/1 exchange.
        .target(
            name: "ImagoTestServer",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // zlib for gzip bodies (GzipFile.compressed), through the compressor Imago links anyway.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]),
        // The conformance suite, for any loader: adapter protocols, harness, one check per rule.
        // No C target and no system library in its closure (an adopter needs no codec -dev
        // package): the images it serves are committed files (Images, written by
        // `make conformance-images`), not encoded at run time. PackageGraphTests keeps it so.
        .target(
            name: "ImagoConformance",
            dependencies: ["ImagoTestServer", "ImagoRandom", .product(name: "Crypto", package: "swift-crypto")],
            resources: [.copy("Images")]),
        // The one-call XCTest helper (apart, so the CLI does not link XCTest).
        .target(
            name: "ImagoConformanceXCTest",
            dependencies: ["ImagoConformance"]),
        // Imago's configurations and the mutant loaders as subjects; used by the conformance
        // tests and `imago conform`, not a product.
        .target(
            name: "ImagoConformanceSubjects",
            dependencies: ["Imago", "ImagoConformance", .product(name: "Crypto", package: "swift-crypto"),
                           // A transport of the harness's own for one planted bug (HeadMistakeTransports).
                           .product(name: "AsyncHTTPClient", package: "async-http-client")]),
        .target(
            name: "ImagoBench",
            // ImagoRandom: `imago bench compare`'s bootstrap is seeded, so a comparison repeats exactly.
            dependencies: ["Imago", "ImagoCorpus", "CImagoCodecs", "CImagoTestCodecs", "ImagoTestServer", "ImagoRandom",
                           // The throughput scenario's raw control (RawControl): HTTPClient by hand.
                           .product(name: "AsyncHTTPClient", package: "async-http-client"),
                           .product(name: "NIOCore", package: "swift-nio"),
                           // RawDiskWrite's blocking file work, on NIO's thread pool.
                           .product(name: "NIOPosix", package: "swift-nio")]),
        // Any loader adapted to the conformance suite, benchmarked against the raw control: the
        // bench's scenarios need the suite's adapter, never the reverse (the suite stays free of C).
        .target(
            name: "ImagoLoaderBench",
            dependencies: ["ImagoBench", "ImagoConformance", "ImagoTestServer"]),
        // The child `imago bench` counts a decode's instructions in under callgrind: a small
        // synchronous program (valgrind 3.19 cannot run the `imago` executable itself).
        .executableTarget(
            name: "ImagoBenchCount",
            dependencies: ["Imago", "CImagoTestCodecs"]),
        .executableTarget(
            name: "ImagoCLI",
            dependencies: [
                "Imago", "ImagoCorpus", "ImagoBench", "ImagoLoaderBench", "ImagoTestServer", "ImagoConformance", "ImagoConformanceSubjects",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `imago load --log-level`: the pipeline's logs on standard error.
                .product(name: "Logging", package: "swift-log"),
            ]),
        // What every test target shares (nginx start-or-skip, child processes, descriptor and
        // thread counts, the TLS server, memory cgroups, IPv6 and loopback helpers), for XCTest
        // and swift-testing alike. Linked by test targets only; no product reaches it.
        .target(
            name: "ImagoTestSupport",
            dependencies: [
                "ImagoTestServer",
                // The cgroup sandbox and child-process runner the bench already has.
                "ImagoBench",
                // The TLS test server.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // The observability tests: a metrics backend and a log handler that record.
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]),
        .testTarget(
            name: "ImagoTests",
            dependencies: [
                "Imago", "ImagoCorpus", "ImagoTestServer", "ImagoConformance", "ImagoTestSupport",
                // Its memory cgroups (MemoryCgroupChild) and /proc readings (ProcessMemory).
                "ImagoBench",
                // ByteBuffer for the content decoder; NIOSSL: the transport's TLS checks trust the
                // test server's certificate explicitly.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .testTarget(
            name: "ConformanceTests",
            // ImagoCorpus: the shipped images are checked against the real encoders' output.
            dependencies: ["ImagoConformance", "ImagoConformanceXCTest", "ImagoConformanceSubjects", "ImagoCorpus",
                           "ImagoTestSupport"]),
        .testTarget(
            name: "ImagoCLITests",
            // ImagoConformance: the conform tests read results logs and reports back with its types.
            // Imago and ImagoCorpus: `imago show`'s tests make pixels and encode the images they serve.
            dependencies: ["ImagoCLI", "Imago", "ImagoCorpus", "ImagoTestServer", "ImagoConformance", "ImagoTestSupport"]),
        .testTarget(
            name: "ImagoTestServerTests",
            dependencies: [
                "ImagoTestServer", "ImagoTestSupport",
                // A raw client, to see exactly what went over the wire.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The benchmark harness's pure parts: statistics, CSV, baseline verdicts, traces, SVG.
        .testTarget(
            name: "ImagoBenchTests",
            // ImagoRandom: seeded synthetic runs for the comparison's A/A and planted-change trials.
            dependencies: ["ImagoBench", "ImagoCorpus", "ImagoTestSupport", "ImagoRandom",
                           // ImagoTestServer: the raw control (RawControl) loads from a loopback server.
                           "ImagoTestServer",
                           // NIOCore: a ByteBuffer for the raw control's disk write (RawDiskWrite).
                           .product(name: "NIOCore", package: "swift-nio")]),
        // The loader bench against a fast fake loader; ImagoCLI so `imago bench --subject` is built to run.
        .testTarget(
            name: "ImagoLoaderBenchTests",
            dependencies: ["ImagoLoaderBench", "ImagoBench", "ImagoConformance", "ImagoTestServer", "ImagoTestSupport",
                           "ImagoCLI", "Imago",
                           // Imago's adapter: its OutcomeObserving, which the bench times Imago through.
                           "ImagoConformanceSubjects"]),
    ],
    swiftLanguageModes: [.v6]
)
