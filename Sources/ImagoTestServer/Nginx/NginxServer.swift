import Foundation
import Synchronization

/// A real nginx (Debian's package, installed by `make deps`) started by a test on a loopback
/// port with a generated configuration, for integration tests against a production server's
/// HTTP: its gzip, redirects, error pages, rate limiting and proxying, not the test server's.
///
/// ```swift
/// let nginx = try await NginxServer.start(.init(
///     locations: [.prefix("/gzip/", .alias("files/"), .gzip())],
///     files: ["files/a.png": png]))
/// let url = nginx.url(for: "/gzip/a.png")           // http://127.0.0.1:PORT/gzip/a.png
/// // ... load it ...
/// let lines = try await nginx.waitForAccessLog("a.png served") { $0.contains { $0.status == 200 } }
/// await nginx.stop()                                 // in tearDown, so a failing test stops it too
/// ```
///
/// Lifetime: ``start(_:)`` makes a fresh temporary directory (`imago-nginx-<UUID>`: nginx.conf,
/// docroot, pid file, logs, temp paths), starts nginx in the foreground as a child process and
/// returns once it accepts connections. ``stop()`` ends nginx, waits for it to exit and removes
/// the directory; call it in `tearDown` (or a `defer`) so a failing test cleans up too; calling
/// it again does nothing. A server released without ``stop()`` ends nginx and removes the
/// directory in `deinit`, without waiting. Should the test process die (a crash, a kill),
/// nginx still ends: it runs under a small shell watchdog that terminates it as soon as the socket
/// from this process closes, which the kernel does when the process goes; only the directory is
/// then left in the temporary directory.
///
/// With ``Configuration/tls`` it also serves HTTPS (HTTP/2 offered) on ``httpsPort``, the same
/// locations as over HTTP: ``httpsURL(for:)``; ``TestCertificates`` makes the certificates.
///
/// When no nginx can be run, ``start(_:)`` throws ``NginxError/unavailable(reason:)``: tests
/// skip on that one case and fail on every other.
public final class NginxServer: Sendable {
    /// How a server is started. Every knob has a default, stated on it.
    public struct Configuration: Sendable {
        /// The locations of the server block, in order. Default empty: every request is a
        /// static file from the docroot, or nginx's 404.
        public var locations: [NginxLocation]
        /// Files written into the docroot before nginx starts, by path relative to it
        /// (directories are made as needed). Default empty. More can be written later with
        /// ``NginxServer/writeFile(_:_:)``: nginx reads files per request.
        public var files: [String: [UInt8]]
        /// Also listen on `[::1]`, on the same port, when this machine has IPv6 loopback.
        /// Default true; ``NginxServer/ipv6BaseURL`` says whether it does.
        public var listensOnIPv6: Bool
        /// The nginx binary. Default nil: `/usr/sbin/nginx`, else the first `nginx` on `PATH`.
        public var executable: String?
        /// How long nginx may take to accept connections before start-up fails. Default 10 s
        /// (it takes about 20 ms here).
        public var startupTimeout: Duration
        /// Where the server's temporary directory is made. Default: the system temporary
        /// directory.
        public var temporaryRoot: URL
        /// An HTTPS listener beside the HTTP one, on a port of its own (``NginxServer/httpsPort``)
        /// with the same locations. Default nil: HTTP only.
        public var tls: NginxTLS?

        /// A configuration; every knob has the default its doc comment states.
        public init(locations: [NginxLocation] = [], files: [String: [UInt8]] = [:], listensOnIPv6: Bool = true,
                    executable: String? = nil, startupTimeout: Duration = .seconds(10),
                    temporaryRoot: URL = FileManager.default.temporaryDirectory, tls: NginxTLS? = nil) {
            self.locations = locations
            self.files = files
            self.listensOnIPv6 = listensOnIPv6
            self.executable = executable
            self.startupTimeout = startupTimeout
            self.temporaryRoot = temporaryRoot
            self.tls = tls
        }
    }

    /// The port nginx listens on (127.0.0.1, and [::1] when ``ipv6BaseURL`` is set).
    public let port: Int
    /// `http://127.0.0.1:PORT`, no trailing slash.
    public let baseURL: URL
    /// `http://[::1]:PORT`, or nil when nginx does not listen on IPv6 loopback (the machine
    /// has none, or the configuration said not to).
    public let ipv6BaseURL: URL?
    /// The HTTPS port (127.0.0.1, and [::1] when ``ipv6BaseURL`` is set), or nil without
    /// ``Configuration/tls``.
    public let httpsPort: Int?
    /// `https://127.0.0.1:HTTPSPORT`, no trailing slash, or nil without ``Configuration/tls``.
    public var httpsBaseURL: URL? { httpsPort.map { URL(string: "https://127.0.0.1:\($0)")! } }
    /// The server's temporary directory (removed by ``stop()``).
    public var directory: URL { layout.directory }
    /// The directory nginx serves files from (`root`).
    public var docroot: URL { layout.docroot }
    /// The generated nginx.conf.
    public var configurationFile: URL { layout.configurationFile }

