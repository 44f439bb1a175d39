@_spi(TestSupport) import ImagoTestServer
import Testing

/// IPv6 loopback (`[::1]`), which containers often run without: the same check nginx's
/// listener makes (`LoopbackPorts.ipv6Available`), so a test skips exactly where nginx would
/// listen on 127.0.0.1 only.
public enum IPv6Loopback {
    /// Whether `[::1]` can be bound on this machine.
    public static var isAvailable: Bool { LoopbackPorts.ipv6Available }

    /// Skips the running test (``TestSkip``) where there is no IPv6 loopback.
    public static func requireOrSkip() throws {
        if !isAvailable { try TestSkip.skip("no IPv6 loopback on this machine") }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where `[::1]` can be bound (`@Test(.ipv6Loopback)`), else skips it.
    public static var ipv6Loopback: Self {
        .enabled("no IPv6 loopback on this machine") { IPv6Loopback.isAvailable }
    }
}
