import ArgumentParser
import Dispatch
import Foundation
import ImagoTestServer

/// `imago serve DIR`: the test server on a directory, for trying the loader by hand or
/// feeding the benchmarks over loopback with a chosen latency and bandwidth.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a directory over HTTP/1.1 on 127.0.0.1 until SIGINT or SIGTERM.",
        discussion: """
            Prints one line, `serving DIR at http://127.0.0.1:PORT`, once it is listening. \
            Files get ETag, Last-Modified and Range support; --latency and --rate slow \
            every response down.
            """)

    @Argument(help: "The directory to serve.")
    var directory: String

    @Option(help: "TCP port on 127.0.0.1 (default: 0, an ephemeral port).")
    var port: Int = 0

    @Option(help: "Milliseconds to wait before every response head (default: none).")
    var latency: Int?

    @Option(help: "Limit every response body to this many bytes per second (default: unlimited).")
    var rate: Int?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535") }
        if let latency, latency < 0 { throw ValidationError("--latency must not be negative") }
        if let rate, rate < 1 { throw ValidationError("--rate must be at least 1") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("\(directory) is not a directory")
        }
    }

    func run() async throws {
        let faults = Faults(latencyBeforeHead: latency.map { .milliseconds($0) }, bytesPerSecond: rate)
        let stop = CaughtSignals()  // before listening, so an early signal is not lost
        let server = try await TestServer.start(
            .init(port: port, root: URL(fileURLWithPath: directory, isDirectory: true), defaultFaults: faults))
        // Unbuffered, so a parent process reading the pipe sees the line at once.
        FileHandle.standardOutput.write(Data("serving \(directory) at \(server.baseURL.absoluteString)\n".utf8))
        _ = await stop.next()
        stop.stop()
        try await server.shutdown()
    }
}
