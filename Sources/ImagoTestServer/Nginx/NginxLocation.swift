import Foundation

/// One `location` block of a generated nginx.conf: which request paths it takes and what nginx
/// does with them. Each test lists the locations it needs; everything else the server answers
/// (a path no location takes) is a static file from the docroot, or nginx's own 404.
///
/// ```swift
/// let locations: [NginxLocation] = [
///     .prefix("/gzip/", .alias("files/"), .gzip()),
///     .exact("/moved.png", .redirect(status: 308, to: "/files/a.png")),
///     .prefix("/busy/", .status(503), .header(name: "Retry-After", value: "1")),
/// ]
/// ```
public struct NginxLocation: Sendable, Hashable {
    /// Which request paths a location takes: nginx's `location = PATH` or `location PATH`.
    public enum Match: Sendable, Hashable {
        /// `location = PATH`: this path only.
        case exact(String)
        /// `location PATH`: every path starting with it (the longest prefix wins, as in nginx).
        case prefix(String)
    }

    /// Which request paths this location takes.
    public var match: Match
    /// In order; nginx itself decides what runs when (a `return` ends the request in its
    /// rewrite phase, headers are added to whatever answer goes out).
    public var directives: [NginxDirective]

    /// A location taking `match`'s paths and running `directives` there, in order.
    public init(_ match: Match, _ directives: [NginxDirective]) {
        self.match = match
        self.directives = directives
    }

    /// `location = path`: `directives` for exactly this path.
    public static func exact(_ path: String, _ directives: NginxDirective...) -> NginxLocation {
        NginxLocation(.exact(path), directives)
    }

    /// `location path`: `directives` for every path starting with `path` (the longest matching
    /// prefix wins).
    public static func prefix(_ path: String, _ directives: NginxDirective...) -> NginxLocation {
        NginxLocation(.prefix(path), directives)
    }
}

/// Where a proxying location sends its requests.
public enum NginxUpstream: Sendable, Hashable {
    /// An `http://host:port[/path]` URL, as nginx's `proxy_pass` takes it: with a path, the
    /// location's prefix is replaced by that path; without one, the request path goes on as it is.
    case url(URL)
    /// `path` on this same nginx (127.0.0.1 and its port), for a location that must reach
    /// another location with different request headers (see ``NginxDirective/proxyHeader(name:value:)``).
    case thisServer(path: String)
}

