import Foundation

/// Everything one ``NginxServer`` writes, inside one fresh temporary directory: the generated
/// nginx.conf, the docroot, pid file, logs and the temp paths nginx would otherwise create under
/// /var/lib/nginx (Debian's compiled-in defaults, not writable by tests and shared between runs).
/// Removing the directory removes every trace of the server.
struct NginxLayout: Sendable {
    let directory: URL
    var docroot: URL { directory.appendingPathComponent("docroot") }
    var configurationFile: URL { directory.appendingPathComponent("nginx.conf") }
    var pidFile: URL { directory.appendingPathComponent("nginx.pid") }
    var errorLog: URL { directory.appendingPathComponent("error.log") }
    var accessLog: URL { directory.appendingPathComponent("access.log") }
    /// nginx's (and its watchdog's) standard output and error.
    var output: URL { directory.appendingPathComponent("output.log") }
    /// The HTTPS listener's certificate and key (`NginxTLS`), outside the docroot.
    var tlsCertificate: URL { directory.appendingPathComponent("tls-certificate.pem") }
    var tlsKey: URL { directory.appendingPathComponent("tls-key.pem") }
    private static let tempPaths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi", "proxy_cache"]

    /// Makes `imago-nginx-<UUID>` in `root` with the docroot and temp directories inside.
    static func make(in root: URL) throws(NginxError) -> NginxLayout {
        let layout = NginxLayout(directory: root.appendingPathComponent("imago-nginx-\(UUID().uuidString)"))
        do {
            for path in ["docroot"] + tempPaths.map({ "temp/\($0)" }) {
                try FileManager.default.createDirectory(
                    at: layout.directory.appendingPathComponent(path), withIntermediateDirectories: true)
            }
        } catch {
            try? FileManager.default.removeItem(at: layout.directory)
            throw .fileSystem("cannot lay out \(layout.directory.path): \(error)")
        }
        for file in [layout.accessLog, layout.output] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            try? FileManager.default.removeItem(at: layout.directory)
            throw .fileSystem("cannot create \(file.path)")
        }
        return layout
    }

    /// The docroot file at `relativePath`, refusing paths that would leave the docroot.
    func docrootFile(_ relativePath: String) throws(NginxError) -> URL {
        let parts = relativePath.split(separator: "/")
        guard !relativePath.hasPrefix("/"), !parts.isEmpty, !parts.contains(".."), !parts.contains(".") else {
            throw .invalidConfiguration("\(relativePath.debugDescription) is not a relative path inside the docroot")
        }
        return docroot.appendingPathComponent(relativePath)
    }

    func write(_ bytes: [UInt8], to relativePath: String) throws(NginxError) {
        let file = try docrootFile(relativePath)
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: file)
        } catch {
            throw .fileSystem("cannot write \(file.path): \(error)")
        }
    }

    /// Writes the HTTPS listener's certificate and key where the configuration names them.
    func writeTLS(_ tls: NginxTLS) throws(NginxError) {
        for (bytes, file) in [(tls.pair.certificatePEM, tlsCertificate), (tls.pair.keyPEM, tlsKey)] {
            do { try Data(bytes).write(to: file) } catch { throw .fileSystem("cannot write \(file.path): \(error)") }
        }
    }

    /// nginx's standard error and error.log, the last 8,000 characters: what a start-up failure
    /// reports.
    var diagnostics: String {
        let parts = [("output", output), ("error.log", errorLog)].compactMap { name, url -> String? in
            guard let text = try? String(contentsOf: url, encoding: .utf8), !text.isEmpty else { return nil }
            return "--- \(name)\n\(text.suffix(8_000))"
        }
        return parts.isEmpty ? "(nginx wrote nothing)" : parts.joined(separator: "\n")
    }

    /// The whole nginx.conf. `daemon off` keeps nginx the launcher's child; `master_process off`
    /// makes it one process that serves requests itself: as root, a master would hand requests
    /// to workers running as `nobody`, who cannot read the test's private temporary directory.
    /// The access log is unbuffered (no `buffer=`), one write per finished request. With
    /// `https`, the same server also listens with TLS on `https.port` (one server block: every
    /// location answers on both).
    func configuration(port: Int, ipv6: Bool, locations: [NginxLocation],
                       https: (port: Int, tls: NginxTLS, syntax: NginxHTTP2Syntax)? = nil) throws(NginxError) -> String {
        let renderer = NginxConfigRenderer(docroot: docroot.path, selfOrigin: "http://127.0.0.1:\(port)")
        let paths = try [docroot, pidFile, errorLog, accessLog].map { url throws(NginxError) in
            try NginxConfigRenderer.quoted(url.path)
        }
        let temp = try Self.tempPaths.filter { $0 != "proxy_cache" }.map { name throws(NginxError) in
            "    \(name)_temp_path \(try NginxConfigRenderer.quoted(directory.appendingPathComponent("temp/\(name)").path));"
        }
        let cachePath = NginxProxyCache.isUsed(by: locations)
            ? "    " + (try NginxProxyCache.pathLine(layoutDirectory: directory.path)) + "\n" : ""
        let blocks = try locations.map { location throws(NginxError) in try renderer.render(location) }
        let tlsLines = try https.map { https throws(NginxError) in try tlsListen(https, ipv6: ipv6) } ?? ""
        return """
            # Generated by ImagoTestServer's NginxServer for one test; removed when the server stops.
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(paths[1]);
            error_log \(paths[2]) info;
            events { worker_connections 256; }
            http {
                types {
                    image/png png; image/jpeg jpg jpeg; image/webp webp; image/gif gif;
                    text/plain txt; application/gzip gz;
                }
                default_type application/octet-stream;
                log_format imago \(NginxAccessLogEntry.logFormat);
                access_log \(paths[3]) imago;
            \(temp.joined(separator: "\n"))
            \(cachePath)\
                server {
                    listen 127.0.0.1:\(port);
            \(ipv6 ? "        listen [::1]:\(port);\n" : "")\
            \(tlsLines)\
                    server_name localhost;
                    root \(paths[0]);
            \(blocks.joined(separator: "\n"))
                }
            }

            """
    }

    /// The `listen … ssl` lines, `http2` as this nginx spells it, and the certificate, each line
    /// indented for the server block and ending in a newline.
    private func tlsListen(_ https: (port: Int, tls: NginxTLS, syntax: NginxHTTP2Syntax), ipv6: Bool) throws(NginxError) -> String {
        let parameter = https.tls.http2 && https.syntax == .listenParameter ? " ssl http2" : " ssl"
        var lines = ["listen 127.0.0.1:\(https.port)\(parameter);"]
        if ipv6 { lines.append("listen [::1]:\(https.port)\(parameter);") }
        if https.tls.http2 && https.syntax == .directive { lines.append("http2 on;") }
        lines.append("ssl_certificate \(try NginxConfigRenderer.quoted(tlsCertificate.path));")
        lines.append("ssl_certificate_key \(try NginxConfigRenderer.quoted(tlsKey.path));")
        return lines.map { "        \($0)\n" }.joined()
    }
}