    private let layout: NginxLayout
    private let child: Mutex<NginxChild?>

    private init(layout: NginxLayout, port: Int, httpsPort: Int?, ipv6: Bool, child: NginxChild) {
        self.layout = layout
        self.port = port
        self.httpsPort = httpsPort
        self.baseURL = URL(string: "http://127.0.0.1:\(port)")!
        self.ipv6BaseURL = ipv6 ? URL(string: "http://[::1]:\(port)")! : nil
        self.child = Mutex(child)
    }

    deinit {
        // Not stopped: the watchdog ends nginx when its socket closes; nobody waits for it.
        if let child = child.withLock({ $0.take() }) {
            child.closeInput()
            try? FileManager.default.removeItem(at: layout.directory)
        }
    }

    /// The nginx binary `explicit` names, else `/usr/sbin/nginx`, else the first `nginx` on
    /// `PATH`; ``NginxError/unavailable(reason:)`` when there is none.
    public static func locateExecutable(_ explicit: String? = nil) throws(NginxError) -> String {
        let files = FileManager.default
        if let explicit {
            guard files.isExecutableFile(atPath: explicit) else {
                throw .unavailable(reason: "\(explicit) is not an executable file")
            }
            return explicit
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let candidates = ["/usr/sbin/nginx"] + path.split(separator: ":").map { "\($0)/nginx" }
        if let found = candidates.first(where: { files.isExecutableFile(atPath: $0) }) { return found }
        throw .unavailable(reason: "no nginx at /usr/sbin/nginx or on PATH (\(path)); `make deps` installs Debian's")
    }

    /// Starts nginx and returns once it accepts connections on every address it listens on.
    /// A port taken by another process between the pick and nginx's bind is retried with a
    /// new port (up to 3 times).
    public static func start(_ configuration: Configuration = Configuration()) async throws(NginxError) -> NginxServer {
        let executable = try locateExecutable(configuration.executable)
        let ipv6 = configuration.listensOnIPv6 && LoopbackPorts.ipv6Available
        let http2Syntax = try configuration.tls.map { _ throws(NginxError) in try NginxHTTP2Syntax.of(executable: executable) }
        var attempt = 0
        while true {
            attempt += 1
            let layout = try NginxLayout.make(in: configuration.temporaryRoot)
            let child: NginxChild
            let port: Int
            var httpsPort: Int?
            do throws(NginxError) {
                for (path, bytes) in configuration.files { try layout.write(bytes, to: path) }
                guard let free = LoopbackPorts.freePort(alsoIPv6: ipv6) else {
                    throw .fileSystem("no free loopback port")
                }
                port = free
                var https: (port: Int, tls: NginxTLS, syntax: NginxHTTP2Syntax)?
                if let tls = configuration.tls, let http2Syntax {
                    try layout.writeTLS(tls)
                    guard let second = LoopbackPorts.freePort(alsoIPv6: ipv6, other: port) else {
                        throw .fileSystem("no second free loopback port for HTTPS")
                    }
                    httpsPort = second
                    https = (second, tls, http2Syntax)
                }
                let text = try layout.configuration(port: port, ipv6: ipv6, locations: configuration.locations, https: https)
                do {
                    try Data(text.utf8).write(to: layout.configurationFile)
                } catch {
                    throw .fileSystem("cannot write \(layout.configurationFile.path): \(error)")
                }
                child = try NginxChild.launch(executable: executable, layout: layout)
            } catch {
                try? FileManager.default.removeItem(at: layout.directory)
                throw error
            }
            let server = NginxServer(layout: layout, port: port, httpsPort: httpsPort, ipv6: ipv6, child: child)
            do throws(NginxError) {
                try await server.waitUntilAccepting(child, timeout: configuration.startupTimeout)
                return server
            } catch {
                await server.stop()
                guard case .exitedDuringStartup(_, let log) = error, log.contains("Address already in use"), attempt < 3
                else { throw error }
            }
        }
    }

    /// The pid file appears once nginx has bound every listening socket (it writes it after
    /// loading the configuration), so a connection that succeeds after it reaches nginx and not
    /// some other process that took the port.
    private func waitUntilAccepting(_ child: NginxChild, timeout: Duration) async throws(NginxError) {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = child.exitStatus {
                throw .exitedDuringStartup(status: status, log: layout.diagnostics)
            }
            let ports = [port] + (httpsPort.map { [$0] } ?? [])
            if FileManager.default.fileExists(atPath: layout.pidFile.path),
               ports.allSatisfy({ LoopbackPorts.accepts(.ipv4, port: $0) }),
               ipv6BaseURL == nil || ports.allSatisfy({ LoopbackPorts.accepts(.ipv6, port: $0) }) {
                return
            }
            if ContinuousClock.now >= deadline {
                throw .startupTimedOut(seconds: Double(timeout.components.seconds), log: layout.diagnostics)
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Whether nginx is still running (false once ``stop()`` began, or if it died).
    public var isRunning: Bool { child.withLock { $0?.exitStatus == nil && $0 != nil } }

    /// Ends nginx (SIGTERM through its watchdog; SIGKILL if it has not exited after 5 s), waits
    /// for it to exit (it takes a few milliseconds), and removes the temporary directory.
    /// Idempotent.
    public func stop() async {
        guard let child = child.withLock({ $0.take() }) else { return }
        child.closeInput()
        if await !child.waitForExit(within: .seconds(5)) {
            await child.forceKill(nginxPidFile: layout.pidFile, configuration: layout.configurationFile)
        }
        try? FileManager.default.removeItem(at: layout.directory)
    }

    /// `path` (starting with `/`, a query may follow) on 127.0.0.1. Characters not allowed in
    /// a URL, such as spaces, are percent-encoded.
    public func url(for path: String) -> URL { Self.url(baseURL, path) }

    /// `path` on the HTTPS listener at 127.0.0.1, or nil without ``Configuration/tls``.
    public func httpsURL(for path: String) -> URL? { httpsBaseURL.map { Self.url($0, path) } }

    /// `path` on [::1], or nil when nginx does not listen there.
    public func ipv6URL(for path: String) -> URL? { ipv6BaseURL.map { Self.url($0, path) } }

    private static func url(_ base: URL, _ path: String) -> URL {
        if let url = URL(string: base.absoluteString + path) { return url }
        let encoded = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
        return URL(string: base.absoluteString + encoded) ?? base
    }

    /// Writes (or replaces) a docroot file; nginx serves it from the next request on.
    public func writeFile(_ relativePath: String, _ bytes: [UInt8]) throws(NginxError) {
        try layout.write(bytes, to: relativePath)
    }

    /// Removes a docroot file (nothing if it is not there).
    public func removeFile(_ relativePath: String) throws(NginxError) {
        let file = try layout.docrootFile(relativePath)
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        do { try FileManager.default.removeItem(at: file) } catch { throw .fileSystem("cannot remove \(file.path): \(error)") }
    }

    /// Every request nginx has finished so far, in order.
    public var accessLog: [NginxAccessLogEntry] {
        NginxAccessLogEntry.parse((try? String(contentsOf: layout.accessLog, encoding: .utf8)) ?? "")
    }

    /// Waits until `condition` holds for the access log, re-reading it every 5 ms, and returns
    /// the log it held for; ``NginxError/accessLogTimedOut(_:)`` (with `what` and the log)
    /// after `timeout` (default 10 s). For what nginx logs after the client is done: a
    /// request it finishes when its next write fails, or a 499 once it notices the close.
    public func waitForAccessLog(_ what: String, timeout: Duration = .seconds(10),
                                 until condition: ([NginxAccessLogEntry]) -> Bool) async throws(NginxError) -> [NginxAccessLogEntry] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let entries = accessLog
            if condition(entries) { return entries }
            if ContinuousClock.now >= deadline {
                throw .accessLogTimedOut("\(what); log:\n" + entries.map(\.description).joined(separator: "\n"))
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Requests nginx is working on right now (reading their body, waiting on an upstream or a
    /// cache lock, or sending), the status request itself excluded, from the `stub_status` page
    /// at `statusPath` (a location with ``NginxDirective/stubStatus``). What a test waits on to
    /// know that N clients are all inside nginx before it lets the origin answer.
    public func requestsInProgress(statusPath: String) throws(NginxError) -> Int {
        guard let page = LoopbackPorts.get(port: port, path: statusPath) else {
            throw .statusUnreadable("cannot fetch \(statusPath) from nginx on port \(port)")
        }
        // "Reading: 0 Writing: 3 Waiting: 1": this request is one of the writing ones.
        let words = page.split(whereSeparator: \.isWhitespace)
        guard page.hasPrefix("HTTP/1.1 200"), let label = words.firstIndex(of: "Writing:"), label + 1 < words.count,
              let count = Int(words[label + 1]) else {
            throw .statusUnreadable("\(statusPath) is not a stub_status page: \(page.prefix(300))")
        }
        return count - 1
    }

    /// nginx's standard error and error.log (the last 8,000 characters), for failure messages.
    public var diagnostics: String { layout.diagnostics }
}