/// What a location does. Each case renders to the nginx directives its comment names.
public enum NginxDirective: Sendable, Hashable {
    /// `alias`: serve this file or directory of the docroot (relative to it; `""` is the docroot
    /// itself) instead of the request path under the docroot, which is what a location without
    /// `alias` serves. For a prefix location ending in `/`, name a directory ending in `/`.
    case alias(String)
    /// `gzip on`: compress responses of these media types on the fly (chunked, no
    /// Content-Length) for clients that accept gzip, when the body has at least `minLength`
    /// bytes, proxied requests included (`gzip_proxied any`), with `Vary: Accept-Encoding`.
    /// Defaults: PNG, JPEG and WebP; 20 bytes (nginx's own default minimum).
    case gzip(types: [String] = ["image/png", "image/jpeg", "image/webp"], minLength: Int = 20)
    /// `gzip_static on`: answer a client that accepts gzip with `FILE.gz` from beside `FILE`
    /// (Content-Encoding gzip, the .gz file's Content-Length). With `always` (default false,
    /// `gzip_static always`), answer every client so, whatever it accepts: what a server or CDN
    /// with pre-compressed objects does.
    case gzipStatic(always: Bool = false)
    /// `limit_rate`: send each response at this many bytes per second. nginx lets the first
    /// second's worth go at once, so only a body larger than the rate is slowed.
    case limitRate(bytesPerSecond: Int)
    /// `return STATUS URL`: a redirect (301, 302, 303, 307 or 308) to `to`, a path on this
    /// server or an absolute http URL. With `keepingQuery` (default true) the request's query
    /// string is carried over, so a test can tell its own requests apart along a chain.
    case redirect(status: Int, to: String, keepingQuery: Bool = true)
    /// `return STATUS`: this status with nginx's own short body (a 503 page, say).
    case status(Int)
    /// `add_header NAME "VALUE" [always]`. nginx adds headers only to 2xx and 3xx answers unless
    /// `always` (default true) is set, so a `Retry-After` on a 503 needs it.
    case header(name: String, value: String, always: Bool = true)
    /// `proxy_pass`, with `proxy_buffering off` (bytes reach the client as the upstream sends
    /// them, so a stalling upstream is a stalling response), HTTP/1.1 to the upstream, and
    /// connect, send and read timeouts of `timeoutSeconds` (default 60: longer than any client
    /// timeout a test sets, so the client gives up first).
    case proxy(to: NginxUpstream, timeoutSeconds: Int = 60)
    /// A caching reverse proxy: `proxy_pass` to `to` through the server's one shared cache
    /// zone (`imago_cache`: at most 64 MiB in the server's temporary directory, an entry unused
    /// for 10 minutes dropped), with `proxy_buffering on` (nginx caches only what it
    /// buffers), the cache key `$scheme$proxy_host$request_uri`, and an `X-Cache-Status`
    /// response header from `$upstream_cache_status` (MISS, HIT, EXPIRED, REVALIDATED, ...).
    /// nginx honours the origin's `Cache-Control` and `Expires` (`s-maxage` before `max-age`;
    /// `no-store`, `no-cache` and `private` are not cached) and caches nothing without them.
    /// `lock` (default true, `proxy_cache_lock`): concurrent misses for one key make one origin
    /// request and the others wait for its entry (nginx re-checks every 500 ms; when the answer
    /// is not cacheable, the waiters go to the origin one by one, 500 ms apart).
    /// `revalidate` (default true, `proxy_cache_revalidate`): a stale entry is refreshed with a
    /// conditional request (If-None-Match / If-Modified-Since) instead of a full one.
    /// `timeoutSeconds` (default 60): connect, send and read timeouts, and how long a request
    /// waits on the lock before going to the origin itself.
    case cachingProxy(to: NginxUpstream, lock: Bool = true, revalidate: Bool = true, timeoutSeconds: Int = 60)
    /// `stub_status`: nginx's connection and request counters as text, read with
    /// ``NginxServer/requestsInProgress(statusPath:)``.
    case stubStatus
    /// `expires Ns`: `Expires` (now + N seconds) and `Cache-Control: max-age=N`; a negative N
    /// gives an `Expires` in the past and `Cache-Control: no-cache`, as nginx documents.
    case expires(seconds: Int)
    /// `etag on|off`: whether static files carry an `ETag` (nginx's default: on). With it off,
    /// `Last-Modified` is the only validator (and `header(name: "Last-Modified", value: "")`
    /// removes that one too: nginx treats an empty `add_header Last-Modified` as "none").
    case entityTags(Bool)
    /// `proxy_set_header NAME "VALUE"`: a request header sent to the upstream in place of the
    /// client's (an empty value drops the header).
    case proxyHeader(name: String, value: String)
    /// `if (-f DOCROOT/FILE) { ... }`: these directives apply only while the docroot holds that
    /// file, so a test can switch a location's behaviour by creating or removing the file.
    /// Inside: ``status(_:)``, ``redirect(status:to:keepingQuery:)``,
    /// ``header(name:value:always:)``, ``limitRate(bytesPerSecond:)``, ``gzip(types:minLength:)``
    /// (what nginx allows in an `if` in a location) and ``proxy(to:timeoutSeconds:)`` to an
    /// `.url` without a path (the request path goes on as it is; the location gets the other
    /// proxy settings, which nginx refuses inside an `if`).
    case whileFileExists(String, [NginxDirective])
}

