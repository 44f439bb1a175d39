/// The shared cache tier of a generated nginx.conf: one `proxy_cache_path` zone, used by every
/// ``NginxDirective/cachingProxy(to:lock:revalidate:timeoutSeconds:)`` location of the server.
///
/// The rendered configuration, as the proxy tier tests run it (paths shortened):
///
/// ```nginx
/// proxy_cache_path TMP/temp/proxy_cache levels=1:2 keys_zone=imago_cache:1m
///                  max_size=64m inactive=10m use_temp_path=off;
/// location / {
///     proxy_pass http://127.0.0.1:ORIGIN;
///     proxy_http_version 1.1;
///     proxy_buffering on;
///     proxy_cache imago_cache;
///     proxy_cache_key $scheme$proxy_host$request_uri;
///     proxy_cache_lock on;
///     proxy_cache_lock_timeout 60s;
///     proxy_cache_lock_age 60s;
///     proxy_cache_revalidate on;
///     add_header X-Cache-Status $upstream_cache_status always;
///     proxy_connect_timeout 60s; proxy_send_timeout 60s; proxy_read_timeout 60s;
/// }
/// ```
///
/// Nothing here says how long to keep a response (no `proxy_cache_valid`): nginx then caches
/// only what the origin's `Cache-Control` / `Expires` allow, for as long as they allow.
enum NginxProxyCache {
    /// The `keys_zone` name every caching location uses.
    static let zoneName = "imago_cache"
    /// Where the cache's files go, relative to the layout's directory (removed with it).
    static let relativeDirectory = "temp/proxy_cache"
    /// The cache's size limit: 64 MiB, small on purpose (a test's images are kilobytes; the
    /// limit keeps a runaway test from filling the disk).
    static let maxSize = "64m"
    /// Keys zone: 1 MiB of shared memory, about 8,000 keys.
    static let keysZoneSize = "1m"
    /// An entry nobody asked for in this long is dropped whatever its freshness: 10 minutes,
    /// longer than any test.
    static let inactive = "10m"

    /// The key: scheme, upstream and the request target with its query, so every URL (and
    /// every `?via=` variant a test appends) is its own entry. nginx variables, rendered as a
    /// fixed literal: no caller value ever reaches this line.
    static let cacheKey = "$scheme$proxy_host$request_uri"

    /// The `http`-level `proxy_cache_path` line for a cache under `layoutDirectory`.
    static func pathLine(layoutDirectory: String) throws(NginxError) -> String {
        let directory = try NginxConfigRenderer.quoted(layoutDirectory + "/" + relativeDirectory)
        return "proxy_cache_path \(directory) levels=1:2 keys_zone=\(zoneName):\(keysZoneSize) "
            + "max_size=\(maxSize) inactive=\(inactive) use_temp_path=off;"
    }

    /// Whether any location uses the cache (only then is the zone declared).
    static func isUsed(by locations: [NginxLocation]) -> Bool {
        locations.contains { location in
            location.directives.contains { if case .cachingProxy = $0 { true } else { false } }
        }
    }

    /// The location-level directives of a caching proxy to the checked `target`.
    static func directives(target: String, lock: Bool, revalidate: Bool,
                           timeoutSeconds timeout: Int) throws(NginxError) -> [String] {
        guard timeout > 0 else { throw .invalidConfiguration("proxy timeout must be positive") }
        return [
            "proxy_pass \(target);",
            "proxy_http_version 1.1;",
            // nginx writes a cache entry only from a buffered response: with buffering off it
            // passes every response through uncached, whatever the headers say.
            "proxy_buffering on;",
            "proxy_cache \(zoneName);",
            "proxy_cache_key \(cacheKey);",
            "proxy_cache_lock \(lock ? "on" : "off");",
            // Both default to 5 s, after which waiting requests go to the origin themselves:
            // tied to the timeout so a slow origin still sees one request.
            "proxy_cache_lock_timeout \(timeout)s;",
            "proxy_cache_lock_age \(timeout)s;",
            "proxy_cache_revalidate \(revalidate ? "on" : "off");",
            "add_header X-Cache-Status $upstream_cache_status always;",
            "proxy_connect_timeout \(timeout)s;",
            "proxy_send_timeout \(timeout)s;",
            "proxy_read_timeout \(timeout)s;",
        ]
    }
}
