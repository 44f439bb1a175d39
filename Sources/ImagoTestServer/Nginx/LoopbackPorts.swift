#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// Loopback sockets for starting a server on a port the test picks: nginx cannot report a
/// kernel-chosen port back, so a free one is found by binding port 0, then handed to nginx.
/// Another process may take it in between; the launcher retries with a new port when nginx
/// says the address is in use. `ipv6Available` is also offered, as SPI, to the package's own
/// test support (its IPv6 skips ask the same question nginx's listener does).
@_spi(TestSupport) public enum LoopbackPorts {
    enum Family { case ipv4, ipv6 }

    /// Whether [::1] can be bound here (containers often run without IPv6 loopback).
    @_spi(TestSupport) public static var ipv6Available: Bool {
        guard let fd = bound(.ipv6, port: 0) else { return false }
        close(fd)
        return true
    }

    /// A port free on 127.0.0.1 and, with `alsoIPv6`, on [::1] too, other than `other` (a
    /// port picked already, whose socket is closed again), or nil after 50 tries.
    static func freePort(alsoIPv6: Bool, other: Int? = nil) -> Int? {
        for _ in 0..<50 {
            guard let v4 = bound(.ipv4, port: 0) else { return nil }
            defer { close(v4) }
            guard let port = localPort(v4), port != other else { continue }
            if !alsoIPv6 { return port }
            if let v6 = bound(.ipv6, port: port) {
                close(v6)
                return port
            }
        }
        return nil
    }

    /// Whether something accepts TCP connections on the loopback address of `family` at
    /// `port` (a connect that succeeds, closed at once without sending a byte: nginx logs no
    /// request for it).
    static func accepts(_ family: Family, port: Int) -> Bool {
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, streamSocket, 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return withAddress(family, port: port) { address, length in connect(fd, address, length) == 0 }
    }

    /// The whole response (head and body) to `GET path HTTP/1.0` on 127.0.0.1:`port`, read
    /// until the server closes, or nil when the connection fails. For small answers such as
    /// nginx's `stub_status` page; blocks the calling thread while it waits (milliseconds, and
    /// never more than 2 s per send or receive: a wedged server is a nil, not a hang).
    static func get(port: Int, path: String) -> String? {
        let fd = socket(AF_INET, streamSocket, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var limit = timeval(tv_sec: 2, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard withAddress(.ipv4, port: port, { address, length in connect(fd, address, length) == 0 }) else { return nil }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        // MSG_NOSIGNAL: a server that closed early must not kill the test process with SIGPIPE.
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return nil }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return nil }
            if count == 0 { return String(decoding: response, as: UTF8.self) }
            response += buffer[..<count]
        }
    }

    private static func bound(_ family: Family, port: Int) -> Int32? {
        let fd = socket(family == .ipv4 ? AF_INET : AF_INET6, streamSocket, 0)
        guard fd >= 0 else { return nil }
        let ok = withAddress(family, port: port) { address, length in bind(fd, address, length) == 0 }
        if ok { return fd }
        close(fd)
        return nil
    }

    private static func localPort(_ fd: Int32) -> Int? {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        return ok ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }

    private static func withAddress<T>(_ family: Family, port: Int,
                                       _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        switch family {
        case .ipv4:
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian   // 127.0.0.1
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .ipv6:
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }   // ::1
            return withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }
}