/// Turns locations into nginx.conf text, refusing anything that nginx would read differently
/// from what the caller meant: no value may hold `$` (nginx would interpolate a variable),
/// quotes, braces, semicolons, backslashes or control characters, and numbers must make sense.
struct NginxConfigRenderer {
    let docroot: String
    let selfOrigin: String   // http://127.0.0.1:PORT

    func render(_ location: NginxLocation) throws(NginxError) -> String {
        let head: String
        switch location.match {
        case .exact(let path): head = "location = \(try Self.quoted(path: path))"
        case .prefix(let path): head = "location \(try Self.quoted(path: path))"
        }
        var lines = ["        \(head) {"]
        for directive in location.directives {
            lines += try render(directive, nested: false).map { "            " + $0 }
            if case .whileFileExists(_, let inner) = directive,
               case .proxy(_, let timeout)? = inner.first(where: { if case .proxy = $0 { true } else { false } }) {
                guard timeout > 0 else { throw .invalidConfiguration("proxy timeout must be positive") }
                lines += ["proxy_http_version 1.1;", "proxy_buffering off;", "proxy_connect_timeout \(timeout)s;",
                          "proxy_send_timeout \(timeout)s;", "proxy_read_timeout \(timeout)s;"].map { "            " + $0 }
            }
        }
        lines.append("        }")
        return lines.joined(separator: "\n")
    }

    private func render(_ directive: NginxDirective, nested: Bool) throws(NginxError) -> [String] {
        switch directive {
        case .alias(let relative):
            guard !nested else { throw .invalidConfiguration("alias is not allowed inside whileFileExists") }
            return ["alias \(try Self.quoted(docroot + "/" + Self.relativePath(relative)));"]
        case .gzip(let types, let minLength):
            guard !types.isEmpty, minLength >= 0 else { throw .invalidConfiguration("gzip needs media types and a minimum length >= 0") }
            let list = try types.map { type throws(NginxError) in try Self.token(type, allowing: "/+.-*") }
            return ["gzip on;", "gzip_types \(list.joined(separator: " "));", "gzip_min_length \(minLength);",
                    "gzip_proxied any;", "gzip_vary on;"]
        case .gzipStatic(let always):
            guard !nested else { throw .invalidConfiguration("gzip_static is not allowed inside whileFileExists") }
            return ["gzip_static \(always ? "always" : "on");"]
        case .limitRate(let rate):
            guard rate > 0 else { throw .invalidConfiguration("limit_rate must be positive (got \(rate))") }
            return ["limit_rate \(rate);"]
        case .redirect(let status, let target, let keepingQuery):
            guard [301, 302, 303, 307, 308].contains(status) else {
                throw .invalidConfiguration("\(status) is not a redirect status")
            }
            guard target.hasPrefix("/") || target.hasPrefix("http://") || target.hasPrefix("https://") else {
                throw .invalidConfiguration("redirect target \(target) is neither a path nor an http(s) URL")
            }
            guard !(keepingQuery && target.contains("?")) else {
                throw .invalidConfiguration("redirect target \(target) has a query of its own; the request's cannot be kept")
            }
            let url = try Self.checked(target) + (keepingQuery ? "$is_args$args" : "")
            return ["return \(status) \"\(url)\";"]
        case .status(let status):
            guard (200...599).contains(status) else { throw .invalidConfiguration("status \(status) out of range") }
            return ["return \(status);"]
        case .header(let name, let value, let always):
            return ["add_header \(try Self.token(name, allowing: "-")) \(try Self.quoted(value))\(always ? " always" : "");"]
        case .proxy(let upstream, let timeout):
            if nested {
                // nginx takes only `proxy_pass` (without a path) inside an `if`; the location
                // itself gets the other proxy settings (see `render(_ location:)`).
                guard case .url(let url) = upstream, url.scheme == "http", url.host != nil, url.path.isEmpty,
                      url.query == nil else {
                    throw .invalidConfiguration("inside whileFileExists, proxy needs an http URL without a path")
                }
                return ["proxy_pass \(try Self.checked(url.absoluteString));"]
            }
            guard timeout > 0 else { throw .invalidConfiguration("proxy timeout must be positive") }
            let target = try proxyTarget(upstream)
            return ["proxy_pass \(target);", "proxy_http_version 1.1;", "proxy_buffering off;",
                    "proxy_connect_timeout \(timeout)s;", "proxy_send_timeout \(timeout)s;",
                    "proxy_read_timeout \(timeout)s;"]
        case .cachingProxy(let upstream, let lock, let revalidate, let timeout):
            guard !nested else { throw .invalidConfiguration("cachingProxy is not allowed inside whileFileExists") }
            return try NginxProxyCache.directives(
                target: proxyTarget(upstream), lock: lock, revalidate: revalidate, timeoutSeconds: timeout)
        case .stubStatus:
            guard !nested else { throw .invalidConfiguration("stub_status is not allowed inside whileFileExists") }
            return ["stub_status;"]
        case .expires(let seconds):
            guard !nested else { throw .invalidConfiguration("expires is not allowed inside whileFileExists") }
            return ["expires \(seconds)s;"]
        case .entityTags(let on):
            guard !nested else { throw .invalidConfiguration("etag is not allowed inside whileFileExists") }
            return ["etag \(on ? "on" : "off");"]
        case .proxyHeader(let name, let value):
            guard !nested else { throw .invalidConfiguration("proxy_set_header is not allowed inside whileFileExists") }
            return ["proxy_set_header \(try Self.token(name, allowing: "-")) \(try Self.quoted(value));"]
        case .whileFileExists(let relative, let inner):
            guard !nested else { throw .invalidConfiguration("whileFileExists cannot be nested (nginx has no nested if)") }
            var lines = ["if (-f \(try Self.quoted(docroot + "/" + Self.relativePath(relative)))) {"]
            for directive in inner { lines += try render(directive, nested: true).map { "    " + $0 } }
            lines.append("}")
            return lines
        }
    }

    /// The `proxy_pass` target of an upstream: an http URL with a host, or a path here.
    private func proxyTarget(_ upstream: NginxUpstream) throws(NginxError) -> String {
        switch upstream {
        case .url(let url):
            guard url.scheme == "http", url.host != nil else {
                throw .invalidConfiguration("proxy upstream \(url) is not an http URL with a host")
            }
            return try Self.checked(url.absoluteString)
        case .thisServer(let path):
            return selfOrigin + (try Self.checked(path: path))
        }
    }

    private static func relativePath(_ path: String) -> String {
        String(path.drop(while: { $0 == "/" }))
    }

    /// A value for a double-quoted nginx string: nothing nginx would interpret.
    static func checked(_ value: String) throws(NginxError) -> String {
        let refused: Set<Character> = ["$", "\"", "'", "\\", "{", "}", ";"]
        if let bad = value.first(where: { refused.contains($0) || $0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7f } }) {
            throw .invalidConfiguration("\(value.debugDescription) holds \(bad.debugDescription), which nginx would interpret")
        }
        return value
    }

    static func quoted(_ value: String) throws(NginxError) -> String { "\"\(try checked(value))\"" }

    /// A request path: starts with `/`, no spaces (nginx matches the decoded path; tests
    /// need none).
    static func checked(path: String) throws(NginxError) -> String {
        guard path.hasPrefix("/"), !path.contains(" ") else {
            throw .invalidConfiguration("location path \(path.debugDescription) must start with / and hold no spaces")
        }
        return try checked(path)
    }

    static func quoted(path: String) throws(NginxError) -> String { "\"\(try checked(path: path))\"" }

    /// A bare word: letters, digits and the given punctuation.
    static func token(_ value: String, allowing extra: String) throws(NginxError) -> String {
        guard !value.isEmpty, value.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || extra.contains($0) }) else {
            throw .invalidConfiguration("\(value.debugDescription) is not a plain name")
        }
        return value
    }
}
